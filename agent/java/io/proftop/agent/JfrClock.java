package io.proftop.agent;

import java.util.function.Consumer;

import jdk.jfr.consumer.RecordingStream;

/**
 * How JFR's clock relates to the wall clock the polls read: a tiny event
 * of the agent's own, committed once a poll with the wall clock's time
 * in it, comes back with JFR's. They agree within microseconds, but a
 * clock stepped or slewed in between would move JFR's times against the
 * poll's; measured, it cannot.
 */
final class JfrClock {
    private long offset; // JFR's time minus the wall clock's, ns

    void enable(RecordingStream rs, Consumer<Runnable> underLock) {
        rs.enable(ClockMark.NAME);
        rs.onEvent(ClockMark.NAME, e -> underLock.accept(() -> offset = Collector.nanos(e.getStartTime()) - e.getLong("wall")));
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
