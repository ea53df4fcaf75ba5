// SPDX-License-Identifier: GPL-3.0-or-later
// A JVM workload whose time goes to one JIT-compiled method, Hot.hot,
// for its argument's seconds of its own CPU time (not the clock's: on a
// busy machine it does the same work).
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;

public class Hot {
	static long hot(long n) {
		long s = 0;
		for (long i = 0; i < n; i++)
			s += (i * 31) ^ (s >>> 3);
		return s;
	}

	public static void main(String[] args) {
		long seconds = args.length > 0 ? Long.parseLong(args[0]) : 3;
		ThreadMXBean cpu = ManagementFactory.getThreadMXBean();
		long end = cpu.getCurrentThreadCpuTime() + seconds * 1000000000L;
		long acc = 0;
		while (cpu.getCurrentThreadCpuTime() < end)
			acc += hot(1000000);
		System.out.println(acc != 42 ? "done" : "unlikely");
	}
}
