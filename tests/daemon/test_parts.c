// SPDX-License-Identifier: GPL-3.0-or-later
/* The recorder's smaller parts: held samples, the image cache, process
 * ranges, record times, build-ids and /proc/PID/stat. */
#include <check.h>
#include <unistd.h>
#include <elf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buildid.h"
#include "imgcache.h"
#include "pending.h"
#include "procinfo.h"
#include "proctab.h"
#include "record.h"

#include "check_run.h"

START_TEST(test_pending_fifo_and_eviction)
{
	struct pending p;
	struct pending_sample s = { 0 }, out, ev;

	ck_assert_int_eq(pending_init(&p, 4), 0);
	ck_assert(!pending_pop(&p, &out));
	for (int i = 0; i < 4; i++) {
		s.ip = (uint64_t)i;
		ck_assert(!pending_push(&p, &s, &ev));
	}
	/* full: the oldest goes, never silently */
	s.ip = 4;
	ck_assert(pending_push(&p, &s, &ev));
	ck_assert_uint_eq(ev.ip, 0);
	for (uint64_t i = 1; i <= 4; i++) {
		ck_assert(pending_pop(&p, &out));
		ck_assert_uint_eq(out.ip, i);
	}
	ck_assert(!pending_pop(&p, &out));
	pending_free(&p);
}
END_TEST

START_TEST(test_imgcache)
{
	struct imgcache c;
	struct imgcache_key a = { .path = "/usr/bin/a", .dev = 1, .ino = 2 };
	struct imgcache_key b = { .path = "/usr/bin/a", .dev = 1, .ino = 3 };
	struct imgcache_key bid = { .path = "/usr/bin/a",
				    .build_id = { 1, 2, 3 },
				    .build_id_size = 3 };
	char name[32];
	uint32_t id;

	ck_assert_int_eq(imgcache_init(&c), 0);
	ck_assert_int_eq(imgcache_get(&c, &a, &id), -2);
	ck_assert_int_eq(imgcache_put(&c, &a, 7), 0);
	ck_assert_int_eq(imgcache_put(&c, &bid, 9), 0);
	ck_assert_int_eq(imgcache_get(&c, &a, &id), 0);
	ck_assert_uint_eq(id, 7);
	/* a file replaced under the same name is another image */
	ck_assert_int_eq(imgcache_get(&c, &b, &id), -2);
	ck_assert_int_eq(imgcache_get(&c, &bid, &id), 0);
	ck_assert_uint_eq(id, 9);
	/* growth keeps every entry */
	for (uint32_t i = 0; i < 5000; i++) {
		struct imgcache_key k = { .path = name, .ino = i };

		snprintf(name, sizeof(name), "/lib/%u.so", i);
		ck_assert_int_eq(imgcache_put(&c, &k, 100 + i), 0);
	}
	for (uint32_t i = 0; i < 5000; i += 7) {
		struct imgcache_key k = { .path = name, .ino = i };

		snprintf(name, sizeof(name), "/lib/%u.so", i);
		ck_assert_int_eq(imgcache_get(&c, &k, &id), 0);
		ck_assert_uint_eq(id, 100 + i);
	}
	imgcache_free(&c);
}
END_TEST

START_TEST(test_proctab_and_ranges)
{
	struct proctab t;
	struct proc *p, *q;

	ck_assert_int_eq(proctab_init(&t), 0);
	p = proctab_add(&t, 42);
	ck_assert_ptr_nonnull(p);
	ck_assert_uint_eq(p->proc_id, PROC_NO_ID);
	ck_assert_ptr_eq(proctab_get(&t, 42), p);
	ck_assert_ptr_null(proctab_get(&t, 42 + 4096));
	q = proctab_add(&t, 42 + 4096); /* same bucket */
	ck_assert_ptr_eq(proctab_get(&t, 42 + 4096), q);
	ck_assert_int_eq(proc_add_range(p, 0x1000, 0x2000), 0);
	ck_assert_int_eq(proc_add_range(p, 0x1000, 0x2000), 0);
	ck_assert_int_eq(proc_add_range(p, 0x5000, 0x6000), 0);
	ck_assert_uint_eq(p->ident.nr_ranges, 2);
	ck_assert_uint_eq(p->ident.ranges[1].start, 0x5000);
	ck_assert(p->dirty);
	/* the pid reused: a fresh process */
	ck_assert_ptr_eq(proctab_add(&t, 42), p);
	ck_assert_uint_eq(p->ident.nr_ranges, 0);
	ck_assert(!p->dirty);
	proctab_remove(&t, q);
	ck_assert_ptr_null(proctab_get(&t, 42 + 4096));
	ck_assert_ptr_eq(proctab_get(&t, 42), p);
	ck_assert_uint_eq(t.map.nr, 1);
	/* tgid 0 is a process like any other */
	q = proctab_add(&t, 0);
	ck_assert_ptr_nonnull(q);
	ck_assert_ptr_eq(proctab_get(&t, 0), q);
	for (uint32_t i = 1; i <= 3000; i++)
		ck_assert_ptr_nonnull(proctab_add(&t, 100000 + i));
	{
		size_t seen = 0;

		proctab_for_each(&t, i, x)
		{
			ck_assert_ptr_eq(proctab_get(&t, x->tgid), x);
			seen++;
		}
		ck_assert_uint_eq(seen, 3002);
	}
	ck_assert_ptr_eq(proctab_get(&t, 42), p);
	proctab_free(&t);
}
END_TEST

START_TEST(test_record_time)
{
	struct {
		struct record_task t;
		struct record_sample_id id;
	} fork_rec = { 0 };
	struct record_sample s = { 0 };

	s.h.type = PERF_RECORD_SAMPLE;
	s.h.size = sizeof(s);
	s.time = 123456789;
	ck_assert_uint_eq(record_time(&s.h), 123456789);
	fork_rec.t.h.type = PERF_RECORD_FORK;
	fork_rec.t.h.size = sizeof(fork_rec);
	fork_rec.t.time = 1;
	fork_rec.id.time = 987654321;
	/* the trailing sample_id carries the clock we merge by */
	ck_assert_uint_eq(record_time(&fork_rec.t.h), 987654321);
	s.h.size = 16;
	ck_assert_uint_eq(record_time(&s.h), 0);
}
END_TEST

/* A minimal ELF64 file: header, one PT_NOTE, a GNU build-id note. */
static size_t make_elf(unsigned char *buf, const uint8_t *id, size_t idlen)
{
	Elf64_Ehdr eh = { 0 };
	Elf64_Phdr ph = { 0 };
	Elf64_Nhdr nh = { .n_namesz = 4,
			  .n_descsz = (Elf64_Word)idlen,
			  .n_type = NT_GNU_BUILD_ID };
	size_t off = sizeof(eh) + sizeof(ph);

	memcpy(eh.e_ident, ELFMAG, SELFMAG);
	eh.e_ident[EI_CLASS] = ELFCLASS64;
	eh.e_phoff = sizeof(eh);
	eh.e_phentsize = sizeof(ph);
	eh.e_phnum = 1;
	ph.p_type = PT_NOTE;
	ph.p_offset = off;
	ph.p_filesz = sizeof(nh) + 4 + ((idlen + 3) & ~3u);
	memcpy(buf, &eh, sizeof(eh));
	memcpy(buf + sizeof(eh), &ph, sizeof(ph));
	memcpy(buf + off, &nh, sizeof(nh));
	memcpy(buf + off + sizeof(nh), "GNU", 4);
	memcpy(buf + off + sizeof(nh) + 4, id, idlen);
	return off + ph.p_filesz;
}

START_TEST(test_buildid)
{
	static const uint8_t id[20] = { 0xde, 0xad, 0xbe, 0xef, 1,  2, 3,
					4,    5,    6,	  7,	8,  9, 10,
					11,   12,   13,	  14,	15, 16 };
	unsigned char buf[512] = { 0 };
	uint8_t got[BUILDID_MAX], n = 0;
	size_t len = make_elf(buf, id, sizeof(id));

	ck_assert_int_eq(buildid_parse(buf, len, got, &n), 0);
	ck_assert_uint_eq(n, 20);
	ck_assert_mem_eq(got, id, 20);
	/* cut short: no build-id, no overread */
	ck_assert_int_eq(buildid_parse(buf, len - 4, got, &n), -2);
	ck_assert_int_eq(buildid_parse(buf, 10, got, &n), -22);
	buf[0] = 0;
	ck_assert_int_eq(buildid_parse(buf, len, got, &n), -22);
}
END_TEST

START_TEST(test_proc_stat_starttime)
{
	/* a comm with spaces and parentheses must not shift the fields */
	const char *stat = "4242 (a) b (c)) S 1 4242 4242 0 -1 4194560 "
			   "100 0 0 0 5 3 0 0 20 0 1 0 987654 1000 10";
	uint64_t ticks = 0, mono;
	int64_t unix_ns;

	ck_assert_int_eq(procinfo_parse_starttime(stat, &ticks), 0);
	ck_assert_uint_eq(ticks, 987654);
	ck_assert_int_eq(procinfo_parse_starttime("4242 (x) S 1 2", &ticks),
			 -22);
	ck_assert_int_eq(procinfo_parse_starttime("no paren", &ticks), -22);
	/* 150 ticks at 100 Hz = 1.5 s after boot; 0.5 s spent suspended */
	procinfo_convert_start(150, 100, 10000000000ull, 9500000000ull,
			       1700000000000000000ll, &mono, &unix_ns);
	ck_assert_uint_eq(mono, 1000000000ull);
	ck_assert_int_eq(unix_ns, 1700000000000000000ll - 8500000000ll);
}
END_TEST

START_TEST(test_proc_stat_kthread)
{
	/* kthreadd: flags 0x208040 has PF_KTHREAD; a shell's 0x400000 not */
	ck_assert(procinfo_parse_kthread(
		"2 (kthreadd) S 0 0 0 0 -1 2129984 0 0 0 0 0 0 0 0 20 0 1"));
	ck_assert(!procinfo_parse_kthread(
		"77 (b (a) sh) S 1 77 77 0 -1 4194560 0 0 0 0 0 0 0 0 20"));
	ck_assert(!procinfo_parse_kthread("2 (x) S 0 0"));
	ck_assert(procinfo_is_kthread(2));
	ck_assert(!procinfo_is_kthread(getpid()));
}
END_TEST

static Suite *parts_suite(void)
{
	Suite *s = suite_create("recorder parts");
	TCase *tc = tcase_create("pending");
	TCase *tables = tcase_create("tables");
	TCase *parse = tcase_create("parsers");

	tcase_add_test(tc, test_pending_fifo_and_eviction);
	tcase_add_test(tables, test_imgcache);
	tcase_add_test(tables, test_proctab_and_ranges);
	tcase_add_test(parse, test_record_time);
	tcase_add_test(parse, test_buildid);
	tcase_add_test(parse, test_proc_stat_starttime);
	tcase_add_test(parse, test_proc_stat_kthread);
	suite_add_tcase(s, tc);
	suite_add_tcase(s, tables);
	suite_add_tcase(s, parse);
	return s;
}

int main(void)
{
	return opjit_check_run(parts_suite());
}
