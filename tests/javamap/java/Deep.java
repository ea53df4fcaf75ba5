// SPDX-License-Identifier: GPL-3.0-or-later
// Interpreted callers above compiled code: main calls left() three
// times for each call of right(), both call leaf() with the same work.
// Run with left and right excluded from compilation and kept out of
// line (-XX:CompileCommand=exclude,Deep::left and ::right,
// dontinline,Deep::*): they stay interpreted frames while leaf's loop
// is compiled.  Prints the thread CPU time spent under each caller, the
// workload's own count that a profile's split is checked against.
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;

public class Deep {
	static volatile long sink;

	static long leaf(long n) {
		long s = 1;
		for (long i = 0; i < n; i++) {
			s = s * 6364136223846793005L + i;
			s ^= s >>> 29;
		}
		return s;
	}

	static long left() {
		return leaf(2_000_000);
	}

	static long right() {
		return leaf(2_000_000);
	}

	public static void main(String[] args) {
		ThreadMXBean t = ManagementFactory.getThreadMXBean();
		double secs = args.length > 0 ? Double.parseDouble(args[0])
					       : 3;
		// its seconds of CPU, not the clock's: on a busy machine it
		// does the same work
		long end = t.getCurrentThreadCpuTime() + (long)(secs * 1e9);
		long l = 0, r = 0, c;
		while (t.getCurrentThreadCpuTime() < end) {
			for (int k = 0; k < 3; k++) {
				c = t.getCurrentThreadCpuTime();
				sink += left();
				l += t.getCurrentThreadCpuTime() - c;
			}
			c = t.getCurrentThreadCpuTime();
			sink += right();
			r += t.getCurrentThreadCpuTime() - c;
		}
		System.out.println("deep left_ns=" + l + " right_ns=" + r);
		System.out.println("deep done");
	}
}
