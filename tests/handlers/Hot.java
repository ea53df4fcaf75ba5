// SPDX-License-Identifier: GPL-3.0-or-later
// A JVM workload whose time goes to one JIT-compiled method, Hot.hot.
public class Hot {
	static long hot(long n) {
		long s = 0;
		for (long i = 0; i < n; i++)
			s += (i * 31) ^ (s >>> 3);
		return s;
	}

	public static void main(String[] args) {
		long seconds = args.length > 0 ? Long.parseLong(args[0]) : 3;
		long end = System.nanoTime() + seconds * 1000000000L;
		long acc = 0;
		while (System.nanoTime() < end)
			acc += hot(1000000);
		System.out.println(acc != 42 ? "done" : "unlikely");
	}
}
