// SPDX-License-Identifier: GPL-3.0-or-later
// One of Churn's two workers; Churn defines it afresh in every phase.
public class ChurnA {
	public static long work(long n) {
		long s = 3;
		for (long i = 0; i < n; i++) {
			s = s * 6364136223846793005L + i;
			s ^= s >>> 27;
		}
		return s;
	}
}
