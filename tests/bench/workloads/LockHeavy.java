// SPDX-License-Identifier: GPL-3.0-or-later
// Four threads take one monitor in turn, each entry doing a little work
// inside it, so that most entries contend: a lock-heavy workload for the
// cost of recording contended enters.  java LockHeavy ENTRIES_PER_THREAD
public class LockHeavy {
	static final Object lock = new Object();
	static long counter;

	public static void main(String[] args) throws Exception {
		long entries = Long.parseLong(args[0]);
		Thread[] t = new Thread[4];
		for (int i = 0; i < t.length; i++) {
			t[i] = new Thread(() -> {
				for (long n = 0; n < entries; n++) {
					synchronized (lock) {
						for (int k = 0; k < 2000; k++)
							counter += k ^ n;
					}
				}
			});
			t[i].start();
		}
		for (Thread x : t)
			x.join();
		System.out.println("lockheavy done " + counter);
	}
}
