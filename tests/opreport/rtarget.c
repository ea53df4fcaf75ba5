// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * The image the resolution tests point samples at.  It is never run for
 * those tests: they take each function's file offset from nm and readelf
 * and check that opreport names it.  The functions are kept apart
 * (noinline, distinct bodies) so that each has its own address range.
 */
#include <stdio.h>
#include <stdlib.h>

#ifdef RT_FAR_SECTION
/* a section linked at a far address, so it lands in its own segment */
#define FAR __attribute__((section(".fartext"), noinline, used))
#else
#define FAR __attribute__((noinline, used))
#endif

#define FN __attribute__((noinline, used))

unsigned long rt_alpha(unsigned long n);
unsigned long rt_gamma(unsigned long n);
unsigned long rt_far_delta(unsigned long n);

volatile unsigned long rt_sink;

FN unsigned long rt_alpha(unsigned long n)
{
	unsigned long i, s = 0;

	for (i = 0; i < n; i++)
		s += i * 3 + (s >> 3);
	return s;
}

FN static unsigned long rt_local_beta(unsigned long n)
{
	unsigned long i, s = 1;

	for (i = 0; i < n; i++)
		s ^= (s << 5) + i;
	return s;
}

FN unsigned long rt_gamma(unsigned long n)
{
	unsigned long i, s = 7;

	for (i = 0; i < n; i++)
		s = s * 31 + (i & 15);
	return s + rt_local_beta(n);
}

FAR unsigned long rt_far_delta(unsigned long n)
{
	unsigned long i, s = 11;

	for (i = 0; i < n; i++)
		s += (s ^ i) >> 1;
	return s;
}

int main(int argc, char **argv)
{
	unsigned long n = argc > 1 ? strtoul(argv[1], NULL, 0) : 1000;

	rt_sink = rt_alpha(n) + rt_gamma(n) + rt_far_delta(n);
	printf("%lu\n", rt_sink);
	return 0;
}

/*
 * A C++-mangled name, written in C so that no C++ compiler is needed: it
 * demangles to rt_mangled(int).  Kept last so that the lines above, which
 * golden files show, do not move.
 */
unsigned long _Z10rt_mangledi(int n);
__attribute__((noinline, used)) unsigned long _Z10rt_mangledi(int n)
{
	return (unsigned long)n * 2654435761u;
}
