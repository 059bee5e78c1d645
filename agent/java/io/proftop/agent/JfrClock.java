package io.proftop.agent;

import java.util.function.Consumer;

import jdk.jfr.consumer.RecordingStream;

/**
 * How JFR's clock relates to the wall clock the polls read: a tiny event
 * of the agent's own, committed once a poll with the wall clock's time
 * in it, comes back with JFR's. They agree within microseconds, but a
 * clock stepped or slewed in between would move JFR's times against the
 * poll's; measured, it cannot.
 *
 * The wall clock is read just after the event begins: a thread preempted
 * in between (on a busy machine, for milliseconds) reads it late, which
 * makes that mark's offset too low, never too high. So the offset is the
 * highest of the latest few marks.
 */
final class JfrClock {
    /** Marks whose highest offset is taken: one a poll, so some 16 s of them. */
    private static final int MARKS = 16;
    private final long[] offsets = new long[MARKS]; // JFR's time minus the wall clock's, ns
    private int marks;
    private long offset;

    void enable(RecordingStream rs, Consumer<Runnable> underLock) {
        rs.enable(ClockMark.NAME);
        rs.onEvent(ClockMark.NAME, e -> underLock.accept(() -> marked(Collector.nanos(e.getStartTime()) - e.getLong("wall"))));
    }

    private void marked(long o) {
        offsets[marks++ % MARKS] = o;
        long best = Long.MIN_VALUE;
        for (int i = 0; i < Math.min(marks, MARKS); i++) {
            best = Math.max(best, offsets[i]);
        }
        offset = best;
    }

    void mark() {
        ClockMark m = new ClockMark();
        m.begin();
        m.wall = Collector.now();
        m.commit();
    }

    /** A wall-clock time in JFR's clock. */
    long toJfr(long wall) {
        return wall + offset;
    }
}
