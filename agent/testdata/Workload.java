import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.locks.ReentrantLock;

/**
 * A workload for proftop's agent tests: threads contending on a
 * synchronized lock, a thread waiting with wait/notify, allocation that
 * forces collections, a CPU-bound hot method, and, with "deadlock", two
 * threads that deadlock. All its threads are daemons: the JVM exits when
 * main returns.
 *
 * java Workload run SECONDS [deadlock] [pairs]
 *                                       runs SECONDS, or until its standard input closes;
 *                                       "pairs" adds two threads that contend for two
 *                                       locks of one class in turn; "parks" the same
 *                                       with ReentrantLocks (threads park on them), and
 *                                       a full collection (objects move) four times a
 *                                       second, however busy the machine
 * java Workload bench SECONDS [WARMUP]  prints "ops N": operations done in SECONDS,
 *                                       counted after WARMUP seconds (default 1)
 */
public class Workload {
    static final Object lock = new Object();
    static final Object queue = new Object();
    static final Object accountA = new Object();
    static final Object accountB = new Object();
    static final Object left = new Object();
    static final Object right = new Object();
    static final ReentrantLock parkLock = new ReentrantLock();
    static final ReentrantLock parkLeft = new ReentrantLock();
    static final ReentrantLock parkRight = new ReentrantLock();
    static volatile long sink;
    static volatile boolean running = true;
    static final java.util.concurrent.atomic.AtomicLong ops = new java.util.concurrent.atomic.AtomicLong();

    static void contend() throws InterruptedException {
        while (running) {
            synchronized (lock) { sink += spinFor(2); } // CONTENDED LINE: a blocked thread reports this line
            ops.incrementAndGet();
            Thread.sleep(1);
        }
    }

    static long spinFor(long millis) {
        long end = System.nanoTime() + millis * 1_000_000;
        long x = 0;
        while (System.nanoTime() < end) {
            x += spin(x);
        }
        return x;
    }

    static long spin(long x) {
        for (int i = 0; i < 200; i++) {
            x = (x * 6364136223846793005L + 1442695040888963407L) ^ (x >>> 29);
        }
        return x;
    }

    static void spinner() {
        long x = 1;
        while (running) {
            x = spin(x);
            if ((x & 0xff) == 0) {
                ops.incrementAndGet();
            }
        }
        sink += x;
    }

    static void waiter() throws InterruptedException {
        while (running) {
            synchronized (queue) { queue.wait(300); } // WAIT LINE
        }
    }

    static void notifier() throws InterruptedException {
        while (running) {
            Thread.sleep(100);
            synchronized (queue) {
                queue.notifyAll();
            }
        }
    }

    static void allocate() throws InterruptedException {
        while (running) {
            List<byte[]> junk = new ArrayList<>();
            for (int i = 0; i < 1000; i++) {
                junk.add(new byte[10_000]);
            }
            sink += junk.size();
            ops.incrementAndGet();
            Thread.sleep(2);
        }
    }

    static void transfer(Object from, Object to) {
        synchronized (from) {
            try {
                Thread.sleep(300);
            } catch (InterruptedException e) {
                return;
            }
            synchronized (to) { sink++; } // DEADLOCK LINE
        }
    }

    static void holder(Object lock) throws InterruptedException {
        while (running) {
            synchronized (lock) {
                Thread.sleep(20);
            }
            Thread.sleep(1);
        }
    }

    static void pair() {
        while (running) {
            synchronized (left) { sink++; } // LEFT LINE
            synchronized (right) { sink++; } // RIGHT LINE
        }
    }

    static void parkContend() throws InterruptedException {
        while (running) {
            parkLock.lock(); // CONTENDED PARK
            try {
                sink += spinFor(2);
            } finally {
                parkLock.unlock();
            }
            Thread.sleep(1);
        }
    }

    static void parkHolder(ReentrantLock lock) throws InterruptedException {
        while (running) {
            lock.lock();
            try {
                Thread.sleep(20);
            } finally {
                lock.unlock();
            }
            Thread.sleep(1);
        }
    }

    static void parkPair() {
        while (running) {
            parkLeft.lock(); // LEFT PARK
            parkLeft.unlock();
            parkRight.lock(); // RIGHT PARK
            parkRight.unlock();
        }
    }

    interface Body {
        void run() throws Exception;
    }

    static void start(String name, Body body) {
        Thread t = new Thread(() -> {
            try {
                body.run();
            } catch (Exception e) {
                // stopping
            }
        }, name);
        t.setDaemon(true);
        t.start();
    }

    public static void main(String[] args) throws Exception {
        String mode = args[0];
        int seconds = Integer.parseInt(args[1]);
        for (int i = 0; i < 4; i++) {
            start("contender-" + i, Workload::contend);
        }
        start("spinner", Workload::spinner);
        start("waiter", Workload::waiter);
        start("notifier", Workload::notifier);
        start("allocator", Workload::allocate);
        List<String> flags = mode.equals("run") ? List.of(args).subList(2, args.length) : List.of();
        if (flags.contains("deadlock")) {
            start("deadlock-a", () -> transfer(accountA, accountB));
            start("deadlock-b", () -> transfer(accountB, accountA));
        }
        if (flags.contains("pairs")) {
            start("holder-left", () -> holder(left));
            start("holder-right", () -> holder(right));
            start("pair-0", Workload::pair);
            start("pair-1", Workload::pair);
        }
        if (flags.contains("parks")) {
            for (int i = 0; i < 4; i++) {
                start("park-contender-" + i, Workload::parkContend);
            }
            start("park-holder-left", () -> parkHolder(parkLeft));
            start("park-holder-right", () -> parkHolder(parkRight));
            start("park-pair-0", Workload::parkPair);
            start("park-pair-1", Workload::parkPair);
            start("collector", () -> {
                while (running) {
                    Thread.sleep(250);
                    System.gc();
                }
            });
        }
        System.out.println("workload started");
        if (mode.equals("bench")) {
            Thread.sleep(1000L * (args.length > 2 ? Integer.parseInt(args[2]) : 1)); // warm up
            long before = ops.get();
            Thread.sleep(seconds * 1000L);
            System.out.println("ops " + (ops.get() - before));
        } else {
            java.util.concurrent.CountDownLatch stdinClosed = new java.util.concurrent.CountDownLatch(1);
            start("stdin", () -> {
                while (System.in.read() >= 0) {
                    // drain
                }
                stdinClosed.countDown();
            });
            stdinClosed.await(seconds, java.util.concurrent.TimeUnit.SECONDS);
        }
        running = false;
        System.out.println("workload done");
    }
}
