// SPDX-License-Identifier: GPL-3.0-or-later
// square() is small enough for the JIT to inline into its hot caller,
// sum(); its call to leaf() stays a call (the test forbids inlining it
// with -XX:CompileCommand), so sum()'s compiled code has a pc whose
// innermost frame is square().
public class Inline {
	static volatile long sink;

	static long leaf(long x) {
		return x ^ (x >>> 7);
	}

	static long square(long x) {
		return leaf(x) * x;
	}

	static long sum(int n) {
		long s = 0;
		for (int i = 0; i < n; i++)
			s += square(i);
		return s;
	}

	public static void main(String[] args) {
		for (int r = 0; r < 20000; r++)
			sink += sum(10000);
		System.out.println("inline done");
	}
}
