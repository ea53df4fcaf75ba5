// SPDX-License-Identifier: GPL-3.0-or-later
// Threads that wait on two monitors for known times: in each round the
// main thread holds a LockA for 30 ms and a LockB for 10 ms while a
// waiter blocks on it, so that about 3/4 of the time waited is on LockA;
// it prints how long it held each, the truth a profile is held to.
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

	// Hold M for MS while a thread running WAITER blocks on it; the
	// nanoseconds it was held after the waiter started.
	static long round(Object m, long ms, Runnable waiter) throws Exception {
		Thread t;
		long held;
		synchronized (m) {
			CountDownLatch started = new CountDownLatch(1);
			t = new Thread(() -> {
				started.countDown();
				waiter.run();
			});
			t.start();
			started.await();
			// the waiter blocks on M within a few microseconds of
			// the latch: it waits about as long as M is held from
			// here, MS and what the sleep overshoots
			long t0 = System.nanoTime();
			Thread.sleep(ms);
			held = System.nanoTime() - t0;
		}
		t.join();
		return held;
	}

	public static void main(String[] args) throws Exception {
		int rounds = Integer.parseInt(args[0]);
		long heldA = 0, heldB = 0;
		for (int i = 0; i < rounds; i++) {
			heldA += round(a, 30, Contend::enterA);
			heldB += round(b, 10, Contend::enterB);
		}
		System.out.println("held " + heldA + " " + heldB);
		System.out.println("contend done");
	}
}
