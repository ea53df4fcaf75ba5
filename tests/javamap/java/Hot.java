// SPDX-License-Identifier: GPL-3.0-or-later
// Two hot methods: alpha does three times the work of beta, so a profile
// should give them about 75% and 25% of the samples spent in the two.
// It runs for its argument's seconds of its own CPU time, not the
// clock's: on a busy machine it does the same work, profilers beside it
// get as many samples, and a test attaching to it finds it still running.
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;

public class Hot {
	static volatile long sink;

	static long alpha(long n) {
		long s = 1;
		for (long i = 0; i < n; i++) {
			s = s * 6364136223846793005L + i;
			s ^= s >>> 29;
		}
		return s;
	}

	static long beta(long n) {
		long s = 7;
		for (long i = 0; i < n; i++) {
			s = s * 2862933555777941757L + i;
			s ^= s >>> 31;
		}
		return s;
	}

	public static void main(String[] args) {
		double secs = args.length > 0 ? Double.parseDouble(args[0])
					       : 3;
		ThreadMXBean cpu = ManagementFactory.getThreadMXBean();
		long end = cpu.getCurrentThreadCpuTime() + (long)(secs * 1e9);
		while (cpu.getCurrentThreadCpuTime() < end) {
			sink += alpha(3_000_000);
			sink += beta(1_000_000);
		}
		System.out.println("hot done");
	}
}
