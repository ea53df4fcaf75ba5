// SPDX-License-Identifier: GPL-3.0-or-later
/* Merging the CPUs' rings: every record once, oldest first, whole. */
#include <check.h>
#include <stdlib.h>

#include "fake_ring.h"
#include "ring.h"

#include "check_run.h"

#define MAX_SEEN 100000

struct seen {
	size_t n;
	uint64_t time[MAX_SEEN];
	uint64_t ip[MAX_SEEN];
	uint16_t type[MAX_SEEN];
};

static struct seen seen;

static void collect(void *arg, const struct perf_event_header *h)
{
	struct seen *s = arg;

	ck_assert_uint_lt(s->n, MAX_SEEN);
	s->time[s->n] = record_time(h);
	s->type[s->n] = h->type;
	s->ip[s->n] = h->type == PERF_RECORD_SAMPLE
			      ? ((const struct record_sample *)h)->ip
			      : 0;
	s->n++;
}

static void open_rings(struct ring *rings, size_t n, size_t pages)
{
	for (size_t i = 0; i < n; i++)
		ck_assert_int_eq(fake_ring_open(&rings[i], (int)i, pages), 0);
}

static void close_rings(struct ring *rings, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (rings[i].base)
			fake_ring_close(&rings[i]);
}

/* Records spread at random over 16 CPUs, each CPU's in its own order,
 * come out once each and oldest first across CPUs. */
START_TEST(merge_is_oldest_first)
{
	enum { NR = 16, PER_ROUND = 3000, ROUNDS = 3 };
	struct ring rings[NR];
	struct ring_merge m;
	uint64_t t = 1000, ip = 1;
	unsigned seed = 42;

	open_rings(rings, NR, 16);
	ck_assert_int_eq(ring_merge_init(&m, NR), 0);
	for (int round = 0; round < ROUNDS; round++) {
		memset(&seen, 0, sizeof(seen));
		for (int k = 0; k < PER_ROUND; k++) {
			int cpu = rand_r(&seed) % NR;

			t += (uint64_t)(rand_r(&seed) % 3); /* ties too */
			ck_assert_int_eq(fake_ring_sample(&rings[cpu], t,
							  (uint32_t)cpu, ip++),
					 0);
		}
		ring_merge_drain(&m, rings, NR, collect, &seen);
		ck_assert_uint_eq(seen.n, PER_ROUND);
		for (size_t i = 1; i < seen.n; i++)
			ck_assert_uint_le(seen.time[i - 1], seen.time[i]);
		/* written in time order, so tags come back ascending too
		 * except among equal times, which go in CPU order */
		for (size_t i = 1; i < seen.n; i++)
			if (seen.time[i - 1] != seen.time[i])
				ck_assert_uint_lt(seen.ip[i - 1], seen.ip[i]);
	}
	/* nothing is left: a second drain without new records is empty */
	memset(&seen, 0, sizeof(seen));
	ring_merge_drain(&m, rings, NR, collect, &seen);
	ck_assert_uint_eq(seen.n, 0);
	ring_merge_free(&m);
	close_rings(rings, NR);
}
END_TEST

/* Equal times come out in CPU order, whatever order they were written. */
START_TEST(equal_times_in_cpu_order)
{
	enum { NR = 5 };
	struct ring rings[NR];
	struct ring_merge m;

	open_rings(rings, NR, 1);
	ck_assert_int_eq(ring_merge_init(&m, NR), 0);
	memset(&seen, 0, sizeof(seen));
	for (int cpu = NR - 1; cpu >= 0; cpu--)
		fake_ring_sample(&rings[cpu], 77, (uint32_t)cpu, 100 + cpu);
	ring_merge_drain(&m, rings, NR, collect, &seen);
	ck_assert_uint_eq(seen.n, NR);
	for (size_t i = 0; i < NR; i++)
		ck_assert_uint_eq(seen.ip[i], 100 + i);
	ring_merge_free(&m);
	close_rings(rings, NR);
}
END_TEST

/* A record with no time (0) is handed over first, as the old scan did;
 * a ring that is not open is left alone. */
START_TEST(untimed_first_closed_skipped)
{
	enum { NR = 3 };
	struct ring rings[NR];
	struct ring_merge m;
	struct perf_event_header bare = { .type = PERF_RECORD_MAX + 1,
					  .size = sizeof(bare) };

	open_rings(rings, NR, 1);
	fake_ring_close(&rings[1]);
	memset(&rings[1], 0, sizeof(rings[1]));
	ck_assert_int_eq(ring_merge_init(&m, NR), 0);
	memset(&seen, 0, sizeof(seen));
	fake_ring_sample(&rings[0], 5, 0, 1);
	fake_ring_sample(&rings[2], 3, 2, 2);
	fake_ring_put(&rings[2], &bare, sizeof(bare));
	fake_ring_sample(&rings[2], 9, 2, 3);
	ring_merge_drain(&m, rings, NR, collect, &seen);
	ck_assert_uint_eq(seen.n, 4);
	ck_assert_uint_eq(seen.ip[0], 2); /* t=3 on CPU 2 */
	ck_assert_uint_eq(seen.type[1], PERF_RECORD_MAX + 1); /* t=0 */
	ck_assert_uint_eq(seen.ip[2], 1);		      /* t=5 */
	ck_assert_uint_eq(seen.ip[3], 3);		      /* t=9 */
	ring_merge_free(&m);
	close_rings(rings, NR);
}
END_TEST

/* The CPU of a record of runs_of_one_cpu, by its tag. */
static int run_cpu(uint64_t ip)
{
	return ip < 1000 ? 0 : ip < 2000 || ip == 5000 ? 2 : 1;
}

/* A CPU's run of records older than every other CPU's is read without
 * a sift each: the run ends at the first record that is not older, and
 * a tie with another CPU still goes in CPU order. */
START_TEST(runs_of_one_cpu)
{
	enum { NR = 3, RUN = 500 };
	struct ring rings[NR];
	struct ring_merge m;
	uint64_t t;

	open_rings(rings, NR, 16);
	ck_assert_int_eq(ring_merge_init(&m, NR), 0);
	memset(&seen, 0, sizeof(seen));
	/* CPU 2: a long run at 1 .. RUN, then one at 2 * RUN */
	for (t = 1; t <= RUN; t++)
		fake_ring_sample(&rings[2], t, 2, 1000 + t);
	fake_ring_sample(&rings[2], 2 * RUN, 2, 5000);
	/* CPU 1: a run at RUN .. 2 * RUN, tied with CPU 2 at both ends */
	for (t = RUN; t <= 2 * RUN; t++)
		fake_ring_sample(&rings[1], t, 1, 2000 + t);
	/* CPU 0: one record in the middle of CPU 2's run */
	fake_ring_sample(&rings[0], RUN / 2, 0, 7);
	ring_merge_drain(&m, rings, NR, collect, &seen);
	ck_assert_uint_eq(seen.n, (RUN + 1) * 2 + 1);
	for (size_t i = 1; i < seen.n; i++) {
		ck_assert_uint_le(seen.time[i - 1], seen.time[i]);
		if (seen.time[i - 1] == seen.time[i])
			ck_assert_int_lt(run_cpu(seen.ip[i - 1]),
					 run_cpu(seen.ip[i]));
	}
	/* CPU 0's record ties with CPU 2's at RUN / 2 and goes first */
	ck_assert_uint_eq(seen.ip[RUN / 2 - 2], 1000 + RUN / 2 - 1);
	ck_assert_uint_eq(seen.ip[RUN / 2 - 1], 7);
	ck_assert_uint_eq(seen.ip[RUN / 2], 1000 + RUN / 2);
	ck_assert_uint_eq(seen.ip[seen.n - 1], 5000);
	ring_merge_free(&m);
	close_rings(rings, NR);
}
END_TEST

/* Records that wrap around the end of a one-page ring come back whole,
 * round after round. */
START_TEST(wrapped_records_whole)
{
	enum { NR = 2, ROUNDS = 40, PER_ROUND = 37 };
	struct ring rings[NR];
	struct ring_merge m;
	uint64_t t = 1, ip = 1;

	open_rings(rings, NR, 1);
	ck_assert_int_eq(ring_merge_init(&m, NR), 0);
	for (int round = 0; round < ROUNDS; round++) {
		uint64_t first = ip;

		memset(&seen, 0, sizeof(seen));
		for (int k = 0; k < PER_ROUND; k++, t++, ip++)
			ck_assert_int_eq(fake_ring_sample(&rings[k % NR], t,
							  (uint32_t)(k % NR),
							  ip),
					 0);
		ring_merge_drain(&m, rings, NR, collect, &seen);
		ck_assert_uint_eq(seen.n, PER_ROUND);
		for (size_t i = 0; i < seen.n; i++)
			ck_assert_uint_eq(seen.ip[i], first + i);
	}
	ring_merge_free(&m);
	close_rings(rings, NR);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("ring");
	struct {
		const char *name;
		const TTest *test;
	} cases[] = {
		{ "oldest first", merge_is_oldest_first },
		{ "equal times", equal_times_in_cpu_order },
		{ "untimed and closed", untimed_first_closed_skipped },
		{ "wrapped records", wrapped_records_whole },
		{ "runs of one CPU", runs_of_one_cpu },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		TCase *tc = tcase_create(cases[i].name);

		tcase_add_test(tc, cases[i].test);
		suite_add_tcase(s, tc);
	}
	return opjit_check_run(s);
}
