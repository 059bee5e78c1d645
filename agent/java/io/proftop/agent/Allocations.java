package io.proftop.agent;

import java.lang.management.ManagementFactory;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import jdk.jfr.consumer.RecordedClass;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordedThread;
import jdk.jfr.consumer.RecordingStream;

/**
 * What JFR saw allocated, by class: jdk.ObjectAllocationSample (throttled
 * by JFR to a few samples a second, each weighted by the bytes allocated
 * since the thread's previous sample) summed per class and sent as
 * allocation events when a batch of JFR's events has been read. JFR samples
 * by size, so counts are unknown (-1) and bytes are estimates.
 * Called under the collector's lock.
 */
final class Allocations {
    /** JFR's default throttle (default.jfc): cheap enough to leave on. */
    static final String THROTTLE = "150/s";

    /** The classes kept between two reports, at most. */
    private static final int MAX_CLASSES = 1000;

    private final Map<String, long[]> bytesByClass = new LinkedHashMap<>();

    /**
     * The threads alive when the recording began that have had no sample
     * in it yet. A sample weighs what its thread allocated since the
     * thread's previous sample, whenever that was: since the thread
     * started, when no recording took these samples before (attached to a
     * JVM allocating 1.2 GB/s for 12 s, the first second read 14.7 GB), or
     * since the last sample of an earlier recording (attached again 6 s
     * after the first: 6.1 GB). Such a thread's first sample counts from
     * before the recording, by an amount nothing tells: it is left out,
     * and what the thread allocated from the recording's start to that
     * sample with it: milliseconds of a thread sampled often, seconds
     * where hundreds of threads share the throttle's 150 samples a second.
     * A thread started since counts from its start: all of it is in the
     * recording. A virtual thread's samples weigh its carrier's
     * allocation, and a carrier's first one is not told apart.
     */
    private Set<Long> unsampledSinceStart = Set.of();

    void enable(RecordingStream rs) {
        rs.enable("jdk.ObjectAllocationSample").with("throttle", THROTTLE);
        unsampledSinceStart = new HashSet<>();
        for (long id : ManagementFactory.getThreadMXBean().getAllThreadIds()) {
            unsampledSinceStart.add(id);
        }
    }

    /** A sample's weight: 0 for the first of a thread alive when the recording began. */
    long weight(RecordedEvent e) {
        if (!unsampledSinceStart.isEmpty()) {
            RecordedThread t = e.getThread("eventThread");
            if (t != null && unsampledSinceStart.remove(t.getJavaThreadId())) {
                return 0;
            }
        }
        return Math.max(e.getLong("weight"), 0);
    }

    /** Adds one sample's estimate. */
    void add(RecordedEvent e) {
        RecordedClass c = e.getClass("objectClass");
        String name = c == null ? "" : readable(Names.dumpName(c.getName()));
        long[] sum = bytesByClass.get(name);
        if (sum == null) {
            if (bytesByClass.size() >= MAX_CLASSES) {
                name = "(other classes)";
                sum = bytesByClass.get(name);
            }
            if (sum == null) {
                sum = new long[1];
                bytesByClass.put(name, sum);
            }
        }
        sum[0] += weight(e);
    }

    /** A class as Java source names it: "[B" is "byte[]", "[Ljava.lang.String;" "java.lang.String[]". */
    static String readable(String name) {
        int dims = 0;
        while (dims < name.length() && name.charAt(dims) == '[') {
            dims++;
        }
        if (dims == 0) {
            return name;
        }
        String base = name.substring(dims);
        base = switch (base) {
            case "B" -> "byte";
            case "C" -> "char";
            case "S" -> "short";
            case "I" -> "int";
            case "J" -> "long";
            case "F" -> "float";
            case "D" -> "double";
            case "Z" -> "boolean";
            default -> base.startsWith("L") && base.endsWith(";") ? base.substring(1, base.length() - 1) : base;
        };
        return base.replace('/', '.') + "[]".repeat(dims);
    }

    /** Sends the sums since the last report. */
    void report(long now, TraceEncoder enc) {
        for (Map.Entry<String, long[]> s : bytesByClass.entrySet()) {
            enc.allocation(now, s.getKey(), -1, s.getValue()[0]);
        }
        bytesByClass.clear();
    }
}
