// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * A lab program for daemon_jitlog_attach.sh: maps the JIT log library
 * LIBRARY (dlopen, as a JIT would) and watches the state word of its
 * opjit_jitlog_control for SECONDS, then prints its effective uid and the
 * highest state seen.  Installed set-user-ID root by the test, it plays a
 * privileged program that a profiler must not write into.
 */
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

struct lab_control {
	char magic[8];
	uint32_t version, state, on_attach_logs, reserved;
};

int main(int argc, char **argv)
{
	const struct timespec step = { 0, 10000000L };
	volatile const struct lab_control *c;
	uint32_t max = 0;
	double seconds;
	void *h;

	if (argc != 3) {
		fprintf(stderr, "usage: jitlog_lab LIBRARY SECONDS\n");
		return 2;
	}
	seconds = atof(argv[2]);
	h = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		fprintf(stderr, "jitlog_lab: %s\n", dlerror());
		return 2;
	}
	c = dlsym(h, "opjit_jitlog_control");
	if (!c) {
		fprintf(stderr, "jitlog_lab: %s\n", dlerror());
		return 2;
	}
	for (long i = 0; i < (long)(seconds * 100); i++) {
		if (c->state > max)
			max = c->state;
		nanosleep(&step, NULL);
	}
	printf("euid %u state %u\n", (unsigned)geteuid(), (unsigned)max);
	return 0;
}
