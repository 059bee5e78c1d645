package io.proftop.agent;

import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.lang.management.MemoryUsage;
import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;

import javax.management.Notification;
import javax.management.NotificationEmitter;
import javax.management.NotificationListener;
import javax.management.openmbean.CompositeData;

import com.sun.management.GarbageCollectionNotificationInfo;
import com.sun.management.GcInfo;

/**
 * Collections and memory, counted from the JVM's start: every collection
 * the JVM notifies (notifications come for each one, from the moment the
 * agent listens, whether JFR runs or not), with the heap before and after;
 * JFR's record of the same collection, when it comes, gives the exact
 * pause (a notification's times are in milliseconds). At each poll, every
 * collector's count and time since the JVM started (what jstat shows, so
 * nothing missed is lost) and every memory pool's usage.
 */
final class MemoryWatcher {
    /** A collection is sent once JFR's record of it came, or after this long without. */
    private static final long JFR_WAIT = 3_000_000_000L;
    /**
     * Matching a notification with JFR's record: their start times agree
     * within this (a notification's are whole milliseconds since the JVM's
     * start, itself known to the millisecond); the closest wins.
     */
    private static final long SAME_START = 5_000_000L;
    private static final int MAX_QUEUED = 10_000;

    /** A notified collection; sequence is its collector's count with it (GcInfo's id). */
    private record Collection(String collector, String cause, long start, long end, long pause, long before, long after,
            long committed, long sequence, long notifiedAt) {}

    /** JFR's record of a collection: when it started, and the application's pause. */
    private record Pause(long start, long pause) {}

    private final List<GarbageCollectorMXBean> collectors = ManagementFactory.getGarbageCollectorMXBeans();
    private final List<MemoryPoolMXBean> pools = ManagementFactory.getMemoryPoolMXBeans();
    private final Set<String> heapPools = new HashSet<>();
    private final long jvmStart = ManagementFactory.getRuntimeMXBean().getStartTime() * 1_000_000L;
    // Filled by the JVM's notification thread: it only queues.
    private final ConcurrentLinkedQueue<Collection> notified = new ConcurrentLinkedQueue<>();
    private final AtomicInteger queued = new AtomicInteger();
    private final ArrayDeque<Collection> awaitingJfr = new ArrayDeque<>();
    private final ArrayDeque<Pause> jfrPauses = new ArrayDeque<>();
    private final Map<String, long[]> sentTotals = new HashMap<>();
    private final NotificationListener listener = this::notified;
    private boolean listening;
    // Told of each collection on the notification thread (Witnesses): must not wait.
    private volatile Runnable afterEach = () -> {};

    MemoryWatcher() {
        for (MemoryPoolMXBean p : pools) {
            if (p.getType() == MemoryType.HEAP) {
                heapPools.add(p.getName());
            }
        }
    }

    /** Runs r on the JVM's notification thread after each collection; r must return at once. */
    void afterEachCollection(Runnable r) {
        afterEach = r;
    }

    /** Listens to the collectors' notifications. */
    void start() {
        if (listening) {
            return;
        }
        for (GarbageCollectorMXBean gc : collectors) {
            if (gc instanceof NotificationEmitter e) {
                e.addNotificationListener(listener, null, null);
            }
        }
        listening = true;
    }

    void stop() {
        if (!listening) {
            return;
        }
        for (GarbageCollectorMXBean gc : collectors) {
            if (gc instanceof NotificationEmitter e) {
                try {
                    e.removeNotificationListener(listener);
                } catch (Exception ex) {
                    // not registered
                }
            }
        }
        listening = false;
        notified.clear();
        queued.set(0);
    }

    /** On the JVM's notification thread: reads the collection and queues it, nothing more. */
    private void notified(Notification n, Object handback) {
        if (!GarbageCollectionNotificationInfo.GARBAGE_COLLECTION_NOTIFICATION.equals(n.getType())) {
            return;
        }
        afterEach.run();
        if (queued.get() >= MAX_QUEUED) {
            return;
        }
        GarbageCollectionNotificationInfo info = GarbageCollectionNotificationInfo.from((CompositeData) n.getUserData());
        GcInfo gi = info.getGcInfo();
        long before = heapUsed(gi.getMemoryUsageBeforeGc(), false);
        long after = heapUsed(gi.getMemoryUsageAfterGc(), false);
        long committed = heapUsed(gi.getMemoryUsageAfterGc(), true);
        long start = jvmStart + gi.getStartTime() * 1_000_000L;
        long end = jvmStart + gi.getEndTime() * 1_000_000L;
        notified.add(new Collection(info.getGcName(), info.getGcCause(), start, end, gi.getDuration() * 1_000_000L, before,
                after, committed, gi.getId(), Collector.now()));
        queued.incrementAndGet();
    }

    private long heapUsed(Map<String, MemoryUsage> byPool, boolean committed) {
        long sum = 0;
        for (Map.Entry<String, MemoryUsage> e : byPool.entrySet()) {
            if (heapPools.contains(e.getKey())) {
                sum += committed ? e.getValue().getCommitted() : e.getValue().getUsed();
            }
        }
        return sum;
    }

    /** JFR's record of a collection (jdk.GarbageCollection). */
    void jfrCollection(long start, long pause) {
        if (jfrPauses.size() >= 256) {
            jfrPauses.pollFirst();
        }
        jfrPauses.addLast(new Pause(start, pause));
    }

    /** Sends the collections due (all of them, at the end of a run), then the totals and pools as of now. */
    void report(long now, TraceEncoder enc, boolean all) {
        for (Collection c; (c = notified.poll()) != null;) {
            queued.decrementAndGet();
            awaitingJfr.addLast(c);
        }
        for (Iterator<Collection> it = awaitingJfr.iterator(); it.hasNext();) {
            Collection c = it.next();
            Pause p = takePause(c.start());
            if (p != null || all || now - c.notifiedAt() > JFR_WAIT) {
                it.remove();
                enc.collection(c.end(), c.collector(), c.cause(), p != null ? p.pause() : c.pause(), c.before(), c.after(),
                        c.committed(), c.sequence());
            }
        }
        for (GarbageCollectorMXBean gc : collectors) {
            long count = gc.getCollectionCount();
            long time = gc.getCollectionTime();
            long[] sent = sentTotals.get(gc.getName());
            if (count >= 0 && (sent == null || sent[0] != count || sent[1] != time)) {
                sentTotals.put(gc.getName(), new long[] {count, time});
                enc.gcTotals(now, gc.getName(), count, Math.max(time, 0) * 1_000_000L);
            }
        }
        for (MemoryPoolMXBean p : pools) {
            if (!p.isValid()) {
                continue;
            }
            MemoryUsage u = p.getUsage();
            if (u != null) {
                enc.memoryPool(now, p.getName(), p.getType() == MemoryType.HEAP, u.getUsed(), u.getCommitted(), u.getMax());
            }
        }
    }

    /** JFR's pause of the collection that started at start, if JFR reported it. */
    private Pause takePause(long start) {
        Pause best = null;
        for (Pause p : jfrPauses) {
            long d = Math.abs(p.start() - start);
            if (d <= SAME_START && (best == null || d < Math.abs(best.start() - start))) {
                best = p;
            }
        }
        if (best != null) {
            jfrPauses.remove(best);
        }
        return best;
    }
}
