// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * jitlog_attach against a real process that maps libopjit-jitlog: the
 * control block is attached to while the program that mapped it runs,
 * and never once the process has executed another program since the
 * library was found, even when that program maps the library too (an
 * exec the recorder never heard of, as after lost records).
 */
#include <check.h>
#include <dlfcn.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/personality.h>
#include <sys/wait.h>
#include <unistd.h>

#include <opjit/jitlog.h>

#include "jitlog_attach.h"
#include "recorder.h"

#include "check_run.h"

static char self[4096];

/* The lab: map the library, say where its block is, then on each line
 * of input: 'e' executes this program as a new lab, 's' says the
 * block's state and ends. */
static int lab(void)
{
	volatile struct opjit_jitlog_control *c;
	void *h = dlopen(JITLOG_SO, RTLD_NOW | RTLD_LOCAL);
	char cmd[8];

	if (!h || !(c = dlsym(h, OPJIT_JITLOG_CONTROL_SYMBOL)))
		return 2;
	printf("%p\n", (void *)c);
	fflush(stdout);
	while (fgets(cmd, sizeof(cmd), stdin)) {
		if (cmd[0] == 'e')
			execl(self, self, "lab", (char *)NULL);
		if (cmd[0] == 's') {
			printf("%u\n", c->state);
			return 0;
		}
	}
	return 1;
}

struct child {
	pid_t pid;
	FILE *in, *out;
};

/* Start the lab; WHERE (64 bytes) gets the address of its block. */
static void child_start(struct child *c, char *where)
{
	int to[2], from[2];

	ck_assert_int_eq(pipe(to), 0);
	ck_assert_int_eq(pipe(from), 0);
	c->pid = fork();
	ck_assert_int_ge(c->pid, 0);
	if (!c->pid) {
		dup2(to[0], 0);
		dup2(from[1], 1);
		close(to[1]);
		close(from[0]);
		/* the same addresses in the next program: its block is
		 * where the first one's was */
		personality(ADDR_NO_RANDOMIZE);
		execl(self, self, "lab", (char *)NULL);
		_exit(127);
	}
	close(to[0]);
	close(from[1]);
	c->in = fdopen(to[1], "w");
	c->out = fdopen(from[0], "r");
	ck_assert_ptr_nonnull(fgets(where, 64, c->out));
}

static void child_say(struct child *c, const char *cmd)
{
	fputs(cmd, c->in);
	fflush(c->in);
}

static unsigned child_state(struct child *c)
{
	char line[64];
	int status;

	child_say(c, "s\n");
	ck_assert_ptr_nonnull(fgets(line, sizeof(line), c->out));
	fclose(c->in);
	fclose(c->out);
	ck_assert_int_eq(waitpid(c->pid, &status, 0), c->pid);
	return (unsigned)strtoul(line, NULL, 10);
}

/* Find the library's code mapping in C and tell the recorder R. */
static struct proc *found(struct recorder *r, struct child *c)
{
	char path[64], line[4200], name[4096];
	struct proc *p = proctab_add(&r->procs, (uint32_t)c->pid);
	FILE *f;

	ck_assert_ptr_nonnull(p);
	snprintf(path, sizeof(path), "/proc/%d/maps", (int)c->pid);
	f = fopen(path, "r");
	ck_assert_ptr_nonnull(f);
	while (fgets(line, sizeof(line), f)) {
		uint64_t start, pgoff;
		char perm[8];

		if (sscanf(line,
			   "%" SCNx64 "-%*x %7s %" SCNx64 " %*s %*s %4095s",
			   &start, perm, &pgoff, name) == 4 &&
		    perm[2] == 'x' && jitlog_attach_is_library(name)) {
			jitlog_attach_found(r, p, name, start, pgoff);
			break;
		}
	}
	fclose(f);
	ck_assert_int_eq(p->jitlog, JITLOG_PENDING);
	return p;
}

START_TEST(attached_while_the_same_program)
{
	char line[64];
	struct recorder r;
	struct child c;
	struct proc *p;

	memset(&r, 0, sizeof(r));
	ck_assert_int_eq(proctab_init(&r.procs), 0);
	child_start(&c, line);
	p = found(&r, &c);
	jitlog_attach_pending(&r);
	ck_assert_int_eq(p->jitlog, JITLOG_ATTACHED);
	ck_assert_uint_eq(child_state(&c), OPJIT_JITLOG_ATTACH);
	proctab_free(&r.procs);
}
END_TEST

START_TEST(never_after_an_exec)
{
	struct recorder r;
	struct child c;
	struct proc *p;
	char first[64], line[64];

	memset(&r, 0, sizeof(r));
	ck_assert_int_eq(proctab_init(&r.procs), 0);
	child_start(&c, first);
	p = found(&r, &c);
	/* the process runs a new program that maps the library again,
	 * its block at the same address; the recorder is not told */
	child_say(&c, "e\n");
	ck_assert_ptr_nonnull(fgets(line, sizeof(line), c.out));
	ck_assert_str_eq(line, first);
	jitlog_attach_pending(&r);
	ck_assert_int_ne(p->jitlog, JITLOG_ATTACHED);
	ck_assert_uint_eq(child_state(&c), OPJIT_JITLOG_DETACHED);
	proctab_free(&r.procs);
}
END_TEST

int main(int argc, char **argv)
{
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	Suite *s;
	TCase *tc;

	if (n <= 0)
		return 1;
	self[n] = '\0';
	if (argc == 2 && !strcmp(argv[1], "lab"))
		return lab();
	s = suite_create("jitlog_attach");
	tc = tcase_create("exec");
	tcase_add_test(tc, attached_while_the_same_program);
	tcase_add_test(tc, never_after_an_exec);
	suite_add_tcase(s, tc);
	return opjit_check_run(s);
}
