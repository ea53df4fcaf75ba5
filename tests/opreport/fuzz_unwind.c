// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * libFuzzer target: the unwinder (opreport/unwind.c) on arbitrary stack
 * copies.  A session made once holds this very process's layout (its
 * executable and libc, as /proc/self/maps has them), so that the CFI
 * unwound through is real; each input is a copy's registers and bytes:
 *
 *   u8  leaf image (even: the executable, odd: libc)
 *   u64 ip, an offset into that image's executable mapping
 *   u64 bp
 *   the copy's bytes (at most OPS_STACK_COPY_MAX)
 *
 * An 8-byte word of the bytes whose top byte is 0xee or 0xef becomes an
 * address in the executable's or libc's code, and 0xed one in the copy
 * itself: random words almost never land there, and return addresses
 * and saved frame pointers must, for the unwinding to go anywhere.  The
 * frame-pointer stack is the leaf and the first three such code words.
 * The promises: bounded frames, every frame an image of the session or
 * unknown, 0 or at least two frames, and (ASan) no read outside the
 * copy.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <opjit/samples.h>

#include "diag.h"
#include "opreport.h"
#include "unwind.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define STACK_BASE 0x7ffc00000000ull

static struct ops_session *session;
static struct unwind *unwinder;
static struct ops_process_map code[2]; /* executable, libc */
static uint32_t image_id[2];

static void quiet(const char *line, void *ctx)
{
	(void)ctx;
	if (!*line)
		abort();
}

/* The first executable mapping of each of the two images, from
 * /proc/self/maps. */
static void find_code(char exe[4096], char libc[4096])
{
	char line[8192], perm[8], path[4096];
	unsigned long long start, end, off;
	FILE *f = fopen("/proc/self/maps", "re");
	ssize_t n = readlink("/proc/self/exe", exe, 4095);

	if (!f || n <= 0)
		abort();
	exe[n] = 0;
	libc[0] = 0;
	while (fgets(line, sizeof(line), f)) {
		int k;

		path[0] = 0;
		if (sscanf(line, "%llx-%llx %7s %llx %*s %*s %4095s", &start,
			   &end, perm, &off, path) < 4 ||
		    perm[2] != 'x' || path[0] != '/')
			continue;
		if (!strcmp(path, exe))
			k = 0;
		else if (strstr(path, "/libc.so"))
			k = 1;
		else
			continue;
		if (code[k].len)
			continue;
		if (k == 1)
			snprintf(libc, 4096, "%s", path);
		code[k] = (struct ops_process_map){ .tgid = (uint32_t)getpid(),
						    .start = start,
						    .len = end - start,
						    .pgoff = off };
	}
	fclose(f);
	if (!code[0].len || !code[1].len)
		abort();
}

/* The session is read whole at its open: its directory goes at once,
 * so that no run leaves one behind. */
static void remove_dir(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;

	if (!d)
		abort();
	while ((e = readdir(d)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
			unlinkat(dirfd(d), e->d_name, 0);
	closedir(d);
	rmdir(dir);
}

static void make_session(void)
{
	static struct opreport_opts opts;
	char dir[] = "/tmp/fuzz_unwind.XXXXXX", exe[4096], libc[4096];
	struct ops_session_info info = { .event = "cpu-clock",
					 .frequency = 4000,
					 .clock = "CLOCK_MONOTONIC",
					 .callgraph_depth = 127 };
	struct ops_frame leaf = { OPS_FRAME_IMAGE, 0, 0 };
	struct ops_stack st = { .frames = &leaf, .nr_frames = 1 };
	struct ops_context ctx = { .tgid = 0, .cpu = -1 };
	struct ops_stack_copy cp = { 0 };
	struct ops_writer *w;
	char err[256];
	uint32_t id;
	int k;

	diag_set_sink(quiet, NULL);
	find_code(exe, libc);
	if (!mkdtemp(dir) || ops_writer_open(&w, dir, &info))
		abort();
	for (k = 0; k < 2; k++) {
		struct ops_image img = { .kind = OPS_IMAGE_FILE,
					 .path = k ? libc : exe };

		if (ops_writer_image(w, &img, &image_id[k]))
			abort();
		code[k].image = image_id[k];
		code[k].app = image_id[0];
	}
	ctx.app = ctx.image = image_id[0];
	leaf.image = image_id[0];
	leaf.addr = code[0].pgoff;
	if (ops_writer_context(w, &ctx, &cp.ctx) ||
	    ops_writer_stack(w, &st, &cp.stack) ||
	    ops_writer_stack_add(w, cp.ctx, cp.stack, 1) ||
	    ops_writer_process_map(w, &code[0]) ||
	    ops_writer_process_map(w, &code[1]) ||
	    ops_writer_stack_copy(w, &cp) || ops_writer_close(w, 1))
		abort();
	if (ops_session_open(&session, dir, NULL, NULL, err, sizeof(err)) ||
	    unwind_new(&unwinder, session, &opts) || !unwinder)
		abort();
	remove_dir(dir);
	(void)id;
}

static uint64_t load64(const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ops_frame fpf[4];
	struct ops_stack fp = { .frames = fpf, .nr_frames = 1 };
	static struct cg_raw_frame frames[OPS_STACK_MAX_FRAMES];
	struct ops_stack_copy c = { .sp = STACK_BASE };
	const struct ops_process_map *m;
	uint8_t *bytes;
	size_t n, i;
	enum unwind_root root;

	if (!session)
		make_session();
	if (size < 17)
		return 0;
	m = &code[data[0] & 1];
	c.ctx = 0;
	c.stack = 0;
	c.ip = m->start + load64(data + 1) % m->len;
	c.bp = load64(data + 9);
	data += 17;
	size -= 17;
	c.size = (uint32_t)(size < OPS_STACK_COPY_MAX ? size
						      : OPS_STACK_COPY_MAX);
	bytes = malloc(c.size ? c.size : 1);
	if (!bytes)
		abort();
	memcpy(bytes, data, c.size);
	fpf[0] = (struct ops_frame){ OPS_FRAME_IMAGE, m->image,
				     c.ip - m->start + m->pgoff };
	for (i = 0; i + 8 <= c.size; i += 8) {
		uint64_t v = load64(bytes + i), a;
		uint8_t top = (uint8_t)(v >> 56);

		if (top == 0xed) {
			a = STACK_BASE + (v & 0xffff);
		} else if (top == 0xee || top == 0xef) {
			const struct ops_process_map *t = &code[top & 1];

			a = t->start + (v & 0xffffffff) % t->len;
			if (fp.nr_frames < 4)
				fpf[fp.nr_frames++] = (struct ops_frame){
					OPS_FRAME_IMAGE, t->image,
					a - t->start + t->pgoff
				};
		} else {
			continue;
		}
		memcpy(bytes + i, &a, sizeof(a));
	}
	c.bytes = bytes;
	n = unwind_stack(unwinder, &c, &fp, frames, OPS_STACK_MAX_FRAMES,
			 &root);
	if (n == 1 || n > OPS_STACK_MAX_FRAMES)
		abort();
	for (i = 0; i < n; i++)
		if (frames[i].image != CG_UNKNOWN &&
		    frames[i].image != image_id[0] &&
		    frames[i].image != image_id[1])
			abort();
	free(bytes);
	return 0;
}
