import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;

/**
 * A virtual-thread workload for proftop's agent tests (JDK 21 and later):
 * everything in it holds still, so that a thread dump taken a moment
 * later sees what the agent saw.
 *
 * - MONITOR_WAITERS virtual threads blocked on one synchronized monitor,
 *   which a virtual thread holds while it sleeps;
 * - LOCK_WAITERS virtual threads parked on one ReentrantLock, which a
 *   platform thread holds, and one platform thread parked behind them;
 * - VLOCK_WAITERS virtual threads parked on another, which a virtual
 *   thread holds (no platform thread waits: the JDK's dump does not say
 *   who owns it, nor does ThreadMXBean);
 * - PARKED virtual threads parked on a CountDownLatch, in OrderService.await;
 * - a virtual thread pinned to its carrier, again and again (it sleeps
 *   inside a class loader the JVM called, a native frame below it);
 * - two virtual threads deadlocked on two monitors, and two on two
 *   ReentrantLocks;
 * - with "churn", short virtual threads started all the time (a few
 *   hundred a second), for the counts of started and ended threads;
 * - with "many N", N more virtual threads parked (the cost measurement).
 *
 * java VirtualWorkload SECONDS [churn] [many N]
 *     says "workload started" once all are in place, then runs SECONDS
 *     or until its standard input closes.
 */
public class VirtualWorkload {
    static final int MONITOR_WAITERS = 300;
    static final int LOCK_WAITERS = 300;
    static final int PARKED = 2000;
    static final int VLOCK_WAITERS = 50;

    static final Object monitor = new Object();
    static final ReentrantLock lock = new ReentrantLock();
    static final CountDownLatch never = new CountDownLatch(1);
    static final Object deadA = new Object();
    static final Object deadB = new Object();
    static final ReentrantLock vlock = new ReentrantLock();
    static final ReentrantLock jucA = new ReentrantLock();
    static final ReentrantLock jucB = new ReentrantLock();
    static volatile long sink;

    static final class OrderService {
        static void await() throws InterruptedException {
            never.await(); // PARKED LINE
        }
    }

    /** A class loader that takes its time: the JVM calls it, so a virtual thread in it is pinned. */
    static final ClassLoader SLOW = new ClassLoader(null) {
        @Override
        protected Class<?> findClass(String name) throws ClassNotFoundException {
            sleep(150); // PINNED LINE
            throw new ClassNotFoundException(name);
        }
    };

    static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    static void monitorWaiter() {
        synchronized (monitor) { // MONITOR LINE
            sink++;
        }
    }

    static void lockWaiter() {
        lock.lock(); // LOCK LINE
        lock.unlock();
    }

    static void deadlock(Object first, Object second, CountDownLatch both) {
        synchronized (first) {
            both.countDown();
            try {
                both.await();
            } catch (InterruptedException e) {
                return;
            }
            synchronized (second) { // DEADLOCK LINE
                sink++;
            }
        }
    }

    static void vlockWaiter() {
        vlock.lock(); // VLOCK LINE
        vlock.unlock();
    }

    static void jucDeadlock(ReentrantLock first, ReentrantLock second, CountDownLatch both) {
        first.lock();
        both.countDown();
        try {
            both.await();
        } catch (InterruptedException e) {
            return;
        }
        second.lock(); // JUC DEADLOCK LINE
    }

    /** Waits until n virtual threads are in the state, as Thread.getState tells. */
    static void settle(Thread[] ts, Thread.State want) {
        for (Thread t : ts) {
            while (t.getState() != want) {
                sleep(5);
            }
        }
    }

    public static void main(String[] args) throws Exception {
        long seconds = Long.parseLong(args[0]);
        boolean churn = false;
        int many = 0;
        for (int i = 1; i < args.length; i++) {
            if (args[i].equals("churn")) {
                churn = true;
            } else if (args[i].equals("many")) {
                many = Integer.parseInt(args[++i]);
            }
        }
        ExecutorService orders = Executors.newVirtualThreadPerTaskExecutor();
        for (int i = 0; i < PARKED + many; i++) {
            orders.submit(() -> {
                OrderService.await();
                return null;
            });
        }

        CountDownLatch held = new CountDownLatch(1);
        Thread.ofVirtual().name("monitor-owner").start(() -> {
            synchronized (monitor) {
                held.countDown();
                sleep(Long.MAX_VALUE / 2); // OWNER LINE
            }
        });
        held.await();
        Thread[] blocked = new Thread[MONITOR_WAITERS];
        for (int i = 0; i < blocked.length; i++) {
            blocked[i] = Thread.ofVirtual().name("monitor-waiter-" + i).start(VirtualWorkload::monitorWaiter);
        }

        CountDownLatch locked = new CountDownLatch(1);
        Thread.ofPlatform().name("lock-owner").daemon().start(() -> {
            lock.lock();
            locked.countDown();
            sleep(Long.MAX_VALUE / 2);
        });
        locked.await();
        Thread[] parked = new Thread[LOCK_WAITERS];
        for (int i = 0; i < parked.length; i++) {
            parked[i] = Thread.ofVirtual().name("lock-waiter-" + i).start(VirtualWorkload::lockWaiter);
        }
        Thread.ofPlatform().name("lock-platform-waiter").daemon().start(VirtualWorkload::lockWaiter);

        CountDownLatch vlocked = new CountDownLatch(1);
        Thread.ofVirtual().name("vlock-owner").start(() -> {
            vlock.lock();
            vlocked.countDown();
            sleep(Long.MAX_VALUE / 2);
        });
        vlocked.await();
        Thread[] vparked = new Thread[VLOCK_WAITERS];
        for (int i = 0; i < vparked.length; i++) {
            vparked[i] = Thread.ofVirtual().name("vlock-waiter-" + i).start(VirtualWorkload::vlockWaiter);
        }

        Thread.ofVirtual().name("pinner").start(() -> {
            for (long i = 0;; i++) {
                try {
                    Class.forName("proftop.Missing" + i, false, SLOW);
                } catch (ClassNotFoundException e) {
                    // as it should
                }
            }
        });

        CountDownLatch both = new CountDownLatch(2);
        Thread a = Thread.ofVirtual().name("deadlock-a").start(() -> deadlock(deadA, deadB, both));
        Thread b = Thread.ofVirtual().name("deadlock-b").start(() -> deadlock(deadB, deadA, both));

        CountDownLatch bothJuc = new CountDownLatch(2);
        Thread ja = Thread.ofVirtual().name("jucdead-a").start(() -> jucDeadlock(jucA, jucB, bothJuc));
        Thread jb = Thread.ofVirtual().name("jucdead-b").start(() -> jucDeadlock(jucB, jucA, bothJuc));

        settle(blocked, Thread.State.BLOCKED);
        settle(parked, Thread.State.WAITING);
        settle(vparked, Thread.State.WAITING);
        settle(new Thread[] {a, b}, Thread.State.BLOCKED);
        settle(new Thread[] {ja, jb}, Thread.State.WAITING);

        if (churn) {
            Thread.ofPlatform().name("churner").daemon().start(() -> {
                while (true) {
                    for (int i = 0; i < 10; i++) {
                        Thread.startVirtualThread(() -> sink++);
                    }
                    LockSupport.parkNanos(20_000_000L);
                }
            });
        }
        System.out.println("workload started");
        Thread stdin = Thread.ofPlatform().daemon().start(() -> {
            try {
                while (System.in.read() >= 0) {
                    // until closed
                }
            } catch (java.io.IOException e) {
                // closed
            }
        });
        stdin.join(seconds * 1000);
        System.exit(0);
    }
}
