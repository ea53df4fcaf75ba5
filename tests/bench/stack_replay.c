// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * bench_stack_replay [--cold] [--deltas] [--chains] [--raw] SESSION OUT [ROUNDS]: the stack writer's own CPU
 * time on a recording's real stacks.  The anonymous-stack samples of
 * SESSION (a `-g` recording, node's say) are given again, in recording
 * order, to a writer of a new session in OUT, ROUNDS times (a new
 * session each), and the CPU time of the best round is printed with the
 * writer's node counters.  The same input every time, so that two
 * builds of the writer compare on one shared machine without a
 * workload's noise.  --deltas writes the stacks as deltas (version 6,
 * FORMAT.md STACK_DELTAS), else interned (version 4): the two sessions
 * of one SESSION must give the same reports.  --chains gives each stack
 * as a recorder does, a chain of addresses placed when the writer asks
 * (ops_writer_chain_of), each distinct frame its own address: the
 * session (version 6 chain records) must give the same reports as
 * without.  --raw is the estimate made before version 6 was written:
 * each chain kept as its addresses, with the thread's previous chain as
 * its delta base and nothing placed or defined; the time and bytes of
 * that encoding alone (no session is written), for the writer's part of
 * --deltas --chains (ops_writer_chain_of) to be weighed against.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <opjit/samples.h>
#include <oputil/grow.h>
#include <oputil/u64map.h>

#include "bytes_internal.h"

static double cpu_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* The samples to give: each one's stack (its frames copied, since the
 * session builds a stack in memory it reuses), process, time and
 * thread, read before any round so that no round times the reading. */
struct given {
	struct ops_stack st;
	uint64_t *addrs; /* --chains: the frames' addresses */
	uint32_t proc;
	uint32_t tid;
	uint64_t time_ns;
};

static struct given *given;
static size_t nr_given;

/* --cold: the caches emptied at every flush, as a live recorder finds
 * them after the two-second sleep its workload ran in */
static uint8_t *evict;
/* --deltas */
static bool deltas;
/* --raw: the frames' addresses as a recorder would see them (an image's
 * frame at its offset into a mapping of its own), a lane of the last
 * chain for each of 64 threads, and the encoding's buffer */
static bool raw;
struct raw_lane {
	uint32_t tid, nr;
	uint64_t addrs[OPS_STACK_MAX_FRAMES];
};
static struct raw_lane raw_lanes[64];
#define RAW_BLOCK (256u << 10)
static uint8_t *raw_out;
static size_t raw_len;
/* --chains: the distinct frames, address - 1 each */
static bool chains;
static struct ops_frame *distinct;
static size_t nr_distinct, cap_distinct;
static struct oputil_u64map distinct_ids;

/* The address standing for frame F: 0 when out of memory, or when two
 * frames would share one. */
static uint64_t frame_addr(const struct ops_frame *f)
{
	uint64_t key = f->addr ^ (uint64_t)f->kind << 62 ^
		       (uint64_t)f->image << 40,
		 v;

	if (!key)
		key = 1ull << 61;
	if (oputil_u64map_get(&distinct_ids, key, &v)) {
		const struct ops_frame *d = &distinct[v - 1];

		return d->kind == f->kind && d->image == f->image &&
				       d->addr == f->addr
			       ? v
			       : 0;
	}
	if (oputil_grow(&distinct, &cap_distinct, nr_distinct + 1,
			sizeof(*distinct)) ||
	    oputil_u64map_put(&distinct_ids, key, nr_distinct + 1, NULL) < 0)
		return 0;
	distinct[nr_distinct++] = *f;
	return nr_distinct;
}

/* The address frame F had in its process, as near as the session
 * says: an image's frames in a mapping of the image's own. */
static uint64_t raw_addr(const struct ops_frame *f)
{
	return f->kind == OPS_FRAME_IMAGE
		       ? 0x7f0000000000ull + ((uint64_t)f->image << 28) +
				 f->addr
		       : f->addr;
}

/* Chain G as its thread's lane, the part it shares with the lane's
 * last chain, then each new address from the root as the zigzag
 * difference from the one above it. */
static __attribute__((noinline)) void raw_encode(const struct given *g)
{
	struct raw_lane *l = &raw_lanes[g->tid & 63];
	uint32_t n = g->st.nr_frames, d = 0, most, i;
	uint8_t *p = raw_out + raw_len;
	uint64_t above;

	if (l->tid != g->tid) {
		l->tid = g->tid;
		l->nr = 0;
	}
	most = n < l->nr ? n : l->nr;
	while (d < most && l->addrs[d] == g->addrs[n - 1 - d])
		d++;
	p += ops_varint_encode(p, g->tid & 63);
	p += ops_varint_encode(p, d);
	p += ops_varint_encode(p, n - d);
	above = d ? l->addrs[d - 1] : 0;
	for (i = n - d; i-- > 0; d++) {
		int64_t delta = (int64_t)(g->addrs[i] - above);

		p += ops_varint_encode(p, (uint64_t)delta << 1 ^
						  (uint64_t)(delta >> 63));
		l->addrs[d] = above = g->addrs[i];
	}
	l->nr = n;
	raw_len = (size_t)(p - raw_out);
}

static void place(void *arg, uint64_t addr, bool kernel, struct ops_frame *f)
{
	(void)arg;
	(void)kernel;
	*f = distinct[addr - 1];
}
#define EVICT_BYTES (64u << 20)

/* Walk EVICT, which displaces the writer's tables from every cache
 * level; the CPU time it took, to leave out of the round's. */
static double evict_caches(void)
{
	double t0 = cpu_s();
	size_t i;

	for (i = 0; i < EVICT_BYTES; i += 64)
		evict[i]++;
	return cpu_s() - t0;
}

static int load(struct ops_session *s)
{
	size_t cap = 0, k, n;
	uint32_t p;

	for (p = 0; p < ops_session_nr_processes(s); p++) {
		const struct ops_anon_stack_sample *v;

		if (ops_session_anon_stacks(s, p, &v, &n))
			return -1;
		for (k = 0; k < n; k++) {
			const struct ops_stack *src =
				ops_session_stack(s, v[k].stack);
			struct ops_frame *f;
			struct given *g;

			if (!src)
				continue;
			if (oputil_grow(&given, &cap, nr_given + 1,
					sizeof(*given)))
				return -1;
			g = &given[nr_given++];
			g->st = *src;
			f = malloc(src->nr_frames * sizeof(*f));
			if (!f)
				return -1;
			memcpy(f, src->frames, src->nr_frames * sizeof(*f));
			g->st.frames = f;
			g->addrs = NULL;
			if (raw || chains) {
				uint32_t j;

				g->addrs = malloc(src->nr_frames *
						  sizeof(*g->addrs));
				if (!g->addrs)
					return -1;
				for (j = 0; j < src->nr_frames; j++) {
					g->addrs[j] = raw ? raw_addr(&f[j])
							  : frame_addr(&f[j]);
					if (!g->addrs[j])
						return -1;
				}
			}
			g->proc = p;
			g->tid = v[k].tid;
			g->time_ns = v[k].time_ns;
		}
	}
	return 0;
}

/* One round of --raw: its CPU time. */
static double replay_raw(void)
{
	size_t k, bytes = 0;
	double t0 = cpu_s(), t;

	memset(raw_lanes, 0, sizeof(raw_lanes));
	for (k = 0; k < nr_given; k++) {
		/* a block's worth, as a writer's flush would take it */
		if (raw_len >
		    RAW_BLOCK - (OPS_STACK_MAX_FRAMES + 3) * OPS_VARINT_MAX) {
			bytes += raw_len;
			raw_len = 0;
		}
		raw_encode(&given[k]);
	}
	bytes += raw_len;
	raw_len = 0;
	t = cpu_s() - t0;
	printf("raw chains: %.1f bytes a sample, unpacked; ",
	       nr_given ? (double)bytes / (double)nr_given : 0);
	return t;
}

/* One round: the samples into a session in OUT; its CPU time, or a
 * negative value said. */
static double replay(struct ops_session *s, const char *out)
{
	struct ops_session_info info = *ops_session_info(s);
	struct ops_writer *w;
	uint32_t i, p, id, proc = 0;
	double t0, t = -1, out_of_round = 0;
	size_t k;
	int err = 0;

	info.stack_deltas = deltas;

	if (ops_writer_open(&w, out, &info))
		return -1;
	for (i = 0; i < ops_session_nr_images(s) && !err; i++)
		err = ops_writer_image(w, ops_session_image(s, i), &id);
	for (p = 0; p < ops_session_nr_processes(s) && !err; p++)
		err = ops_writer_process(w, ops_session_process(s, p), &proc);
	t0 = cpu_s();
	for (k = 0; k < nr_given && !err; k++) {
		const struct given *g = &given[k];

		if (chains) {
			struct ops_chain c = {
				.addrs = g->addrs,
				.nr = g->st.nr_frames,
				.nr_kernel = g->st.nr_kernel,
				.flags = g->st.flags,
				.space = 1 + g->proc,
				.gen = 1 + g->proc,
				.place = place,
			};
			bool anon;

			err = ops_writer_chain_of(w, &c, g->tid, &id, &anon);
		} else {
			err = ops_writer_stack_of(w, &g->st, g->tid, &id);
		}
		err = err ? err
			  : ops_writer_anon_stack(w, g->proc, g->time_ns, id,
						  g->tid);
		if (!err && k % 8000 == 7999) {
			err = ops_writer_flush(w);
			if (evict)
				out_of_round += evict_caches();
		}
	}
	if (!err) {
		struct ops_stack_stats ss;
		double n = (double)(k ? k : 1);

		ops_writer_stack_stats(w, &ss);
		printf("a sample: %.1f frames, %.1f shared, %.1f found in the index, %.1f added; %" PRIu64
		       " generations; ",
		       (double)ss.frames / n, (double)ss.shared / n,
		       (double)ss.cached / n, (double)ss.added / n,
		       ss.generations);
	}
	err = err ? err : ops_writer_close(w, 1);
	t = err ? -1 : cpu_s() - t0 - out_of_round;
	if (err)
		fprintf(stderr, "bench_stack_replay: %s\n",
			ops_writer_error(w));
	return t;
}

int main(int argc, char **argv)
{
	struct ops_session *s;
	char err[256];
	int rounds, r;
	double best = -1;
	size_t nr = 0;

	while (argc > 1 &&
	       (!strcmp(argv[1], "--cold") || !strcmp(argv[1], "--deltas") ||
		!strcmp(argv[1], "--chains") || !strcmp(argv[1], "--raw"))) {
		if (!strcmp(argv[1], "--raw")) {
			raw = true;
		} else if (!strcmp(argv[1], "--deltas")) {
			deltas = true;
		} else if (!strcmp(argv[1], "--chains")) {
			chains = true;
		} else if (!evict && !(evict = calloc(1, EVICT_BYTES))) {
			fprintf(stderr, "bench_stack_replay: out of memory\n");
			return 1;
		}
		argc--;
		argv++;
	}
	rounds = argc > 3 ? atoi(argv[3]) : 3;
	if (argc < 3 || rounds < 1) {
		fprintf(stderr,
			"usage: bench_stack_replay [--cold] [--deltas] [--chains] [--raw] SESSION OUT [ROUNDS]\n");
		return 2;
	}
	if (ops_session_open(&s, argv[1], NULL, NULL, err, sizeof(err))) {
		fprintf(stderr, "bench_stack_replay: %s\n", err);
		return 1;
	}
	if (load(s)) {
		fprintf(stderr,
			"bench_stack_replay: out of memory, or two frames of one address\n");
		return 1;
	}
	nr = nr_given;
	if (raw && !(raw_out = malloc(RAW_BLOCK))) {
		fprintf(stderr, "bench_stack_replay: out of memory\n");
		return 1;
	}
	for (r = 0; r < rounds; r++) {
		double t = raw ? replay_raw() : replay(s, argv[2]);

		if (t < 0)
			return 1;
		if (best < 0 || t < best)
			best = t;
		printf("round %d: %.3f s, %zu samples, %.2f us a sample\n", r,
		       t, nr, nr ? t * 1e6 / (double)nr : 0);
	}
	printf("best: %.3f s, %.2f us a sample\n", best,
	       nr ? best * 1e6 / (double)nr : 0);
	ops_session_close(s);
	return 0;
}
