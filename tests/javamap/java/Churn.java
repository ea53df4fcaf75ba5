// SPDX-License-Identifier: GPL-3.0-or-later
// Code-cache churn: phases alternate between ChurnA and ChurnB, each
// defined afresh by a class loader that is dropped after its phase, so
// the JIT compiles new code, the class is unloaded, its code freed, and
// the next phase's code can land in the same memory.  Prints how long
// each worker ran, the truth a profile should agree with.  Phases and
// truth are the main thread's own CPU time, not the clock's: on a busy
// machine each phase does the same work.
import java.io.InputStream;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.lang.reflect.Method;

public class Churn {
	static volatile long sink;

	static final class OneClassLoader extends ClassLoader {
		private final String name;
		private final byte[] bytes;

		OneClassLoader(String name, byte[] bytes) {
			super(Churn.class.getClassLoader());
			this.name = name;
			this.bytes = bytes;
		}

		@Override
		protected Class<?> loadClass(String n, boolean resolve)
				throws ClassNotFoundException {
			if (!n.equals(name))
				return super.loadClass(n, resolve);
			synchronized (getClassLoadingLock(n)) {
				Class<?> c = findLoadedClass(n);
				if (c == null)
					c = defineClass(n, bytes, 0,
							bytes.length);
				return c;
			}
		}
	}

	static byte[] classBytes(String name) throws Exception {
		String file = name + ".class";
		try (InputStream in = Churn.class.getResourceAsStream(file)) {
			return in.readAllBytes();
		}
	}

	public static void main(String[] args) throws Exception {
		int phases = args.length > 0 ? Integer.parseInt(args[0]) : 24;
		double secs = args.length > 1 ? Double.parseDouble(args[1])
					       : 0.25;
		long phaseNs = (long)(secs * 1e9);
		String[] names = { "ChurnA", "ChurnB" };
		byte[][] bytes = {
			classBytes(names[0]), classBytes(names[1]),
		};
		long[] ran = new long[2];
		ThreadMXBean cpu = ManagementFactory.getThreadMXBean();

		for (int p = 0; p < phases; p++) {
			int w = p % 2;
			ClassLoader l = new OneClassLoader(names[w], bytes[w]);
			Class<?> c = l.loadClass(names[w]);
			Method m = c.getMethod("work", long.class);
			long t0 = cpu.getCurrentThreadCpuTime(), end = t0 + phaseNs;
			while (cpu.getCurrentThreadCpuTime() < end)
				sink += (Long)m.invoke(null, 200_000L);
			ran[w] += cpu.getCurrentThreadCpuTime() - t0;
			l = null;
			c = null;
			m = null;
			// unload the phase's class so that its code is freed
			System.gc();
		}
		System.out.println("churn ran ChurnA " + ran[0] + " ns ChurnB "
				   + ran[1] + " ns");
	}
}
