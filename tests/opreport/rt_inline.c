// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * rt_inline: a target whose rt_inl_outer() holds rt_inl_mid() inlined,
 * which holds rt_inl_leaf() inlined, so that DWARF describes a chain of
 * two inlined functions at the addresses of rt_inl_leaf's loop.
 */
#define INLINE static inline __attribute__((always_inline))

volatile unsigned long rt_inl_sink;
unsigned long rt_inl_outer(unsigned long n);

INLINE unsigned long rt_inl_leaf(unsigned long x)
{
	unsigned long i, s = x;

	for (i = 0; i < x; i++)
		s = s * 2654435761u + i;
	return s;
}

INLINE unsigned long rt_inl_mid(unsigned long x)
{
	return rt_inl_leaf(x ^ 5) + rt_inl_sink;
}

__attribute__((noinline)) unsigned long rt_inl_outer(unsigned long n)
{
	unsigned long i, s = 0;

	for (i = 0; i < n; i++)
		s += rt_inl_mid(i);
	return s;
}

int main(int argc, char **argv)
{
	(void)argv;
	rt_inl_sink = rt_inl_outer((unsigned long)argc * 1000);
	return 0;
}
