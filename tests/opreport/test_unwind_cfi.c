// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * The unwinder's rules by pc (opreport/unwind_cfi.c) are a process
 * layout's own: the same address holds other code, with other rules, in
 * another process, or in the same process after an exec.  This test's
 * executable is mapped in two layouts 4 KiB apart, so that the address
 * of one_body in the first is that of two_body, one page on, in the
 * second: one's CFI finds the return address at sp, two's at sp + 8.
 * Both return to end_body, whose CFI says it is the outermost frame, so
 * the unwinder's own walk goes to the end (libdwfl takes no part).  A
 * copy unwound in the first layout and then in the second must give
 * each layout's stack, as a fresh unwinder gives it; rules kept from the
 * first layout and used in the second would give the first's.
 */
#include <check.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <opjit/samples.h>

#include "opreport.h"
#include "unwind.h"

#include "check_run.h"

/* one, two and end at the same offset of three pages in a row */
__asm__(".pushsection .text\n"
	".balign 4096\n"
	"unwind_cfi_one:\n"
	".cfi_startproc\n"
	".cfi_def_cfa %rsp, 8\n"
	".cfi_offset %rip, -8\n"
	"nop\n"
	".globl unwind_cfi_one_body\n"
	"unwind_cfi_one_body:\n"
	"nop\n"
	"ret\n"
	".cfi_endproc\n"
	".balign 4096\n"
	"unwind_cfi_two:\n"
	".cfi_startproc\n"
	".cfi_def_cfa %rsp, 16\n"
	".cfi_offset %rip, -8\n"
	"nop\n"
	"nop\n"
	"ret\n"
	".cfi_endproc\n"
	".balign 4096\n"
	"unwind_cfi_end:\n"
	".cfi_startproc\n"
	".cfi_undefined %rip\n"
	"nop\n"
	".globl unwind_cfi_end_body\n"
	"unwind_cfi_end_body:\n"
	"nop\n"
	"nop\n"
	"ret\n"
	".cfi_endproc\n"
	".popsection\n");
extern char unwind_cfi_one_body[], unwind_cfi_end_body[];

#define STACK_BASE 0x7ffc00000000ull
#define PAGE 4096u

/* The executable's mapping that holds one, two and end. */
static struct ops_process_map text_map(void)
{
	uint64_t addr = (uint64_t)(uintptr_t)unwind_cfi_one_body;
	unsigned long long start, end, off;
	struct ops_process_map m = { 0 };
	char line[8192], perm[8];
	FILE *f = fopen("/proc/self/maps", "re");

	ck_assert_ptr_nonnull(f);
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%llx-%llx %7s %llx", &start, &end, perm,
			   &off) == 4 &&
		    start <= addr && addr < end)
			m = (struct ops_process_map){ .start = start,
						      .len = end - start,
						      .pgoff = off };
	fclose(f);
	ck_assert_uint_ne(m.len, 0);
	ck_assert_uint_le((uint64_t)(uintptr_t)unwind_cfi_end_body + 8,
			  m.start + m.len);
	return m;
}

static void remove_dir(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;

	ck_assert_ptr_nonnull(d);
	while ((e = readdir(d)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
			unlinkat(dirfd(d), e->d_name, 0);
	closedir(d);
	rmdir(dir);
}

static struct ops_session *session;
static struct ops_process_map maps[2];
static struct ops_stack_copy copies[2];
static char exe[4096], link_path[64];

/*
 * A session of two layouts: EXEC false, processes 1 and 2 of the
 * executable; EXEC true, process 1 before and after an exec of the same
 * file by another name (another image).  The second maps the text one
 * page lower.  copies[i] is a copy of layout i, leaf at one_body.
 */
static void make_session(bool exec)
{
	char dir[] = "/tmp/test_unwind_cfi.XXXXXX", err[256];
	struct ops_session_info info = { .event = "cpu-clock",
					 .frequency = 4000,
					 .clock = "CLOCK_MONOTONIC",
					 .callgraph_depth = 127,
					 .separate = OPS_SEPARATE_PROCESS };
	uint64_t ip = (uint64_t)(uintptr_t)unwind_cfi_one_body;
	struct ops_image img = { .kind = OPS_IMAGE_FILE, .path = exe };
	struct ops_writer *w;
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	uint32_t i;

	ck_assert_int_gt(n, 0);
	exe[n] = 0;
	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(link_path, sizeof(link_path), "%s.exe", dir);
	ck_assert_int_eq(symlink(exe, link_path), 0);
	ck_assert_int_eq(ops_writer_open(&w, dir, &info), 0);
	maps[0] = maps[1] = text_map();
	maps[1].start -= PAGE;
	ck_assert_int_eq(ops_writer_image(w, &img, &maps[0].image), 0);
	if (exec)
		img.path = link_path;
	ck_assert_int_eq(ops_writer_image(w, &img, &maps[1].image), 0);
	for (i = 0; i < 2; i++) {
		struct ops_frame leaf = { OPS_FRAME_IMAGE, maps[i].image,
					  ip - maps[i].start + maps[i].pgoff };
		struct ops_stack st = { .frames = &leaf, .nr_frames = 1 };
		struct ops_context ctx = { .cpu = -1 };

		maps[i].tgid = ctx.tgid = exec ? 1 : i + 1;
		maps[i].app = ctx.app = ctx.image = maps[i].image;
		copies[i] = (struct ops_stack_copy){ .ip = ip };
		ck_assert_int_eq(ops_writer_context(w, &ctx, &copies[i].ctx),
				 0);
		ck_assert_int_eq(ops_writer_stack(w, &st, &copies[i].stack), 0);
		ck_assert_int_eq(ops_writer_stack_add(w, copies[i].ctx,
						      copies[i].stack, 1),
				 0);
		ck_assert_int_eq(ops_writer_process_map(w, &maps[i]), 0);
		ck_assert_int_eq(ops_writer_stack_copy(w, &copies[i]), 0);
	}
	ck_assert_int_eq(ops_writer_close(w, 1), 0);
	ck_assert_int_eq(ops_session_open(&session, dir, NULL, NULL, err,
					  sizeof(err)),
			 0);
	remove_dir(dir);
}

static void drop_session(void)
{
	ops_session_close(session);
	unlink(link_path);
}

/* Copy I (words WORDS, SIZE bytes) unwound by U into FRAMES: their
 * number. */
static size_t unwind_in(struct unwind *u, int i, const uint64_t *words,
			uint32_t size, struct cg_raw_frame *frames)
{
	struct ops_frame leaf = { OPS_FRAME_IMAGE, maps[i].image,
				  copies[i].ip - maps[i].start +
					  maps[i].pgoff };
	struct ops_stack fp = { .frames = &leaf, .nr_frames = 1 };
	struct ops_stack_copy c = copies[i];
	enum unwind_root root;

	c.sp = c.bp = STACK_BASE;
	c.size = size;
	c.bytes = (const uint8_t *)words;
	return unwind_stack(u, &c, &fp, frames, OPS_STACK_MAX_FRAMES, &root);
}

/* The same copy unwound in either layout of a session (make_session):
 * each layout's own stack, its caller end's code. */
static void check_layouts(bool exec)
{
	static struct cg_raw_frame frames[OPS_STACK_MAX_FRAMES],
		fresh[OPS_STACK_MAX_FRAMES];
	static struct opreport_opts opts;
	uint64_t end = (uint64_t)(uintptr_t)unwind_cfi_end_body;
	uint64_t words[4];
	struct unwind *u, *u2;
	size_t n, nf;
	int i;

	make_session(exec);
	ck_assert_int_eq(unwind_new(&u, session, &opts), 0);
	ck_assert_ptr_nonnull(u);
	/* layout 0: one's return address at sp, end_body + 1; layout 1:
	 * two's at sp + 8, end_body + 1 one page lower, which is end's
	 * code there */
	words[0] = end + 1;
	words[1] = end + 1 - PAGE;
	words[2] = words[3] = 0;
	for (i = 0; i < 2; i++) {
		n = unwind_in(u, i, words, sizeof(words), frames);
		ck_assert_int_eq(unwind_new(&u2, session, &opts), 0);
		nf = unwind_in(u2, i, words, sizeof(words), fresh);
		unwind_free(u2);
		fprintf(stderr, "%s, layout %d: %zu frames, caller %#llx\n",
			exec ? "exec" : "two processes", i, n,
			n > 1 ? (unsigned long long)frames[1].addr : 0ull);
		ck_assert_uint_eq(n, 2);
		ck_assert_uint_eq(nf, n);
		ck_assert_mem_eq(frames, fresh, n * sizeof(*frames));
		/* end's code, as the file has it, in either layout */
		ck_assert_uint_eq(frames[1].image, maps[i].image);
		ck_assert_uint_eq(frames[1].addr,
				  end + 1 - maps[0].start + maps[0].pgoff);
	}
	unwind_free(u);
	drop_session();
}

START_TEST(two_processes_one_address)
{
	check_layouts(false);
}
END_TEST

START_TEST(an_exec_in_one_process)
{
	check_layouts(true);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("unwind_cfi");
	TCase *tc = tcase_create("layouts");

	tcase_add_test(tc, two_processes_one_address);
	tcase_add_test(tc, an_exec_in_one_process);
	suite_add_tcase(s, tc);
	return opjit_check_run(s);
}
