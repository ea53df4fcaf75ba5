// SPDX-License-Identifier: GPL-3.0-or-later
// Allocates objects of two classes of the same size from two call sites,
// three from longs() for each one from doubles(): 3:1 by bytes (or, with
// a second argument N, N:1).  Each object escapes into a ring, so that
// the JIT cannot take it away.
public class Alloc {
	static final Object[] ring = new Object[1024];
	static int at;

	static void longs() {
		ring[at++ & 1023] = new long[126]; // 1008 + 16 bytes of header
	}

	static void doubles() {
		ring[at++ & 1023] = new double[126];
	}

	public static void main(String[] args) {
		long rounds = Long.parseLong(args[0]);
		int per = args.length > 1 ? Integer.parseInt(args[1]) : 3;
		for (long i = 0; i < rounds; i++) {
			for (int j = 0; j < per; j++)
				longs();
			doubles();
		}
		System.out.println("alloc done");
	}
}
