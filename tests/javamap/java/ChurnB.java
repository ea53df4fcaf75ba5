// SPDX-License-Identifier: GPL-3.0-or-later
// The other of Churn's two workers, the same work under another name.
public class ChurnB {
	public static long work(long n) {
		long s = 5;
		for (long i = 0; i < n; i++) {
			s = s * 2862933555777941757L + i;
			s ^= s >>> 29;
		}
		return s;
	}
}
