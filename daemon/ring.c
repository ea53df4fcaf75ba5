// SPDX-License-Identifier: GPL-3.0-or-later
#include "ring.h"
#include "record.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/* perf_event_header.size is 16 bits */
#define RING_MAX_RECORD 65536

int ring_open(struct ring *r, int fd, int cpu, size_t data_pages)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);

	memset(r, 0, sizeof(*r));
	r->fd = fd;
	r->cpu = cpu;
	if (!data_pages || (data_pages & (data_pages - 1)))
		return -EINVAL;
	r->bounce = malloc(RING_MAX_RECORD);
	if (!r->bounce)
		return -ENOMEM;
	r->map_size = (data_pages + 1) * page;
	r->base = mmap(NULL, r->map_size, PROT_READ | PROT_WRITE, MAP_SHARED,
		       fd, 0);
	if (r->base == MAP_FAILED) {
		int err = -errno;

		r->base = NULL;
		free(r->bounce);
		r->bounce = NULL;
		return err;
	}
	r->data = (unsigned char *)r->base + page;
	r->mask = data_pages * page - 1;
	r->tail = ((struct perf_event_mmap_page *)r->base)->data_tail;
	r->head = r->tail;
	return 0;
}

void ring_close(struct ring *r)
{
	if (r->base)
		munmap(r->base, r->map_size);
	free(r->bounce);
	r->base = NULL;
	r->bounce = NULL;
}

void ring_snapshot(struct ring *r)
{
	struct perf_event_mmap_page *pg = r->base;

	/* acquire pairs with the kernel's release of data_head: the
	 * records before head are complete once we see it */
	r->head = __atomic_load_n(&pg->data_head, __ATOMIC_ACQUIRE);
	r->cur = NULL;
}

const struct perf_event_header *ring_peek(struct ring *r)
{
	struct perf_event_header h;
	uint64_t off, size, first;

	if (r->cur)
		return r->cur;
	if (r->head - r->tail < sizeof(h))
		return NULL;
	off = r->tail & r->mask;
	/* records are 8-byte aligned, so a header never straddles the end */
	memcpy(&h, r->data + off, sizeof(h));
	size = h.size;
	if (size < sizeof(h) || size > r->head - r->tail) {
		/* a damaged stream cannot be resynchronised: drop it */
		r->tail = r->head;
		return NULL;
	}
	if (off + size <= r->mask + 1) {
		r->cur = (const void *)(r->data + off);
	} else {
		first = r->mask + 1 - off;
		memcpy(r->bounce, r->data + off, first);
		memcpy(r->bounce + first, r->data, size - first);
		r->cur = (const void *)r->bounce;
	}
	return r->cur;
}

void ring_advance(struct ring *r)
{
	if (!r->cur)
		return;
	r->tail += r->cur->size;
	r->cur = NULL;
}

void ring_publish(struct ring *r)
{
	struct perf_event_mmap_page *pg = r->base;

	/* release: our reads of the records happen before the kernel may
	 * overwrite them */
	__atomic_store_n(&pg->data_tail, r->tail, __ATOMIC_RELEASE);
}

int ring_merge_init(struct ring_merge *m, size_t nr_rings)
{
	m->n = 0;
	m->cap = nr_rings;
	m->heap = calloc(nr_rings ? nr_rings : 1, sizeof(*m->heap));
	return m->heap ? 0 : -ENOMEM;
}

void ring_merge_free(struct ring_merge *m)
{
	free(m->heap);
	m->heap = NULL;
	m->n = m->cap = 0;
}

static inline bool slot_before(const struct ring_merge_slot *a,
			       const struct ring_merge_slot *b)
{
	return a->time < b->time || (a->time == b->time && a->idx < b->idx);
}

static void merge_sift_down(struct ring_merge *m, size_t i)
{
	struct ring_merge_slot *h = m->heap, x = h[i];

	for (;;) {
		size_t c = 2 * i + 1;

		if (c >= m->n)
			break;
		if (c + 1 < m->n && slot_before(&h[c + 1], &h[c]))
			c++;
		if (!slot_before(&h[c], &x))
			break;
		h[i] = h[c];
		i = c;
	}
	h[i] = x;
}

/* The bytes after R's current record asked into the cache while it is
 * read: the kernel wrote them on another CPU, and the first loads of a
 * JIT sample's chain (tens of addresses, five or six lines) waited for
 * them; they were half of a node recorder's time reading its chains,
 * and an eighth with this.  A record takes about half a microsecond to
 * read, time enough for the next one's lines.  Always inline: GCC 12
 * takes a function of prefetches alone for one without effects, and
 * drops its calls. */
#define RING_PREFETCH 512u
static inline __attribute__((always_inline)) void
ring_prefetch(const struct ring *r)
{
	uint64_t at = r->tail + r->cur->size, k;

	for (k = 0; k < RING_PREFETCH; k += 64)
		__builtin_prefetch(r->data + ((at + k) & r->mask));
}

void ring_merge_drain(struct ring_merge *m, struct ring *rings, size_t nr,
		      void (*fn)(void *arg, const struct perf_event_header *h),
		      void *arg)
{
	size_t i;

	m->n = 0;
	for (i = 0; i < nr; i++) {
		const struct perf_event_header *h;

		if (!rings[i].base)
			continue;
		ring_snapshot(&rings[i]);
		h = ring_peek(&rings[i]);
		if (!h)
			continue;
		m->heap[m->n++] = (struct ring_merge_slot){
			.time = record_time(h),
			.idx = (uint32_t)i,
			.ring = &rings[i],
		};
	}
	for (i = m->n / 2; i-- > 0;)
		merge_sift_down(m, i);
	while (m->n) {
		struct ring_merge_slot *top = &m->heap[0];
		const struct ring_merge_slot *next = NULL;
		const struct perf_event_header *h;

		/* the oldest of the other rings stays where it is while the
		 * top ring is read: read it until its record is newer, so
		 * that a busy CPU's run of records costs no sift each */
		if (m->n > 1)
			next = m->n > 2 && slot_before(&m->heap[2],
						       &m->heap[1])
				       ? &m->heap[2]
				       : &m->heap[1];
		do {
			m->ring = top->ring;
			ring_prefetch(top->ring);
			fn(arg, top->ring->cur);
			ring_advance(top->ring);
			h = ring_peek(top->ring);
			if (h)
				top->time = record_time(h);
		} while (h && (!next || !slot_before(next, top)));
		if (!h) {
			*top = m->heap[--m->n];
			if (!m->n)
				break;
		}
		merge_sift_down(m, 0);
	}
	for (i = 0; i < nr; i++)
		if (rings[i].base)
			ring_publish(&rings[i]);
}
