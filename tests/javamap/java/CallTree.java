// SPDX-License-Identifier: GPL-3.0-or-later
// The known call tree on the JVM: main calls a() three times for each
// call of b(), both call hot() with the same work.  Run with hot, a and
// b kept out of line (-XX:CompileCommand=dontinline,CallTree::*) so that
// each stays a frame of its own.  Runs for its argument's seconds of its
// own CPU time, not the clock's: on a busy machine it does the same work.
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;

public class CallTree {
	static volatile long sink;

	static long hot(long n) {
		long s = 1;
		for (long i = 0; i < n; i++) {
			s = s * 6364136223846793005L + i;
			s ^= s >>> 29;
		}
		return s;
	}

	static long a() {
		return hot(20_000);
	}

	static long b() {
		return hot(20_000);
	}

	public static void main(String[] args) {
		double secs = args.length > 0 ? Double.parseDouble(args[0])
					       : 3;
		ThreadMXBean cpu = ManagementFactory.getThreadMXBean();
		long end = cpu.getCurrentThreadCpuTime() + (long)(secs * 1e9);
		while (cpu.getCurrentThreadCpuTime() < end) {
			sink += a();
			sink += a();
			sink += a();
			sink += b();
		}
		System.out.println("calltree done");
	}
}
