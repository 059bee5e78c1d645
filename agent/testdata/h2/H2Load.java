import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantLock;

/**
 * A workload on real third-party code for the ground-truth tests of
 * proftop's agent: H2 (Debian's libh2-java, 2.1) with an in-memory
 * database whose few rows every worker updates, so that H2's own code
 * contends (a transaction waiting for the one that holds a row lock waits
 * in org.h2.mvstore.tx.Transaction), next to threads whose states are known
 * at any moment:
 *
 *   h2-worker-N       update the same rows in transactions (N from 0, 8 by default)
 *   sleeper           Thread.sleep in a loop: TIMED_WAITING (sleeping)
 *   idle-pool-N       an idle fixed pool of 4, started: WAITING (parking)
 *   lock-holder       holds a ReentrantLock 20 ms at a time (sleeping), then lets go for ~1 ms
 *   rl-contender-N    4 threads taking that lock for ~2 ms (spinning), then sleeping ~1 ms:
 *                     mostly parked on ReentrantLock$NonfairSync
 *   sync-contender-N  4 threads taking one synchronized object for ~2 ms, then sleeping ~1 ms:
 *                     mostly BLOCKED (on object monitor)
 *   steady-monitor    holds a synchronized object 5 s at a time, letting go for ~5 ms
 *   steady-blocked-N  3 threads that take it whenever they can: BLOCKED on it 99.9% of the time
 *   steady-lock       the same with a ReentrantLock
 *   steady-parked-N   3 threads: WAITING (parking) on it, owned by steady-lock, 99.9% of the time
 *
 * The steady threads are in the same state whenever two tools look a
 * moment apart, so that their counts can be compared look for look; the
 * others change state every millisecond, and are compared over time. A
 * look that falls in a steady holder's ~5 ms let-go is told by its stack:
 * the holder sleeps elsewhere than at its STEADY ... HOLD line.
 *
 * java -cp h2.jar:DIR H2Load SECONDS [WORKERS]
 *     runs SECONDS, or until its standard input closes. Every thread is a
 *     daemon: the JVM exits when main returns. Prints "h2load started" once
 *     every thread runs, and "h2load done commits N rollbacks M" at the end.
 */
public class H2Load {
    static final String URL = "jdbc:h2:mem:h2load;DB_CLOSE_DELAY=-1;LOCK_TIMEOUT=10000";
    static final int ROWS = 3;
    static final ReentrantLock rlock = new ReentrantLock();
    static final Object monitor = new Object();
    static final ReentrantLock steadyLock = new ReentrantLock();
    static final Object steadyMonitor = new Object();
    static final long STEADY_HOLD_MS = 5000;
    static volatile boolean running = true;
    static volatile long sink;
    static final AtomicLong commits = new AtomicLong();
    static final AtomicLong rollbacks = new AtomicLong();

    /** Busy for about millis of wall time: holding a lock while running. */
    static long spinFor(long millis) {
        long end = System.nanoTime() + millis * 1_000_000;
        long x = 1;
        while (System.nanoTime() < end) {
            for (int i = 0; i < 100; i++) {
                x = (x * 6364136223846793005L + 1442695040888963407L) ^ (x >>> 29);
            }
        }
        return x;
    }

    /**
     * One worker's loop: a transaction updates two of the rows, in id order
     * so that workers queue for row locks rather than deadlock, and holds
     * the first row lock across a 1 ms pause so that the others wait for it
     * inside H2.
     */
    static void worker(int n) throws Exception {
        try (Connection c = DriverManager.getConnection(URL, "sa", "")) {
            c.setAutoCommit(false);
            PreparedStatement update = c.prepareStatement("UPDATE counters SET v = v + 1 WHERE id = ?");
            java.util.Random random = new java.util.Random(n);
            while (running) {
                int a = random.nextInt(ROWS), b = random.nextInt(ROWS);
                try {
                    update.setInt(1, Math.min(a, b));
                    update.executeUpdate();
                    Thread.sleep(1);
                    if (a != b) {
                        update.setInt(1, Math.max(a, b));
                        update.executeUpdate();
                    }
                    c.commit();
                    commits.incrementAndGet();
                } catch (SQLException e) {
                    // a lock timeout or a deadlock H2 found: give up this one
                    c.rollback();
                    rollbacks.incrementAndGet();
                }
            }
        }
    }

    static void sleeper() throws InterruptedException {
        while (running) {
            Thread.sleep(1000);
        }
    }

    static void lockHolder() throws InterruptedException {
        while (running) {
            rlock.lock();
            try {
                Thread.sleep(20);
            } finally {
                rlock.unlock();
            }
            Thread.sleep(1);
        }
    }

    static void rlContender() throws InterruptedException {
        while (running) {
            rlock.lock();
            try {
                sink += spinFor(2);
            } finally {
                rlock.unlock();
            }
            Thread.sleep(1);
        }
    }

    static void syncContender() throws InterruptedException {
        while (running) {
            synchronized (monitor) {
                sink += spinFor(2);
            }
            Thread.sleep(1);
        }
    }

    static void steadyMonitorHolder() throws InterruptedException {
        while (running) {
            synchronized (steadyMonitor) {
                Thread.sleep(STEADY_HOLD_MS); // STEADY MONITOR HOLD
            }
            Thread.sleep(5); // STEADY RELEASE
        }
    }

    static void steadyBlocked() {
        while (running) {
            synchronized (steadyMonitor) {
                sink++;
            }
        }
    }

    static void steadyLockHolder() throws InterruptedException {
        while (running) {
            steadyLock.lock();
            try {
                Thread.sleep(STEADY_HOLD_MS); // STEADY LOCK HOLD
            } finally {
                steadyLock.unlock();
            }
            Thread.sleep(5); // STEADY RELEASE
        }
    }

    static void steadyParked() {
        while (running) {
            steadyLock.lock();
            try {
                sink++;
            } finally {
                steadyLock.unlock();
            }
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
                if (running) {
                    System.err.println(Thread.currentThread().getName() + ": " + e);
                }
            }
        }, name);
        t.setDaemon(true);
        t.start();
    }

    public static void main(String[] args) throws Exception {
        int seconds = Integer.parseInt(args[0]);
        int workers = args.length > 1 ? Integer.parseInt(args[1]) : 8;
        // The connection is kept open (DB_CLOSE_DELAY=-1 too) for the
        // database to live as long as the program.
        Connection setup = DriverManager.getConnection(URL, "sa", "");
        try (Statement s = setup.createStatement()) {
            s.execute("CREATE TABLE counters(id INT PRIMARY KEY, v BIGINT NOT NULL)");
            for (int i = 0; i < ROWS; i++) {
                s.execute("INSERT INTO counters VALUES (" + i + ", 0)");
            }
        }
        for (int i = 0; i < workers; i++) {
            int n = i;
            start("h2-worker-" + i, () -> worker(n));
        }
        start("sleeper", H2Load::sleeper);
        AtomicInteger poolThreads = new AtomicInteger();
        ThreadPoolExecutor idle = new ThreadPoolExecutor(4, 4, 0, TimeUnit.MILLISECONDS, new LinkedBlockingQueue<>(), r -> {
            Thread t = new Thread(r, "idle-pool-" + poolThreads.getAndIncrement());
            t.setDaemon(true);
            return t;
        });
        idle.prestartAllCoreThreads();
        start("lock-holder", H2Load::lockHolder);
        for (int i = 0; i < 4; i++) {
            start("rl-contender-" + i, H2Load::rlContender);
        }
        for (int i = 0; i < 4; i++) {
            start("sync-contender-" + i, H2Load::syncContender);
        }
        start("steady-monitor", H2Load::steadyMonitorHolder);
        start("steady-lock", H2Load::steadyLockHolder);
        Thread.sleep(50); // the holders first
        for (int i = 0; i < 3; i++) {
            start("steady-blocked-" + i, H2Load::steadyBlocked);
            start("steady-parked-" + i, H2Load::steadyParked);
        }
        System.out.println("h2load started");
        CountDownLatch stdinClosed = new CountDownLatch(1);
        start("stdin", () -> {
            while (System.in.read() >= 0) {
                // drain
            }
            stdinClosed.countDown();
        });
        stdinClosed.await(seconds, TimeUnit.SECONDS);
        running = false;
        System.out.println("h2load done commits " + commits.get() + " rollbacks " + rollbacks.get());
        setup.close();
    }
}
