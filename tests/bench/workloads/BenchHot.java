// SPDX-License-Identifier: GPL-3.0-or-later
// java BenchHot SECONDS: two methods with the same body, called 3:1 by
// work done, so the truth is 75/25.  Run with
// -XX:CompileCommand=dontinline,BenchHot::* so that both JFR and the
// javamap agent see them as methods of their own.
public final class BenchHot {
	// the loops are written out twice, not shared, so that each sample
	// lands in the method that the truth counts
	static long hotMethod(long x) {
		for (int i = 0; i < 300000; i++) {
			x ^= x << 13;
			x ^= x >>> 7;
			x ^= x << 17;
		}
		return x;
	}

	static long coldMethod(long x) {
		for (int i = 0; i < 100000; i++) {
			x ^= x << 13;
			x ^= x >>> 7;
			x ^= x << 17;
		}
		return x;
	}

	public static void main(String[] args) {
		double seconds;
		try {
			seconds = Double.parseDouble(args[0]);
		} catch (RuntimeException e) {
			System.err.println("usage: BenchHot SECONDS");
			System.exit(2);
			return;
		}
		long end = System.nanoTime() + (long)(seconds * 1e9);
		long x = 88172645463325252L;
		while (System.nanoTime() < end) {
			x = hotMethod(x);
			x = coldMethod(x);
		}
		System.out.println(x);
	}
}
