// SPDX-License-Identifier: GPL-3.0-or-later
// Threads that wait on two monitors for known times: in each round the
// main thread holds a LockA for 30 ms and a LockB for 10 ms while a
// waiter blocks on it, so that 3/4 of the time waited is on LockA.
import java.util.concurrent.CountDownLatch;

public class Contend {
	static class LockA {
	}

	static class LockB {
	}

	static final LockA a = new LockA();
	static final LockB b = new LockB();

	static void enterA() {
		synchronized (a) {
		}
	}

	static void enterB() {
		synchronized (b) {
		}
	}

	// Hold M for MS while a thread running WAITER blocks on it.
	static void round(Object m, long ms, Runnable waiter) throws Exception {
		Thread t;
		synchronized (m) {
			CountDownLatch started = new CountDownLatch(1);
			t = new Thread(() -> {
				started.countDown();
				waiter.run();
			});
			t.start();
			started.await();
			// the waiter blocks on M within a few microseconds of
			// the latch: it waits about MS
			Thread.sleep(ms);
		}
		t.join();
	}

	public static void main(String[] args) throws Exception {
		int rounds = Integer.parseInt(args[0]);
		for (int i = 0; i < rounds; i++) {
			round(a, 30, Contend::enterA);
			round(b, 10, Contend::enterB);
		}
		System.out.println("contend done");
	}
}
