package io.proftop.agent;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.function.Supplier;

import jdk.jfr.consumer.RecordedEvent;

/**
 * Probes (TelemetryChoice.Probe): the durations of the application's JFR
 * events, as JProfiler's probes time what the application does. Between
 * two polls each event is counted under its probe, the value of the
 * probe's field (its group: a task's state, a query's name) and the stack
 * it was committed at, when JFR records one; at the poll each of those
 * goes out as one probe message: count, total and longest duration.
 * Bounded: at most MAX_RECORDS of them an interval, the rest counted under
 * OTHER with no stack.
 */
final class Probes {
    static final int MAX_RECORDS = 1024;
    /** Frames kept of a stack: the hot spot is where the event was committed, and a little above. */
    static final int MAX_FRAMES = 16;
    static final String OTHER = "(other groups)";

    private record Key(String probe, String group, List<TraceEncoder.Frame> stack) {}

    private static final class Record {
        long count, total, max;
    }

    private List<TelemetryChoice.Probe> probes = List.of();
    private final Map<Key, Record> interval = new LinkedHashMap<>();
    private final Map<String, String> fieldProblems = new HashMap<>();
    private final Map<String, Boolean> seen = new HashMap<>();

    void choose(List<TelemetryChoice.Probe> p) {
        probes = p;
        interval.clear();
        fieldProblems.clear();
        seen.clear();
    }

    /** An event of the application's (under the collector's lock). */
    void onEvent(String event, RecordedEvent e) {
        for (TelemetryChoice.Probe p : probes) {
            if (!p.event().equals(event)) {
                continue;
            }
            seen.put(p.spec(), Boolean.TRUE);
            String group = "";
            if (p.field() != null) {
                if (e.getEventType().getField(p.field()) == null) {
                    fieldProblems.put(p.spec(), "event " + event + " has no field " + p.field());
                    continue;
                }
                fieldProblems.remove(p.spec());
                Object v = e.getValue(p.field());
                group = String.valueOf(v);
            }
            List<TraceEncoder.Frame> stack = Collector.frames(e.getStackTrace());
            if (stack.size() > MAX_FRAMES) {
                stack = new ArrayList<>(stack.subList(0, MAX_FRAMES));
            }
            Key k = new Key(p.spec(), group, stack);
            Record r = interval.get(k);
            if (r == null) {
                if (interval.size() >= MAX_RECORDS) {
                    k = new Key(p.spec(), OTHER, List.of());
                    r = interval.get(k);
                }
                if (r == null) {
                    r = new Record();
                    interval.put(k, r);
                }
            }
            long d = Math.max(e.getDuration().toNanos(), 0);
            r.count++;
            r.total += d;
            r.max = Math.max(r.max, d);
        }
    }

    /** Sends the interval's records and puts the probes' problems among the poll's. */
    void report(long now, TraceEncoder enc, Map<String, String> problems, Supplier<Set<String>> registered) {
        for (Map.Entry<Key, Record> en : interval.entrySet()) {
            Key k = en.getKey();
            Record r = en.getValue();
            enc.custom(Convention.probe(now, k.probe(), k.group(), r.count, r.total, r.max, k.stack()));
        }
        interval.clear();
        problems.putAll(fieldProblems);
        Set<String> names = null;
        for (TelemetryChoice.Probe p : probes) {
            if (seen.containsKey(p.spec())) {
                continue;
            }
            if (names == null) {
                names = Objects.requireNonNull(registered.get());
            }
            if (!names.contains(p.event())) {
                problems.put(p.spec(), "no event " + p.event() + " is registered in this JVM (yet): its class is not loaded, or the name is wrong");
            }
        }
    }
}
