package io.proftop.agent;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Predicate;

/**
 * Looks again, between polls, at the threads the latest poll found held up
 * by a lock: each look that JFR's record of the same contention or wait
 * covers tells which lock JFR's address for it is (see Contentions).
 *
 * Every 200 ms, at every such thread and those JFR saw park lately. And
 * after each collection, at the parked ones and those JFR saw park lately,
 * again and again 13 ms apart until every lock seen parked on lately has
 * been seen in the new stretch (or a dozen looks): a collection moves the
 * objects threads park on, so an address names its lock only from one
 * collection to the next, and a JVM collecting ten times a second needs a
 * look at each lock in each of those stretches, or its parks go out under
 * addresses nothing names. (A poll's instant catches only some of the
 * threads that park on a busy lock in turn, and threads that take two
 * locks in turn may all be on the same one at a look; JFR names every
 * thread that parks.) Each look is one ThreadMXBean call per thread
 * without a stack (no safepoint, a few microseconds); those after a
 * collection are bounded in threads and in number, locks first, one at a
 * time however fast collections come.
 */
final class Witnesses {
    /** How often every held-up thread is looked at again. */
    static final long PERIOD_MS = 200;
    /** Parked threads looked at after a collection, at most. */
    static final int PARKED_PER_COLLECTION = 256;
    /**
     * Looks after a collection, at most, and their spacing: over the first
     * 150 ms of the stretch that follows it; spaced unlike a period of 20 ms
     * or so, at which an application may alternate between two locks.
     */
    static final int LOOKS_PER_COLLECTION = 12;
    static final long LOOK_SPACING_MS = 13;
    /** Threads looked at after a collection, over all its looks: fewer looks when many threads park. */
    static final int THREAD_LOOKS_PER_COLLECTION = 1024;
    /** How long a lock seen parked on is looked for after each collection. */
    static final long WANTED_NS = 2_000_000_000L;
    private static final int MAX_WANTED = 1024;

    /** What the collector lends: its lock, with the contentions behind it. */
    interface Host {
        /** Takes witnesses, under the collector's lock, unless it stopped. */
        void witnessed(List<ThreadPoller.Witness> w);

        void failed(Throwable t);
    }

    private final ThreadPoller poller;
    private final Host host;
    // Set by the poll and the collector, read by the looks.
    private volatile List<ThreadPoller.Seen> heldUp = List.of();
    private volatile List<ThreadPoller.Seen> parked = List.of();
    private volatile long[] parkers = new long[0];
    private volatile ScheduledExecutorService scheduler;
    // Set on the notification thread: the collections so far, and whether
    // looks after one are under way (a later one then restarts them).
    private final AtomicLong collections = new AtomicLong();
    private final AtomicBoolean looking = new AtomicBoolean();
    // On the looks' thread only: the locks seen parked on lately, and, since
    // the latest collection, the looks taken and the locks seen.
    private final Map<Long, Long> wanted = Names.bounded(MAX_WANTED);
    private long stretch = -1;
    private int looksInStretch;
    private final Set<Long> seenInStretch = new HashSet<>();

    Witnesses(ThreadPoller poller, Host host) {
        this.poller = poller;
        this.host = host;
    }

    /** Looks every PERIOD_MS on s, and after each collection until stop. */
    void start(ScheduledExecutorService s) {
        scheduler = s;
        s.scheduleWithFixedDelay(() -> look(heldUp, parkers), PERIOD_MS, PERIOD_MS, TimeUnit.MILLISECONDS);
    }

    void stop() {
        scheduler = null;
    }

    /**
     * Takes the threads a poll found held up by a lock; isLock tells the
     * classes a park on which is contention, whose threads come first after
     * a collection (a wait moves too, but a lock is what users read).
     */
    void polled(List<ThreadPoller.Seen> threads, Predicate<String> isLock) {
        List<ThreadPoller.Seen> held = new ArrayList<>();
        List<ThreadPoller.Seen> onLocks = new ArrayList<>();
        List<ThreadPoller.Seen> others = new ArrayList<>();
        for (ThreadPoller.Seen s : threads) {
            if (s.lock() == 0) {
                continue;
            }
            held.add(s);
            if (s.state().equals(ThreadPoller.PARKED)) {
                (s.owner() != 0 || isLock.test(s.lockClass()) ? onLocks : others).add(s);
            }
        }
        onLocks.addAll(others);
        heldUp = held;
        parked = onLocks.size() > PARKED_PER_COLLECTION ? List.copyOf(onLocks.subList(0, PARKED_PER_COLLECTION)) : onLocks;
    }

    /** Takes the threads JFR saw park lately (Contentions.recentParkers), at most PARKED_PER_COLLECTION. */
    void parkers(long[] ids) {
        parkers = ids;
    }

    /** A collection ended (on the JVM's notification thread): starts the looks, nothing more. */
    void collected() {
        collections.incrementAndGet();
        ScheduledExecutorService s = scheduler;
        if (s == null || parked.isEmpty() && parkers.length == 0 || !looking.compareAndSet(false, true)) {
            return; // nothing parks; or the looks under way see the new stretch begin
        }
        try {
            s.execute(this::lookAfterCollection);
        } catch (RejectedExecutionException e) {
            looking.set(false); // stopping
        }
    }

    /** One look after a collection; another follows until the stretch's looks are done. */
    private void lookAfterCollection() {
        long at = collections.get();
        if (at != stretch) {
            stretch = at;
            looksInStretch = 0;
            seenInStretch.clear();
        }
        long[] more = parkers;
        List<ThreadPoller.Seen> polled = parked;
        // Within the bound, JFR's parkers first: they park now.
        List<ThreadPoller.Seen> threads = polled.subList(0, Math.min(polled.size(), Math.max(PARKED_PER_COLLECTION - more.length, 0)));
        look(threads, more);
        looksInStretch++;
        int n = Math.max(threads.size() + more.length, 1);
        if (stretchDone(n)) {
            looking.set(false);
            // A collection that came meanwhile, and found these looks under way, gets its own.
            if (collections.get() == stretch || !looking.compareAndSet(false, true)) {
                return;
            }
        }
        ScheduledExecutorService s = scheduler;
        try {
            if (s != null) {
                s.schedule(this::lookAfterCollection, collections.get() == stretch ? LOOK_SPACING_MS : 0, TimeUnit.MILLISECONDS);
                return;
            }
        } catch (RejectedExecutionException e) {
            // stopping
        }
        looking.set(false);
    }

    /** Whether the looks since the latest collection saw every lock wanted, or may look no more. */
    private boolean stretchDone(int threads) {
        if (looksInStretch >= LOOKS_PER_COLLECTION || looksInStretch * threads >= THREAD_LOOKS_PER_COLLECTION) {
            return true;
        }
        long since = System.nanoTime() - WANTED_NS;
        for (Map.Entry<Long, Long> w : wanted.entrySet()) {
            if (w.getValue() >= since && !seenInStretch.contains(w.getKey())) {
                return false;
            }
        }
        return true;
    }

    private void look(List<ThreadPoller.Seen> threads, long[] more) {
        try {
            if (scheduler == null || threads.isEmpty() && more.length == 0) {
                return;
            }
            List<ThreadPoller.Witness> w = poller.witness(threads, more);
            long now = System.nanoTime();
            for (ThreadPoller.Witness x : w) {
                // A lock parked on (owned: a lock, not a condition), to look for after each collection.
                if (x.state().equals(ThreadPoller.PARKED) || x.owner() != 0 && !x.state().equals(ThreadPoller.BLOCKED)) {
                    wanted.remove(x.lock());
                    wanted.put(x.lock(), now);
                    if (seenInStretch.size() < MAX_WANTED) {
                        seenInStretch.add(x.lock());
                    }
                }
            }
            host.witnessed(w);
        } catch (Throwable t) {
            host.failed(t);
        }
    }
}
