// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * Damaged sessions: the reader keeps everything before the damage and
 * says once, naming the file and the offset, what it found.
 */
#define _GNU_SOURCE
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <oputil/crc32c.h>

#include "bytes_internal.h"
#include "helpers.h"

#include "check_run.h"

static uint32_t proc_id, ctx_id;

static uint64_t sample_time(uint64_t i)
{
	return 1000000000ull + i * 250000 + (i * 7919) % 3000;
}

static uint64_t sample_addr(uint64_t i)
{
	return 0x7f0000000000ull + (i * 2654435761u) % (4u << 20);
}

static uint32_t sample_tid(uint64_t i)
{
	return 500 + (uint32_t)(i % 3);
}

/* A session left open (not compacted) after two flushes: the last block
 * of samples.hist is the counts of flush 2, the last block of
 * anon.samples the 50 samples of flush 2. */
static void write_two_flushes(void)
{
	struct ops_session_info info = info_example();
	struct ops_process p = { .tgid = 500, .comm = "java", .exe = "/j" };
	struct ops_image img = { .path = "/usr/bin/java" };
	struct ops_context c = { 0 };
	struct ops_writer *w;
	uint32_t img_id, i;

	ck_assert_int_eq(ops_writer_open(&w, sdir, &info), 0);
	ck_assert_int_eq(ops_writer_image(w, &img, &img_id), 0);
	c.app = c.image = img_id;
	ck_assert_int_eq(ops_writer_context(w, &c, &ctx_id), 0);
	ck_assert_int_eq(ops_writer_process(w, &p, &proc_id), 0);
	ck_assert_int_eq(ops_writer_hist_add(w, ctx_id, 0x100, 1), 0);
	ck_assert_int_eq(ops_writer_hist_add(w, ctx_id, 0x200, 2), 0);
	for (i = 0; i < 100; i++)
		ck_assert_int_eq(ops_writer_anon(w, proc_id, sample_time(i),
						 sample_addr(i),
						 sample_tid(i)),
				 0);
	ck_assert_int_eq(ops_writer_flush(w), 0);
	ck_assert_int_eq(ops_writer_hist_add(w, ctx_id, 0x100, 10), 0);
	ck_assert_int_eq(ops_writer_hist_add(w, ctx_id, 0x300, 30), 0);
	for (; i < 150; i++)
		ck_assert_int_eq(ops_writer_anon(w, proc_id, sample_time(i),
						 sample_addr(i),
						 sample_tid(i)),
				 0);
	ck_assert_int_eq(ops_writer_flush(w), 0);
	ops_writer_free(w);
}

static uint32_t le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

/* Offset of the last block of a container file, walking its frames. */
static size_t last_block(const uint8_t *buf, size_t len)
{
	size_t off = 16, last = 0;

	while (off + 16 <= len) {
		last = off;
		off += 16 + le32(buf + off + 8);
	}
	ck_assert_uint_eq(off, len);
	ck_assert_uint_gt(last, 0);
	return last;
}

static void check_first_flush_hist(struct ops_session *s)
{
	const struct ops_hist_entry *e = ops_session_hist(s, &(size_t){ 0 });
	size_t n;

	e = ops_session_hist(s, &n);
	ck_assert_uint_eq(n, 2);
	ck_assert_uint_eq(e[0].offset, 0x100);
	ck_assert_uint_eq(e[0].count, 1);
	ck_assert_uint_eq(e[1].offset, 0x200);
	ck_assert_uint_eq(e[1].count, 2);
	ck_assert_uint_eq(ops_session_nr_images(s), 1);
	ck_assert_uint_eq(ops_session_nr_contexts(s), 1);
}

static void check_anon_prefix(struct ops_session *s, size_t want)
{
	const struct ops_anon_sample *a;
	size_t n, i;

	ck_assert_uint_eq(ops_session_nr_processes(s), 1);
	/* counting stops where decoding stops */
	ck_assert_int_eq(ops_session_anon_count(s, proc_id, &n), 0);
	ck_assert_uint_eq(n, want);
	ck_assert_int_eq(ops_session_anon(s, proc_id, &a, &n), 0);
	ck_assert_uint_eq(n, want);
	for (i = 0; i < n; i++) {
		ck_assert_uint_eq(a[i].time_ns, sample_time(i));
		ck_assert_uint_eq(a[i].addr, sample_addr(i));
		ck_assert_uint_eq(a[i].tid, sample_tid(i));
	}
}

/* The version after this library's, and what a reader says of it. */
#define NEXT_VERSION "7"
_Static_assert(OPS_FORMAT_VERSION + 1 == 7,
	       "NEXT_VERSION is the version after OPS_FORMAT_VERSION");

/* The warning names the file, the offset and REASON. */
static void check_warning(const struct warns *w, const char *file, size_t off,
			  const char *reason)
{
	char *want;

	ck_assert_int_eq(w->n, 1);
	ck_assert_int_gt(asprintf(&want, "%s: offset %zu: ", file, off), 0);
	ck_assert_msg(!strncmp(w->last, want, strlen(want)),
		      "warning '%s' does not start with '%s'", w->last, want);
	if (reason)
		ck_assert_msg(strstr(w->last, reason),
			      "warning '%s' does not say '%s'", w->last,
			      reason);
	free(want);
}

START_TEST(test_torn_tail_hist)
{
	size_t len, last, cut;
	uint8_t *orig;

	write_two_flushes();
	orig = file_read(hist, &len);
	last = last_block(orig, len);
	for (cut = last; cut < len; cut++) {
		struct warns w = { 0 };
		struct ops_session *s;

		file_write(hist, orig, cut);
		s = session_must_open(sdir, &w);
		check_first_flush_hist(s);
		if (cut == last)
			ck_assert_int_eq(w.n, 0);
		else
			check_warning(&w, hist, last, "truncated");
		ops_session_close(s);
	}
	free(orig);
}
END_TEST

START_TEST(test_torn_tail_anon)
{
	size_t len, last, cut;
	uint8_t *orig;

	write_two_flushes();
	orig = file_read(anon, &len);
	last = last_block(orig, len);
	for (cut = last; cut < len; cut++) {
		struct warns w = { 0 };
		struct ops_session *s;

		file_write(anon, orig, cut);
		s = session_must_open(sdir, &w);
		check_anon_prefix(s, 100);
		if (cut == last)
			ck_assert_int_eq(w.n, 0);
		else
			check_warning(&w, anon, last, "truncated");
		ops_session_close(s);
	}
	free(orig);
}
END_TEST

/* A flipped bit anywhere in the last block's payload. */
START_TEST(test_bad_crc)
{
	const char *files[] = { hist, anon };
	size_t len, last, at;
	uint8_t *orig;
	int f;

	write_two_flushes();
	for (f = 0; f < 2; f++) {
		orig = file_read(files[f], &len);
		last = last_block(orig, len);
		for (at = last + 16; at < len; at++) {
			struct warns w = { 0 };
			struct ops_session *s;

			orig[at] ^= 0x10;
			file_write(files[f], orig, len);
			orig[at] ^= 0x10;
			s = session_must_open(sdir, &w);
			if (f == 0)
				check_first_flush_hist(s);
			else
				check_anon_prefix(s, 100);
			check_warning(&w, files[f], last, "bad checksum");
			ops_session_close(s);
		}
		file_write(files[f], orig, len);
		free(orig);
	}
}
END_TEST

/* Damage in a block header: magic, and a length no writer makes. */
START_TEST(test_bad_block_header)
{
	struct warns w = { 0 };
	struct ops_session *s;
	size_t len, last;
	uint8_t *orig;

	write_two_flushes();
	orig = file_read(anon, &len);
	last = last_block(orig, len);
	orig[last] ^= 1;
	file_write(anon, orig, len);
	s = session_must_open(sdir, &w);
	check_anon_prefix(s, 100);
	check_warning(&w, anon, last, "bad block magic");
	ops_session_close(s);

	orig[last] ^= 1;
	memset(orig + last + 8, 0xff, 4);
	file_write(anon, orig, len);
	w.n = 0;
	s = session_must_open(sdir, &w);
	check_anon_prefix(s, 100);
	check_warning(&w, anon, last, "impossible block length");
	ops_session_close(s);
	free(orig);
}
END_TEST

/* A corrupt file header loses that file only, with one line. */
START_TEST(test_corrupt_file_header)
{
	const char *files[] = { hist, anon };
	struct ops_session *s;
	size_t len;
	uint8_t *orig;
	int f;

	write_two_flushes();
	for (f = 0; f < 2; f++) {
		struct warns w = { 0 };

		orig = file_read(files[f], &len);
		orig[2] ^= 0xff;
		file_write(files[f], orig, len);
		s = session_must_open(sdir, &w);
		check_warning(&w, files[f], 0, "bad magic");
		if (f == 0) {
			ck_assert_uint_eq(ops_session_nr_images(s), 0);
			check_anon_prefix(s, 150);
		} else {
			ck_assert_uint_eq(ops_session_nr_images(s), 1);
			ck_assert_uint_eq(ops_session_nr_processes(s), 0);
		}
		ops_session_close(s);
		/* shorter than a file header */
		file_write(files[f], orig, 9);
		w.n = 0;
		s = session_must_open(sdir, &w);
		check_warning(&w, files[f], 9, "truncated file header");
		ops_session_close(s);
		orig[2] ^= 0xff;
		file_write(files[f], orig, len);
		free(orig);
	}
}
END_TEST

START_TEST(test_unknown_version)
{
	const char *files[] = { hist, anon };
	struct ops_session *s;
	size_t len;
	uint8_t *orig;
	int f;

	write_two_flushes();
	for (f = 0; f < 2; f++) {
		struct warns w = { 0 };

		orig = file_read(files[f], &len);
		orig[8] = OPS_FORMAT_VERSION + 1;
		file_write(files[f], orig, len);
		s = session_must_open(sdir, &w);
		check_warning(&w, files[f], 8,
			      "unknown version " NEXT_VERSION);
		ops_session_close(s);
		orig[8] = 1;
		file_write(files[f], orig, len);
		free(orig);
	}
}
END_TEST

/* A missing data file is one warning; the rest of the session reads. */
START_TEST(test_missing_data_file)
{
	struct warns w = { 0 };
	struct ops_session *s;

	write_two_flushes();
	ck_assert_int_eq(unlink(hist), 0);
	s = session_must_open(sdir, &w);
	ck_assert_int_eq(w.n, 1);
	ck_assert_ptr_nonnull(strstr(w.last, hist));
	ck_assert_uint_eq(ops_session_nr_images(s), 0);
	check_anon_prefix(s, 150);
	ops_session_close(s);
}
END_TEST

static void expect_open_error(const char *dir, const char *part1,
			      const char *part2)
{
	struct ops_session *s = (struct ops_session *)1;
	struct warns w = { 0 };
	char err[1024] = "";

	ck_assert_int_lt(ops_session_open(&s, dir, warns_collect, &w, err,
					  sizeof(err)),
			 0);
	ck_assert_ptr_null(s);
	ck_assert_msg(strstr(err, part1) && strstr(err, part2),
		      "error '%s' lacks '%s' or '%s'", err, part1, part2);
	ck_assert_ptr_null(strchr(err, '\n'));
}

START_TEST(test_meta_damage)
{
	const char *unknown_key = "opjit-session 1\nevent cpu-clock\n"
				  "future_key whatever \\q\n";
	struct warns w = { 0 };
	struct ops_session *s;
	char *missing = tmp_path(tmp, "nowhere");

	write_two_flushes();
	file_write(meta, "opjit-session " NEXT_VERSION "\nevent x\n", 24);
	expect_open_error(sdir, meta, "unknown version " NEXT_VERSION);
	file_write(meta, "PK\3\4garbage", 11);
	expect_open_error(sdir, meta, "not an opjit session");
	file_write(meta, "opjit-session 1\nsamples 12x\n", 28);
	expect_open_error(sdir, meta, "line 2: bad value for samples");
	file_write(meta, "opjit-session 1\nhost a\\", 23);
	expect_open_error(sdir, meta, "line 2: bad value for host");
	file_write(meta, "opjit-session 1\nstart_ns 18446744073709551616\n",
		   46);
	expect_open_error(sdir, meta, "bad value for start_ns");
	file_write(meta, "", 0);
	expect_open_error(sdir, meta, "empty");
	file_write(meta, "opjit-session 1\n\0", 17);
	expect_open_error(sdir, meta, "NUL");
	/* cut short, or without the one key every count depends on */
	file_write(meta, "opjit-session 1\nevent ", 22);
	expect_open_error(sdir, meta,
			  "line 2: truncated (no newline at the end)");
	file_write(meta, "opjit-session 1\nevent \n", 23);
	expect_open_error(sdir, meta, "line 2: empty value for event");
	file_write(meta, "opjit-session 1\nhost h\n", 23);
	expect_open_error(sdir, meta, "no event line");
	/* keys a later version adds are skipped */
	file_write(meta, unknown_key, strlen(unknown_key));
	s = session_must_open(sdir, &w);
	ck_assert_str_eq(ops_session_info(s)->event, "cpu-clock");
	ck_assert_str_eq(ops_session_info(s)->host, "");
	ops_session_close(s);
	ck_assert_int_eq(unlink(meta), 0);
	expect_open_error(sdir, meta, "not an opjit session");
	expect_open_error(missing, missing, "No such file");
	expect_open_error(hist, hist, "Not a directory");
	free(missing);
}
END_TEST

#define KILL_ROUND_SAMPLES 3000
#define KILL_ROUND_CELLS 500

/* The child: write rounds forever, report each completed flush. */
static void killed_writer_child(int report)
{
	struct ops_session_info info = info_example();
	struct ops_process p = { .tgid = 500, .comm = "java", .exe = "/j" };
	struct ops_image img = { .path = "/usr/bin/java" };
	struct ops_context c = { 0 };
	struct ops_writer *w;
	uint32_t id, ctx, k, round;
	uint64_t i = 0;

	if (ops_writer_open(&w, sdir, &info) || ops_writer_image(w, &img, &id))
		_exit(2);
	c.app = c.image = id;
	if (ops_writer_context(w, &c, &ctx) || ops_writer_process(w, &p, &id))
		_exit(2);
	for (round = 0;; round++) {
		for (k = 0; k < KILL_ROUND_SAMPLES; k++, i++)
			if (ops_writer_anon(w, id, sample_time(i),
					    sample_addr(i), sample_tid(i)))
				_exit(3);
		for (k = 0; k < KILL_ROUND_CELLS; k++)
			if (ops_writer_hist_add(w, ctx, k * 4, round + 1))
				_exit(3);
		if (ops_writer_flush(w))
			_exit(4);
		if (write(report, &round, sizeof(round)) != sizeof(round))
			_exit(5);
	}
}

/* Kill a writer at several points; each time everything up to the last
 * completed flush reads back and the session opens without error. */
START_TEST(test_killed_writer)
{
	uint32_t stops[] = { 0, 3, 17 };
	size_t t;

	for (t = 0; t < sizeof(stops) / sizeof(stops[0]); t++) {
		const struct ops_hist_entry *e;
		const struct ops_anon_sample *a;
		uint64_t done, want, j;
		struct ops_session *s;
		struct warns w = { 0 };
		uint32_t round, last = 0;
		int fds[2], status;
		size_t n, i;
		pid_t pid;

		ck_assert_int_eq(pipe(fds), 0);
		pid = fork();
		ck_assert_int_ge(pid, 0);
		if (pid == 0) {
			close(fds[0]);
			killed_writer_child(fds[1]);
		}
		close(fds[1]);
		do
			ck_assert_int_eq(read(fds[0], &round, sizeof(round)),
					 sizeof(round));
		while (round < stops[t]);
		ck_assert_int_eq(kill(pid, SIGKILL), 0);
		ck_assert_int_eq(waitpid(pid, &status, 0), pid);
		ck_assert(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
		last = round;
		while (read(fds[0], &round, sizeof(round)) == sizeof(round))
			last = round;
		close(fds[0]);

		s = session_must_open(sdir, &w);
		ck_assert_int_le(w.n, 2);
		done = (uint64_t)(last + 1);
		ck_assert_int_eq(ops_session_anon(s, 0, &a, &n), 0);
		ck_assert_uint_ge(n, done * KILL_ROUND_SAMPLES);
		for (i = 0; i < n; i++) {
			ck_assert_uint_eq(a[i].time_ns, sample_time(i));
			ck_assert_uint_eq(a[i].addr, sample_addr(i));
			ck_assert_uint_eq(a[i].tid, sample_tid(i));
		}
		/* round r adds r + 1 to each cell */
		want = done * (done + 1) / 2;
		e = ops_session_hist(s, &n);
		ck_assert_uint_eq(n, KILL_ROUND_CELLS);
		for (j = 0; j < n; j++) {
			ck_assert_uint_eq(e[j].offset, j * 4);
			ck_assert_uint_ge(e[j].count, want);
		}
		ops_session_close(s);
		session_teardown();
		session_setup();
	}
}
END_TEST

/* A write that fails (here: past RLIMIT_FSIZE, like a full disk) is one
 * error naming the file, and leaves the file whole: the reader sees no
 * damage and everything flushed before it. */
START_TEST(test_write_failure)
{
	const struct ops_anon_sample *a;
	struct ops_session *s;
	struct warns w = { 0 };
	uint64_t flushed = 0;
	int fds[2], status;
	size_t n, i;
	pid_t pid;

	ck_assert_int_eq(pipe(fds), 0);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		struct ops_session_info info = info_example();
		struct rlimit rl = { 200000, 200000 };
		struct ops_process p = { .tgid = 500, .comm = "java" };
		struct ops_writer *wr;
		uint64_t k = 0;
		uint32_t id;
		int ret = 0;

		close(fds[0]);
		signal(SIGXFSZ, SIG_IGN);
		if (setrlimit(RLIMIT_FSIZE, &rl) ||
		    ops_writer_open(&wr, sdir, &info) ||
		    ops_writer_process(wr, &p, &id))
			_exit(2);
		while (!ret) {
			ret = ops_writer_anon(wr, id, sample_time(k),
					      sample_addr(k), sample_tid(k));
			k++;
			if (!ret && k % 1000 == 0) {
				ret = ops_writer_flush(wr);
				if (!ret)
					flushed = k;
			}
		}
		/* the error names the file and the reason */
		if (!strstr(ops_writer_error(wr), "anon.samples") ||
		    !strstr(ops_writer_error(wr), strerror(EFBIG)))
			_exit(3);
		if (write(fds[1], &flushed, sizeof(flushed)) !=
		    sizeof(flushed))
			_exit(4);
		ops_writer_free(wr);
		_exit(0);
	}
	close(fds[1]);
	ck_assert_int_eq(read(fds[0], &flushed, sizeof(flushed)),
			 sizeof(flushed));
	close(fds[0]);
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	ck_assert_uint_gt(flushed, 0);

	s = session_must_open(sdir, &w);
	ck_assert_int_eq(w.n, 0);
	ck_assert_int_eq(ops_session_anon(s, 0, &a, &n), 0);
	ck_assert_uint_ge(n, flushed);
	for (i = 0; i < n; i++) {
		ck_assert_uint_eq(a[i].time_ns, sample_time(i));
		ck_assert_uint_eq(a[i].addr, sample_addr(i));
		ck_assert_uint_eq(a[i].tid, sample_tid(i));
	}
	ops_session_close(s);
}
END_TEST

static void put_le32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
	p[2] = (uint8_t)(v >> 16);
	p[3] = (uint8_t)(v >> 24);
}

/* Rewrite FILE with its last block's payload replaced by PAYLOAD, with
 * a correct length and checksum: damage only the parser can see. */
static void replace_last_payload(const char *file, const uint8_t *payload,
				 size_t plen)
{
	size_t len, last;
	uint8_t *buf = file_read(file, &len), *out;

	last = last_block(buf, len);
	out = malloc(last + 16 + plen);
	ck_assert_ptr_nonnull(out);
	memcpy(out, buf, last + 16);
	memcpy(out + last + 16, payload, plen);
	put_le32(out + last + 8, (uint32_t)plen);
	put_le32(out + last + 12, oputil_crc32c(0, payload, plen));
	file_write(file, out, last + 16 + plen);
	free(out);
	free(buf);
}

/* A sample block with a good checksum but a record that does not
 * decode: found when the process is decoded, one warning, the samples
 * before the bad record kept. */
START_TEST(test_bad_sample_record)
{
	size_t len, last, plen;
	struct warns w = { 0 };
	struct ops_session *s;
	uint8_t *buf, *pl;

	write_two_flushes();
	buf = file_read(anon, &len);
	last = last_block(buf, len);
	plen = len - last - 16;
	pl = malloc(plen + 1);
	ck_assert_ptr_nonnull(pl);
	memcpy(pl, buf + last + 16, plen);
	/* one byte past the last record */
	pl[plen] = 0;
	replace_last_payload(anon, pl, plen + 1);
	s = session_must_open(sdir, &w);
	ck_assert_int_eq(w.n, 0);
	check_anon_prefix(s, 150);
	check_warning(&w, anon, last, "trailing bytes");
	ops_session_close(s);

	/* the count promises more records than there are */
	file_write(anon, buf, len);
	memcpy(pl, buf + last + 16, plen);
	ck_assert_uint_eq(pl[1], 50);
	pl[1] = 52;
	replace_last_payload(anon, pl, plen);
	w.n = 0;
	s = session_must_open(sdir, &w);
	check_anon_prefix(s, 150);
	check_warning(&w, anon, last, "bad sample record");
	ops_session_close(s);
	free(pl);
	free(buf);
}
END_TEST

/* A counts block naming a context that was never defined is dropped
 * whole, with one warning. */
START_TEST(test_bad_count_record)
{
	/* n = 1, ctx 5, offset 0x10, count 1 */
	const uint8_t bad[] = { 1, 5, 0x10, 1 };
	size_t len, last;
	struct warns w = { 0 };
	struct ops_session *s;
	uint8_t *buf;

	write_two_flushes();
	buf = file_read(hist, &len);
	last = last_block(buf, len);
	replace_last_payload(hist, bad, sizeof(bad));
	s = session_must_open(sdir, &w);
	check_first_flush_hist(s);
	check_warning(&w, hist, last, "unknown context");
	ops_session_close(s);
	free(buf);
}
END_TEST

/* A TOTALS block that does not decode: one warning, the counts before it
 * kept, and the totals those of session.meta. */
START_TEST(test_bad_totals_record)
{
	struct ops_session_info info = info_example();
	struct ops_session_info t = { .samples = 9, .processes = 1 };
	struct ops_image img = { .path = "/usr/bin/java" };
	struct ops_context c = { 0 };
	const uint8_t bad[] = { 9, 0, 0 }; /* three counts of six */
	struct warns w = { 0 };
	struct ops_session *s;
	struct ops_writer *wr;
	size_t len, last;
	uint8_t *buf;

	ck_assert_int_eq(ops_writer_open(&wr, sdir, &info), 0);
	ck_assert_int_eq(ops_writer_image(wr, &img, &c.image), 0);
	c.app = c.image;
	ck_assert_int_eq(ops_writer_context(wr, &c, &ctx_id), 0);
	ck_assert_int_eq(ops_writer_hist_add(wr, ctx_id, 0x100, 1), 0);
	ck_assert_int_eq(ops_writer_hist_add(wr, ctx_id, 0x200, 2), 0);
	ops_writer_set_totals(wr, &t);
	ck_assert_int_eq(ops_writer_flush(wr), 0);
	ops_writer_free(wr);

	s = session_must_open(sdir, &w);
	ck_assert_uint_eq(ops_session_info(s)->samples, 9);
	ops_session_close(s);

	buf = file_read(hist, &len);
	last = last_block(buf, len);
	ck_assert_uint_eq(le32(buf + last + 4) & 0xffff, 6); /* TOTALS */
	free(buf);
	replace_last_payload(hist, bad, sizeof(bad));
	s = session_must_open(sdir, &w);
	check_first_flush_hist(s);
	check_warning(&w, hist, last, "bad totals record");
	ck_assert_uint_eq(ops_session_info(s)->samples, 0);
	ops_session_close(s);
}
END_TEST

/* The reference a varint is read against: the plain loop, as FORMAT.md
 * describes the encoding (seven bits a byte, low first, at most ten
 * bytes, the tenth carrying only the top bit).  The number of bytes
 * taken in *TAKEN, or 0 when damage. */
static uint64_t varint_ref(const uint8_t *p, size_t len, size_t *taken)
{
	uint64_t v = 0;
	size_t i;

	*taken = 0;
	for (i = 0; i < len && i < 10; i++) {
		if (i == 9 && p[i] > 1)
			return 0;
		v |= (uint64_t)(p[i] & 0x7f) << (7 * i);
		if (!(p[i] & 0x80)) {
			*taken = i + 1;
			return v;
		}
	}
	return 0;
}

/* The reader's varints (inline for one and two bytes, a loop beyond)
 * give the reference's value and length, at the end of a buffer too,
 * and fail on a varint cut short or longer than ten bytes. */
START_TEST(test_varint_decoding)
{
	static const struct {
		uint8_t b[12];
		size_t len;
	} cases[] = {
		{ { 0x00 }, 1 },
		{ { 0x7f }, 1 },
		{ { 0x05, 0x80 }, 2 },
		{ { 0x80, 0x01 }, 2 },
		{ { 0xff, 0x7f }, 2 },
		{ { 0x80, 0x00 }, 2 }, /* not the shortest form: read as 0 */
		{ { 0xff, 0x7f, 0x33 }, 3 },
		{ { 0x80, 0x80, 0x01 }, 3 },
		{ { 0xd2, 0xfe, 0x7f }, 3 },
		{ { 0xf8, 0xac, 0xd1, 0x91, 0xa1, 0xff, 0x0f }, 7 },
		{ { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
		    0x01 },
		  10 },
		{ { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01,
		    0x00, 0x00 },
		  12 },
		/* damage: cut short, a tenth byte with more than the top
		 * bit, an eleventh byte */
		{ { 0x80 }, 1 },
		{ { 0x80, 0x80 }, 2 },
		{ { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff }, 7 },
		{ { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
		    0x02 },
		  10 },
		{ { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x81,
		    0x00 },
		  11 },
	};
	size_t i, taken;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		uint64_t want = varint_ref(cases[i].b, cases[i].len, &taken);
		struct ops_cur c;
		uint64_t got;

		ops_cur_init(&c, cases[i].b, cases[i].len);
		got = ops_cur_varint(&c);
		ck_assert_msg(c.ok == (taken != 0), "case %zu: ok %d", i,
			      c.ok);
		if (!taken) {
			ck_assert_uint_eq(got, 0);
			/* failed once, failed for good */
			ops_cur_init(&c, cases[i].b, cases[i].len);
			c.ok = false;
			ck_assert_uint_eq(ops_cur_varint(&c), 0);
			ck_assert_ptr_eq(c.p, cases[i].b);
			continue;
		}
		ck_assert_msg(got == want, "case %zu: %#llx, not %#llx", i,
			      (unsigned long long)got,
			      (unsigned long long)want);
		ck_assert_uint_eq((size_t)(c.p - cases[i].b), taken);
	}
}
END_TEST

static Suite *damage_suite(void)
{
	Suite *s = suite_create("samples_damage");
	const struct check_case cases[] = {
		{ "torn_tail_hist", test_torn_tail_hist },
		{ "torn_tail_anon", test_torn_tail_anon },
		{ "bad_crc", test_bad_crc },
		{ "bad_block_header", test_bad_block_header },
		{ "bad_sample_record", test_bad_sample_record },
		{ "bad_count_record", test_bad_count_record },
		{ "bad_totals_record", test_bad_totals_record },
		{ "corrupt_file_header", test_corrupt_file_header },
		{ "unknown_version", test_unknown_version },
		{ "missing_data_file", test_missing_data_file },
		{ "meta_damage", test_meta_damage },
		{ "killed_writer", test_killed_writer },
		{ "write_failure", test_write_failure },
		{ "varint_decoding", test_varint_decoding },
	};
	SUITE_ADD_CASES(s, cases, session_setup, session_teardown, 0);
	return s;
}

int main(void)
{
	return opjit_check_run(damage_suite());
}
