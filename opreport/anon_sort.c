// SPDX-License-Identifier: GPL-3.0-or-later
#include "anon_sort.h"

static inline bool before(const struct ops_anon_sample *a,
			  const struct ops_anon_sample *b)
{
	return a->addr < b->addr ||
	       (a->addr == b->addr && a->time_ns < b->time_ns);
}

static inline void swap(struct ops_anon_sample *a, struct ops_anon_sample *b)
{
	struct ops_anon_sample t = *a;

	*a = *b;
	*b = t;
}

static void insertion(struct ops_anon_sample *v, size_t n)
{
	size_t i, j;

	for (i = 1; i < n; i++) {
		struct ops_anon_sample x = v[i];

		for (j = i; j > 0 && before(&x, &v[j - 1]); j--)
			v[j] = v[j - 1];
		v[j] = x;
	}
}

static void sift_down(struct ops_anon_sample *v, size_t root, size_t n)
{
	size_t child;

	while ((child = 2 * root + 1) < n) {
		if (child + 1 < n && before(&v[child], &v[child + 1]))
			child++;
		if (!before(&v[root], &v[child]))
			return;
		swap(&v[root], &v[child]);
		root = child;
	}
}

static void heapsort(struct ops_anon_sample *v, size_t n)
{
	size_t i;

	for (i = n / 2; i-- > 0;)
		sift_down(v, i, n);
	for (i = n; i-- > 1;) {
		swap(&v[0], &v[i]);
		sift_down(v, 0, i);
	}
}

/* Median of three into v[0], then Hoare's partition around it; returns
 * the split: v[0..k) <= pivot <= v[k..n). */
static size_t partition(struct ops_anon_sample *v, size_t n)
{
	struct ops_anon_sample *a = &v[1], *b = &v[n / 2], *c = &v[n - 1];
	struct ops_anon_sample pivot;
	size_t i = 0, j = n;

	if (before(b, a))
		swap(a, b);
	if (before(c, b)) {
		swap(b, c);
		if (before(b, a))
			swap(a, b);
	}
	swap(&v[0], b);
	pivot = v[0];
	for (;;) {
		do
			i++;
		while (i < n && before(&v[i], &pivot));
		do
			j--;
		while (before(&pivot, &v[j]));
		if (i >= j)
			break;
		swap(&v[i], &v[j]);
	}
	swap(&v[0], &v[j]);
	return j;
}

static void introsort(struct ops_anon_sample *v, size_t n, unsigned depth)
{
	while (n > 16) {
		size_t k;

		if (!depth--) {
			heapsort(v, n);
			return;
		}
		k = partition(v, n);
		/* recurse into the smaller side: the stack stays O(log n) */
		if (k < n - k - 1) {
			introsort(v, k, depth);
			v += k + 1;
			n -= k + 1;
		} else {
			introsort(v + k + 1, n - k - 1, depth);
			n = k;
		}
	}
	insertion(v, n);
}

void anon_sort(struct ops_anon_sample *v, size_t n)
{
	unsigned depth = 0;
	size_t m;

	for (m = n; m > 1; m >>= 1)
		depth += 2;
	introsort(v, n, depth);
}
