// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * The unwinder (opreport/unwind.c) on bad stack copies: a loop its CFI
 * makes, return addresses that point nowhere, a copy cut short; and its
 * memo (unwind_memo.h), whose stacks are those a fresh unwinding gives.  The
 * session holds this test's own layout, and the leaf is loop_fn below,
 * whose CFI says that its return address is at rsp and its caller's
 * rsp is its own: a return address that is loop_fn again unwinds to
 * the very same frame forever.
 *
 * And the rules the unwinder keeps by pc (unwind_cfi.c) are a process
 * layout's own: the same address holds other code, with other rules, in
 * another process, or in the same process after an exec.  The layouts
 * tests map this executable twice, 4 KiB apart, so that the address of
 * one_body in the first is that of two_body, one page on, in the
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

#include "diag.h"
#include "opreport.h"
#include "unwind.h"

#include "check_run.h"

__asm__(".pushsection .text\n"
	".globl unwind_test_loop_fn\n"
	".type unwind_test_loop_fn, @function\n"
	"unwind_test_loop_fn:\n"
	".cfi_startproc\n"
	".cfi_def_cfa %rsp, 0\n"
	".cfi_offset %rip, 0\n"
	"nop\n"
	"unwind_test_loop_body:\n"
	"nop\n"
	"ret\n"
	".cfi_endproc\n"
	".size unwind_test_loop_fn, .-unwind_test_loop_fn\n"
	".popsection\n");
extern char unwind_test_loop_body[];

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

static struct ops_session *session;
static struct unwind *unwinder;
static struct ops_process_map exe_map;
static int warnings;

static void count_line(const char *line, void *ctx)
{
	(void)ctx;
	fprintf(stderr, "diag: %s\n", line);
	warnings++;
}

static void find_exe_map(uint64_t addr)
{
	char line[8192], perm[8];
	unsigned long long start, end, off;
	FILE *f = fopen("/proc/self/maps", "re");

	ck_assert_ptr_nonnull(f);
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%llx-%llx %7s %llx", &start, &end, perm,
			   &off) == 4 &&
		    start <= addr && addr < end) {
			exe_map = (struct ops_process_map){ .tgid = 1,
							    .start = start,
							    .len = end - start,
							    .pgoff = off };
			break;
		}
	fclose(f);
	ck_assert_uint_ne(exe_map.len, 0);
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

static void setup(void)
{
	static struct opreport_opts opts;
	char dir[] = "/tmp/test_unwind.XXXXXX", exe[4096], err[256];
	struct ops_session_info info = { .event = "cpu-clock",
					 .frequency = 4000,
					 .clock = "CLOCK_MONOTONIC",
					 .callgraph_depth = 127 };
	struct ops_frame leaf = { OPS_FRAME_IMAGE, 0, 0 };
	struct ops_stack st = { .frames = &leaf, .nr_frames = 1 };
	struct ops_context ctx = { .cpu = -1 };
	struct ops_stack_copy cp = { 0 };
	struct ops_image img = { .kind = OPS_IMAGE_FILE, .path = exe };
	struct ops_writer *w;
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);

	ck_assert_int_gt(n, 0);
	exe[n] = 0;
	find_exe_map((uint64_t)(uintptr_t)unwind_test_loop_body);
	ck_assert_ptr_nonnull(mkdtemp(dir));
	ck_assert_int_eq(ops_writer_open(&w, dir, &info), 0);
	ck_assert_int_eq(ops_writer_image(w, &img, &exe_map.image), 0);
	exe_map.app = ctx.app = ctx.image = leaf.image = exe_map.image;
	ck_assert_int_eq(ops_writer_context(w, &ctx, &cp.ctx), 0);
	ck_assert_int_eq(ops_writer_stack(w, &st, &cp.stack), 0);
	ck_assert_int_eq(ops_writer_stack_add(w, cp.ctx, cp.stack, 1), 0);
	ck_assert_int_eq(ops_writer_process_map(w, &exe_map), 0);
	ck_assert_int_eq(ops_writer_stack_copy(w, &cp), 0);
	ck_assert_int_eq(ops_writer_close(w, 1), 0);
	ck_assert_int_eq(ops_session_open(&session, dir, NULL, NULL, err,
					  sizeof(err)),
			 0);
	remove_dir(dir);
	ck_assert_int_eq(unwind_new(&unwinder, session, &opts), 0);
	ck_assert_ptr_nonnull(unwinder);
	warnings = 0;
	diag_set_sink(count_line, NULL);
}

static void teardown(void)
{
	diag_set_sink(NULL, NULL);
	unwind_free(unwinder);
	ops_session_close(session);
}

/* Copy of SIZE bytes WORDS, user leaf at loop_fn's body below KERNEL
 * kernel frames (at most 2), unwound by U: the number of frames. */
static size_t unwind_copy_by(struct unwind *u, uint32_t kernel,
			     const uint64_t *words, uint32_t size,
			     struct cg_raw_frame *frames,
			     enum unwind_root *root)
{
	uint64_t ip = (uint64_t)(uintptr_t)unwind_test_loop_body;
	struct ops_frame chain[3] = {
		{ OPS_FRAME_UNKNOWN, 0, 0xffffffff81000100ull },
		{ OPS_FRAME_UNKNOWN, 0, 0xffffffff81000200ull },
	};
	struct ops_stack fp = { .frames = chain + 2 - kernel,
				.nr_frames = kernel + 1,
				.nr_kernel = kernel };
	struct ops_stack_copy c = { .ip = ip,
				    .sp = STACK_BASE,
				    .bp = STACK_BASE,
				    .size = size,
				    .bytes = (const uint8_t *)words };

	chain[2] = (struct ops_frame){ OPS_FRAME_IMAGE, exe_map.image,
				       ip - exe_map.start + exe_map.pgoff };
	return unwind_stack(u, &c, &fp, frames, OPS_STACK_MAX_FRAMES, root);
}

/* Copy of SIZE bytes, every word WORD, user leaf at loop_fn's body
 * below KERNEL kernel frames (at most 2): the number of frames
 * unwound. */
static size_t unwind_words_in(uint32_t kernel, uint64_t word, uint32_t size,
			      struct cg_raw_frame *frames,
			      enum unwind_root *root)
{
	uint64_t *bytes = calloc(1, size + 8);
	size_t i, n;

	ck_assert_ptr_nonnull(bytes);
	for (i = 0; i < size / 8; i++)
		bytes[i] = word;
	n = unwind_copy_by(unwinder, kernel, bytes, size, frames, root);
	free(bytes);
	return n;
}

static size_t unwind_words(uint64_t word, uint32_t size,
			   struct cg_raw_frame *frames, enum unwind_root *root)
{
	return unwind_words_in(0, word, size, frames, root);
}

static struct cg_raw_frame frames[OPS_STACK_MAX_FRAMES];

/* The same frame forever: the frame limit ends it, the stack marked as
 * cut there. */
START_TEST(a_loop_stops_at_the_frame_limit)
{
	enum unwind_root root;
	size_t n = 0;
	int i;

	for (i = 0; i < 10; i++)
		n = unwind_words((uint64_t)(uintptr_t)unwind_test_loop_body,
				 256, frames, &root);
	fprintf(stderr, "a loop: %zu frames\n", n);
	ck_assert_uint_eq(n, UNWIND_MAX_FRAMES);
	ck_assert_int_eq(root, UNWIND_CUT_COPY);
	/* no image is at fault: its CFI was followed as written */
	ck_assert_int_eq(warnings, 0);
}
END_TEST

/* Return addresses in no mapping: the unwinding ends there, quietly
 * (no image is at fault), and the leaf stays. */
START_TEST(an_address_that_points_nowhere)
{
	enum unwind_root root;
	size_t n = unwind_words(0xdead0000ull, 256, frames, &root);

	ck_assert(n == 0 || n >= 2);
	if (n) {
		ck_assert_uint_eq(frames[0].image, exe_map.image);
		ck_assert_uint_eq(frames[1].image, CG_UNKNOWN);
		ck_assert_uint_eq(frames[1].addr, 0xdead0000ull);
	}
	ck_assert_int_eq(warnings, 0);
}
END_TEST

/* A copy shorter than the return address it should hold: nothing past
 * the leaf, so the frame-pointer stack stands, without a word. */
START_TEST(a_copy_cut_short)
{
	enum unwind_root root;

	ck_assert_uint_eq(unwind_words(0, 4, frames, &root), 0);
	ck_assert_uint_eq(unwind_words(0, 0, frames, &root), 0);
	ck_assert_int_eq(warnings, 0);
}
END_TEST

/* A sample taken in the kernel: its copy is the user stack at the
 * kernel's entry, unwound as a user sample's is, below its kernel
 * frames. */
START_TEST(a_sample_in_the_kernel)
{
	enum unwind_root root, root_k;
	size_t n, nk, i;

	n = unwind_words(0xdead0000ull, 256, frames, &root);
	ck_assert_uint_ge(n, 2);
	nk = unwind_words_in(2, 0xdead0000ull, 256, frames, &root_k);
	ck_assert_uint_eq(nk, n + 2);
	ck_assert_int_eq(root_k, root);
	ck_assert_uint_eq(frames[0].image, CG_UNKNOWN);
	ck_assert_uint_eq(frames[0].addr, 0xffffffff81000100ull);
	ck_assert_uint_eq(frames[1].addr, 0xffffffff81000200ull);
	ck_assert_uint_eq(frames[2].image, exe_map.image);
	ck_assert_uint_eq(frames[3].image, CG_UNKNOWN);
	ck_assert_uint_eq(frames[3].addr, 0xdead0000ull);
	/* the loop to the frame limit: the limit is the user part's */
	for (i = 0; i < 2; i++)
		nk = unwind_words_in(
			2, (uint64_t)(uintptr_t)unwind_test_loop_body, 256,
			frames, &root_k);
	ck_assert_uint_eq(nk, UNWIND_MAX_FRAMES + 2);
	ck_assert_int_eq(root_k, UNWIND_CUT_COPY);
	ck_assert_int_eq(warnings, 0);
}
END_TEST

/* Copy WORDS (SIZE bytes) unwound by the session's unwinder, whose
 * memo may know it, and by a new one, whose memo is empty: the same
 * frames and root.  Whether the first found it in its memo. */
static bool unwind_as_fresh(const uint64_t *words, uint32_t size, size_t *n)
{
	static struct cg_raw_frame fresh[OPS_STACK_MAX_FRAMES];
	static struct opreport_opts opts;
	enum unwind_root root, root_fresh;
	size_t hits, misses, hits2, misses2, nf;
	struct unwind *u;

	unwind_memo_counts(unwinder, &hits, &misses);
	*n = unwind_copy_by(unwinder, 0, words, size, frames, &root);
	unwind_memo_counts(unwinder, &hits2, &misses2);
	ck_assert_uint_eq(hits2 + misses2, hits + misses + 1);
	ck_assert_int_eq(unwind_new(&u, session, &opts), 0);
	ck_assert_ptr_nonnull(u);
	nf = unwind_copy_by(u, 0, words, size, fresh, &root_fresh);
	unwind_free(u);
	ck_assert_uint_eq(*n, nf);
	ck_assert_int_eq(root, root_fresh);
	ck_assert_mem_eq(frames, fresh, nf * sizeof(*fresh));
	return hits2 > hits;
}

/* A copy whose words at the addresses the unwinding read are those of
 * a copy unwound before is that copy's stack, without libdwfl; a word
 * changed where it read, or read outside the copy, is unwound again. */
START_TEST(a_copy_read_alike_is_remembered)
{
	uint64_t words[32];
	size_t i, n;

	for (i = 0; i < 32; i++)
		words[i] = 0xdead0000ull;
	ck_assert(!unwind_as_fresh(words, sizeof(words), &n));
	ck_assert_uint_ge(n, 2);
	ck_assert_uint_eq(frames[1].addr, 0xdead0000ull);
	/* loop_fn's return address is the word at sp, and past it
	 * libdwfl's frame-pointer fallback reads the two at bp (sp too):
	 * the words above them may change */
	words[16] = words[31] = 42;
	ck_assert(unwind_as_fresh(words, sizeof(words), &n));
	ck_assert_uint_eq(frames[1].addr, 0xdead0000ull);
	/* one byte of that word changed: unwound again, another stack */
	words[0] = 0xdead0001ull;
	ck_assert(!unwind_as_fresh(words, sizeof(words), &n));
	ck_assert_uint_ge(n, 2);
	ck_assert_uint_eq(frames[1].addr, 0xdead0001ull);
	/* both are remembered now */
	ck_assert(unwind_as_fresh(words, sizeof(words), &n));
	words[0] = 0xdead0000ull;
	ck_assert(unwind_as_fresh(words, sizeof(words), &n));
	ck_assert_uint_eq(frames[1].addr, 0xdead0000ull);
	/* the return address outside a shorter copy: a read that failed
	 * is part of what is remembered */
	ck_assert(!unwind_as_fresh(words, 4, &n));
	ck_assert_uint_eq(n, 0);
	ck_assert(unwind_as_fresh(words, 4, &n));
	ck_assert(unwind_as_fresh(words, sizeof(words), &n));
	ck_assert_uint_eq(frames[1].addr, 0xdead0000ull);
	/* the loop to the frame limit, remembered whole */
	for (i = 0; i < 32; i++)
		words[i] = (uint64_t)(uintptr_t)unwind_test_loop_body;
	ck_assert(!unwind_as_fresh(words, sizeof(words), &n));
	ck_assert_uint_eq(n, UNWIND_MAX_FRAMES);
	ck_assert(unwind_as_fresh(words, sizeof(words), &n));
	ck_assert_uint_eq(n, UNWIND_MAX_FRAMES);
	ck_assert_int_eq(warnings, 0);
}
END_TEST

static struct ops_session *layouts_session;
static struct ops_process_map maps[2];
static struct ops_stack_copy copies[2];
static char exe_path[4096], link_path[64];

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
	struct ops_image img = { .kind = OPS_IMAGE_FILE, .path = exe_path };
	struct ops_writer *w;
	ssize_t n = readlink("/proc/self/exe", exe_path, sizeof(exe_path) - 1);
	uint32_t i;

	ck_assert_int_gt(n, 0);
	exe_path[n] = 0;
	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(link_path, sizeof(link_path), "%s.exe", dir);
	ck_assert_int_eq(symlink(exe_path, link_path), 0);
	ck_assert_int_eq(ops_writer_open(&w, dir, &info), 0);
	find_exe_map((uint64_t)(uintptr_t)unwind_cfi_one_body);
	ck_assert_uint_le((uint64_t)(uintptr_t)unwind_cfi_end_body + 8,
			  exe_map.start + exe_map.len);
	maps[0] = maps[1] = exe_map;
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
		ck_assert_int_eq(ops_writer_stack(w, &st, &copies[i].stack),
				 0);
		ck_assert_int_eq(ops_writer_stack_add(w, copies[i].ctx,
						      copies[i].stack, 1),
				 0);
		ck_assert_int_eq(ops_writer_process_map(w, &maps[i]), 0);
		ck_assert_int_eq(ops_writer_stack_copy(w, &copies[i]), 0);
	}
	ck_assert_int_eq(ops_writer_close(w, 1), 0);
	ck_assert_int_eq(ops_session_open(&layouts_session, dir, NULL, NULL,
					  err, sizeof(err)),
			 0);
	remove_dir(dir);
}

static void drop_session(void)
{
	ops_session_close(layouts_session);
	unlink(link_path);
}

/* Copy I (words WORDS, SIZE bytes) unwound by U into OUT: the number
 * of frames. */
static size_t unwind_in(struct unwind *u, int i, const uint64_t *words,
			uint32_t size, struct cg_raw_frame *out)
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
	return unwind_stack(u, &c, &fp, out, OPS_STACK_MAX_FRAMES, &root);
}

/* The same copy unwound in either layout of a session (make_session):
 * each layout's own stack, its caller end's code. */
static void check_layouts(bool exec)
{
	static struct cg_raw_frame got[OPS_STACK_MAX_FRAMES],
		fresh[OPS_STACK_MAX_FRAMES];
	static struct opreport_opts opts;
	uint64_t end = (uint64_t)(uintptr_t)unwind_cfi_end_body;
	uint64_t words[4];
	struct unwind *u, *u2;
	size_t n, nf;
	int i;

	make_session(exec);
	ck_assert_int_eq(unwind_new(&u, layouts_session, &opts), 0);
	ck_assert_ptr_nonnull(u);
	/* layout 0: one's return address at sp, end_body + 1; layout 1:
	 * two's at sp + 8, end_body + 1 one page lower, which is end's
	 * code there */
	words[0] = end + 1;
	words[1] = end + 1 - PAGE;
	words[2] = words[3] = 0;
	for (i = 0; i < 2; i++) {
		n = unwind_in(u, i, words, sizeof(words), got);
		ck_assert_int_eq(unwind_new(&u2, layouts_session, &opts), 0);
		nf = unwind_in(u2, i, words, sizeof(words), fresh);
		unwind_free(u2);
		fprintf(stderr, "%s, layout %d: %zu frames, caller %#llx\n",
			exec ? "exec" : "two processes", i, n,
			n > 1 ? (unsigned long long)got[1].addr : 0ull);
		ck_assert_uint_eq(n, 2);
		ck_assert_uint_eq(nf, n);
		ck_assert_mem_eq(got, fresh, n * sizeof(*got));
		/* end's code, as the file has it, in either layout */
		ck_assert_uint_eq(got[1].image, maps[i].image);
		ck_assert_uint_eq(got[1].addr,
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
	Suite *s = suite_create("unwind");
	TCase *tc = tcase_create("bad copies");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, a_loop_stops_at_the_frame_limit);
	tcase_add_test(tc, an_address_that_points_nowhere);
	tcase_add_test(tc, a_copy_cut_short);
	tcase_add_test(tc, a_sample_in_the_kernel);
	tcase_add_test(tc, a_copy_read_alike_is_remembered);
	suite_add_tcase(s, tc);
	tc = tcase_create("layouts");
	tcase_add_test(tc, two_processes_one_address);
	tcase_add_test(tc, an_exec_in_one_process);
	suite_add_tcase(s, tc);
	return opjit_check_run(s);
}
