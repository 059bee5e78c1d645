package io.proftop.agent;

import java.util.ArrayDeque;
import java.util.Iterator;
import java.util.List;

/**
 * What can give an address to another object: a monitor deflated (its
 * address free for another object's monitor), counted at each poll by
 * the JVM's own counter where it has one; a collection that moves objects,
 * counted at each poll and timed exactly by JFR. Between two moments
 * nothing happened when the counts at the polls around them agree, or,
 * for objects, when JFR has delivered its collections past them and none
 * fell in between.
 *
 * G1's concurrent cycle moves nothing (its remark and cleanup pauses mark
 * and count; the evacuations within it are young collections of their
 * own), yet JFR reports it as one collection lasting the whole cycle, and
 * JDK 20 and later count its pauses on a collector of their own: taken
 * for a move, a cycle of 100 ms would part every lock's events across it.
 */
final class Epochs {
    private static final int KEPT = 64;
    /** How long after an event JFR must have delivered to be sure no collection that overlaps it is still to come. */
    private static final long SETTLED = 1_000_000_000L;
    private final PerfCounters deflations = PerfCounters.open("sun.rt._sync_Deflations");
    private final List<java.lang.management.GarbageCollectorMXBean> gcs =
            java.lang.management.ManagementFactory.getGarbageCollectorMXBeans();
    private final ArrayDeque<long[]> marks = new ArrayDeque<>(); // {time, deflations, collections}
    private final ArrayDeque<long[]> collections = new ArrayDeque<>(); // {start, end}, as JFR reported them
    private long collectionsSince = Long.MAX_VALUE; // JFR's collections are known from this time on
    // Where the JVM has no deflation counter: JFR's deflations, and
    // from when they are known.
    private final ArrayDeque<Long> deflated = new ArrayDeque<>();
    private long deflationsSince = Long.MAX_VALUE;
    private long reached;

    /** JFR's name (jdk.GarbageCollection's) of G1's concurrent cycle, which moves nothing. */
    static final String G1_CONCURRENT_CYCLE = "G1Old";
    /** The collector (GarbageCollectorMXBean) that counts the pauses of G1's concurrent cycle, JDK 20 and later. */
    static final String G1_CONCURRENT_COLLECTOR = "G1 Concurrent GC";

    void polled(long at) {
        long n = 0;
        for (var gc : gcs) {
            if (!gc.getName().equals(G1_CONCURRENT_COLLECTOR)) {
                n += Math.max(gc.getCollectionCount(), 0);
            }
        }
        if (marks.size() >= KEPT) {
            marks.pollFirst();
        }
        marks.addLast(new long[] {at, deflations.value(), n});
    }

    /** JFR reported a collection, named as jdk.GarbageCollection names it: objects may have moved in [start, end]. */
    void collection(String name, long start, long end) {
        if (G1_CONCURRENT_CYCLE.equals(name)) {
            return;
        }
        collectionsSince = Math.min(collectionsSince, start);
        if (collections.size() >= 1024) {
            collections.pollFirst();
            collectionsSince = collections.peekFirst()[0];
        }
        // Kept in the order they ended, which collectedDuring relies on.
        ArrayDeque<long[]> later = new ArrayDeque<>();
        while (!collections.isEmpty() && collections.peekLast()[1] > end) {
            later.addFirst(collections.pollLast());
        }
        collections.addLast(new long[] {start, end});
        collections.addAll(later);
    }

    /** Whether the JVM counts its monitor deflations (JDK 23 and earlier): else JFR must tell them. */
    boolean countsDeflations() {
        return deflations.value() >= 0;
    }

    /** JFR reported a monitor deflated at this time: its address may serve another lock from then on. */
    void deflation(long at) {
        deflationsSince = Math.min(deflationsSince, at);
        if (deflated.size() >= 1024) {
            deflated.pollFirst();
            deflationsSince = deflated.peekFirst();
        }
        // Kept in time order, which unchanged relies on.
        ArrayDeque<Long> later = new ArrayDeque<>();
        while (!deflated.isEmpty() && deflated.peekLast() > at) {
            later.addFirst(deflated.pollLast());
        }
        deflated.addLast(at);
        deflated.addAll(later);
    }

    void reached(long time) {
        deflationsSince = Math.min(deflationsSince, time);
        reached = Math.max(reached, time);
        // JFR delivers collections as they end: from the first event
        // on, every collection after it is known.
        collectionsSince = Math.min(collectionsSince, time);
    }

    /**
     * Whether a collection JFR has told of, or one it has not told of yet,
     * may lie between two moments: an address seen at both may name two
     * objects. (Unlike unchanged, no answer waits for JFR to settle: a
     * collection that ended before to and is not told yet is missed.)
     */
    boolean mayHaveMoved(long from, long to) {
        if (from < collectionsSince) {
            return true;
        }
        return collectedDuring(from, to);
    }

    /**
     * Whether a collection JFR told of overlaps [from, to]. They come in the
     * order they ended (the stream is ordered), so the search goes back from
     * the latest and stops at the first that ended before from: a check
     * costs the collections since from, not all those kept.
     */
    private boolean collectedDuring(long from, long to) {
        for (Iterator<long[]> it = collections.descendingIterator(); it.hasNext();) {
            long[] c = it.next();
            if (c[1] < from) {
                return false;
            }
            if (c[0] <= to) {
                return true;
            }
        }
        return false;
    }

    /**
     * Whether whatever unchanged says of a span ending at t is final: JFR
     * has delivered well past t (every collection and deflation before it
     * told) and a poll came after it.
     */
    boolean settled(long t) {
        long[] last = marks.peekLast();
        return reached >= t + SETTLED && last != null && last[0] >= t;
    }

    /** How far JFR has delivered its events: the end of the latest (ns since the epoch, JFR's clock). */
    long reached() {
        return reached;
    }

    /** Whether nothing could rename an address of this space between from and to. */
    boolean unchanged(Contentions.Space space, long from, long to) {
        long[] before = null;
        long[] after = null;
        for (long[] m : marks) {
            if (m[0] <= from) {
                before = m;
            }
            if (m[0] >= to && after == null) {
                after = m;
            }
        }
        int i = space == Contentions.Space.MONITOR ? 1 : 2;
        if (before != null && after != null && before[i] >= 0 && before[i] == after[i]) {
            return true;
        }
        if (space == Contentions.Space.MONITOR) {
            if (countsDeflations() || from < deflationsSince || reached < to + SETTLED) {
                return false;
            }
            // In the order they came, the latest last: back to from at most.
            for (Iterator<Long> it = deflated.descendingIterator(); it.hasNext();) {
                long d = it.next();
                if (d < from) {
                    return true;
                }
                if (d <= to) {
                    return false;
                }
            }
            return true;
        }
        if (from < collectionsSince || reached < to + SETTLED) {
            return false;
        }
        return !collectedDuring(from, to);
    }
}
