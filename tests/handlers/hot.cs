// SPDX-License-Identifier: GPL-3.0-or-later
// A Mono workload whose time goes to one JIT-compiled method, Hot.hot.
using System;
using System.Diagnostics;

public static class Hot {
	static long hot(long n)
	{
		long s = 0;
		for (long i = 0; i < n; i++)
			s += (i * 31) ^ (s >> 3);
		return s;
	}

	public static int Main(string[] args)
	{
		long seconds = args.Length > 0 ? long.Parse(args[0]) : 3;
		var clock = Stopwatch.StartNew();
		long acc = 0;
		while (clock.ElapsedMilliseconds < seconds * 1000)
			acc += hot(1000000);
		Console.WriteLine(acc != 42 ? "done" : "unlikely");
		return 0;
	}
}
