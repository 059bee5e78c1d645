package io.proftop.agent;

/**
 * A JFR field's per-second sums (jfr:EVENT#FIELD's "EVENT FIELD/s"): each
 * event counts in the second it ended in, by its own time, not in the poll
 * that happened to receive it, since JFR delivers what was recorded about a
 * second late, in batches whose span follows the JVM's pauses. A second is
 * handed out once it is complete: once the recording is known to have
 * delivered everything that ended before the second's end (the horizon:
 * a later event of the application's, or a flush of JFR's that began after
 * it). A second without events is a 0.
 *
 * An event that ends in a second already handed out (one that was being
 * written while JFR flushed) counts in the first second not yet handed
 * out, so that the sums keep every event. Bounded: at most MAX_PENDING
 * seconds with events wait; at most MAX_ZEROS seconds of silence in a row
 * are handed out, the older ones skipped.
 */
final class PerSecond {
    static final int MAX_PENDING = 64;
    static final int MAX_ZEROS = 300;
    private static final long SECOND = 1_000_000_000L;

    /** What receives a complete second: its start (epoch seconds) and its sum. */
    interface Sink {
        void second(long second, double sum);
    }

    // The seconds with events not yet handed out, in ascending order, and their sums.
    private final long[] seconds = new long[MAX_PENDING];
    private final double[] sums = new double[MAX_PENDING];
    private int pending;
    /** The first second not yet handed out; NONE before it is known. */
    private long next = NONE;
    static final long NONE = Long.MIN_VALUE;

    /** The second a time (epoch ns) falls in. */
    static long secondOf(long nanos) {
        return Math.floorDiv(nanos, SECOND);
    }

    /** The first second that begins at or after a time: the first whole second after it. */
    static long secondAfter(long nanos) {
        return Math.floorDiv(nanos + SECOND - 1, SECOND);
    }

    /** Forgets everything: a new recording starts. */
    void reset() {
        pending = 0;
        next = NONE;
    }

    /**
     * Counts an event that ended at end (epoch ns). The first event fixes
     * the first second handed out: its own, or first, when that is later
     * (the first second the recording saw whole); an event before that is
     * not counted, its second having been seen in part.
     */
    void add(long end, double value, long first) {
        long s = secondOf(end);
        if (next == NONE) {
            next = Math.max(s, first);
        }
        if (s < next) {
            if (s < first) {
                return;
            }
            s = next; // late: its own second is gone
        }
        int i = pending;
        while (i > 0 && seconds[i - 1] > s) {
            i--;
        }
        if (i > 0 && seconds[i - 1] == s) {
            sums[i - 1] += value;
            return;
        }
        if (pending == MAX_PENDING) {
            // The recording has stopped saying what it delivered: the newest second takes it.
            sums[pending - 1] += value;
            return;
        }
        System.arraycopy(seconds, i, seconds, i + 1, pending - i);
        System.arraycopy(sums, i, sums, i + 1, pending - i);
        seconds[i] = s;
        sums[i] = value;
        pending++;
    }

    /** Hands out, in order, every second that ends at or before horizon (epoch ns), once. */
    void complete(long horizon, Sink out) {
        if (next == NONE) {
            return;
        }
        long end = secondOf(horizon); // seconds before end are complete
        while (next < end) {
            if (pending > 0 && seconds[0] == next) {
                out.second(next, sums[0]);
                pending--;
                System.arraycopy(seconds, 1, seconds, 0, pending);
                System.arraycopy(sums, 1, sums, 0, pending);
                next++;
                continue;
            }
            long until = pending > 0 ? Math.min(seconds[0], end) : end;
            if (until - next > MAX_ZEROS) {
                next = until - MAX_ZEROS;
            }
            for (; next < until; next++) {
                out.second(next, 0);
            }
        }
    }
}
