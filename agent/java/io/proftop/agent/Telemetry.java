package io.proftop.agent;

import java.lang.management.ClassLoadingMXBean;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.lang.management.OperatingSystemMXBean;
import java.lang.management.ThreadMXBean;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;

import javax.management.AttributeNotFoundException;
import javax.management.InstanceNotFoundException;
import javax.management.MBeanServer;
import javax.management.ObjectName;
import javax.management.openmbean.CompositeData;

import jdk.jfr.DataAmount;
import jdk.jfr.EventType;
import jdk.jfr.FlightRecorder;
import jdk.jfr.Percentage;
import jdk.jfr.Timespan;
import jdk.jfr.ValueDescriptor;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordingStream;

/**
 * Telemetry, sent at each poll in proftop's custom convention (Convention):
 * the JVM's standard series (threads, classes, CPU load, GC activity,
 * allocation rate, open files; the memory pools go as memoryPool messages,
 * from which the client derives theirs), and the series the user chose
 * (TelemetryChoice): MBean attributes, read at each poll (a pattern is
 * resolved each time: MBeans come and go), and numeric fields of the
 * application's JFR events, summed per second by the events' own time
 * (PerSecond) and sent as each second is complete. A series is declared
 * once a stream; a spec that cannot be read says why in a telemetryProblem,
 * and again, empty, when it can. Bounded: at most MAX_SERIES of the user's.
 */
final class Telemetry {
    /** The user's series, all specs together; more are said to be beyond the bound. */
    static final int MAX_SERIES = 256;
    /** How long a poll waits for the MBeans the user chose: an MBean is the application's code, and may hang. */
    private static final long JMX_WAIT_MS = 500;
    /** JFR's event at each flush: what began before it has been delivered once it is. */
    static final String FLUSH = "jdk.Flush";

    /** One value of a series, with what its declaration says; spec is the user's that asked for it, null for the JVM's. */
    record Value(String name, String unit, double divisor, long value, String spec) {
        Value(String name, String unit, double divisor, long value) {
            this(name, unit, divisor, value, null);
        }
    }

    /** What a poll read off the collector's lock: the JVM's series, the MBeans', and what went wrong with the latter. */
    record Reading(List<Value> values, Map<String, String> problems) {}

    private TelemetryChoice choice = TelemetryChoice.NONE;
    private final Map<String, Long> declared = new HashMap<>();
    private int userDeclared; // the user's series among the declared
    private final Map<String, String> toldProblems = new HashMap<>();
    private final Set<String> beyondBound = new java.util.HashSet<>(); // specs whose series the bound kept out since the last report
    private final Probes probes = new Probes();
    private ExecutorService jmxReader;
    private Future<Reading> pendingJmx; // a read that has not finished by its poll

    // The JVM's figures at the previous poll, for rates.
    private final ThreadMXBean threads = ManagementFactory.getThreadMXBean();
    private final ClassLoadingMXBean classes = ManagementFactory.getClassLoadingMXBean();
    private final OperatingSystemMXBean os = ManagementFactory.getOperatingSystemMXBean();
    private final List<GarbageCollectorMXBean> collectors = ManagementFactory.getGarbageCollectorMXBeans();
    private long lastAt;
    private long lastGcMillis = -1;
    private Map<Long, Long> lastAllocated = new HashMap<>();

    // The user's JFR fields: their sums by second, and their latest values.
    private final Map<String, FieldState> fields = new LinkedHashMap<>();
    // What the recording has delivered: everything that ended before horizon
    // (epoch ns; 0 before the first event), and the first second it saw whole.
    private long horizon;
    private long firstSecond = PerSecond.NONE;

    /** A JFR field's sums by second and latest value, in the series' scale. */
    private static final class FieldState {
        final TelemetryChoice.JfrField spec;
        String unit;
        double scale; // what a value is multiplied by: the divisor, and a unit's conversion
        double divisor;
        final PerSecond perSecond = new PerSecond();
        long last;
        boolean seen, typed;
        String problem;

        FieldState(TelemetryChoice.JfrField spec) {
            this.spec = spec;
        }
    }

    /** The user's choice, from the next start on; the series already declared stay so. */
    void choose(TelemetryChoice c) {
        choice = c;
        fields.clear();
        for (TelemetryChoice.JfrField f : c.jfr) {
            fields.put(f.spec(), new FieldState(f));
        }
        probes.choose(c.probes);
    }

    void start() {
        jmxReader = Executors.newSingleThreadExecutor(r -> Collector.daemon(r, "proftop-jmx"));
        pendingJmx = null;
        lastAt = 0;
        lastGcMillis = -1;
        lastAllocated = new HashMap<>();
        horizon = 0;
        firstSecond = PerSecond.NONE;
        for (FieldState f : fields.values()) {
            f.perSecond.reset();
        }
    }

    void stop() {
        if (jmxReader != null) {
            jmxReader.shutdownNow();
            jmxReader = null;
        }
    }

    /** Subscribes the recording to the application's events the choice needs. */
    void enable(RecordingStream rs, Consumer<Runnable> handle) {
        for (String event : choice.events()) {
            boolean probed = choice.probes.stream().anyMatch(p -> p.event().equals(event));
            var settings = rs.enable(event).withoutThreshold();
            if (probed) {
                settings.withStackTrace();
            }
            rs.onEvent(event, e -> handle.accept(() -> onEvent(event, e)));
        }
        if (!fields.isEmpty()) {
            // A flush's event comes after what it flushed (the stream is
            // ordered): its start is a horizon even while the application
            // commits nothing. One small event a second.
            rs.enable(FLUSH).withoutThreshold();
            rs.onEvent(FLUSH, e -> handle.accept(() -> delivered(Collector.nanos(e.getStartTime()))));
        }
    }

    /** The recording has delivered everything that ended before t. */
    private void delivered(long t) {
        if (firstSecond == PerSecond.NONE) {
            firstSecond = PerSecond.secondAfter(t); // the recording began before t, at some moment in a second before it
        }
        horizon = Math.max(horizon, t);
    }

    /** Why the application's events of a type could not be read, by event: a problem of every spec on it. */
    private final Map<String, String> eventFailures = new HashMap<>();

    /** One of the application's events (under the collector's lock). */
    private void onEvent(String event, RecordedEvent e) {
        try {
            // The stream is ordered: an event comes after every one that ended before it.
            delivered(Collector.nanos(e.getEndTime()));
            for (FieldState f : fields.values()) {
                if (f.spec.event().equals(event)) {
                    field(f, e);
                }
            }
            probes.onEvent(event, e);
        } catch (RuntimeException ex) {
            // The application's event is not what was expected: said, and monitoring goes on.
            eventFailures.put(event, "reading event " + event + " failed: " + ex);
        }
    }

    private void field(FieldState f, RecordedEvent e) {
        if (!f.typed) {
            ValueDescriptor vd = e.getEventType().getField(f.spec.field());
            if (vd == null) {
                f.problem = "event " + f.spec.event() + " has no field " + f.spec.field() + " (it has " + fieldNames(e.getEventType()) + ")";
                return;
            }
            if (!isNumber(vd.getTypeName())) {
                f.problem = "field " + f.spec.field() + " of " + f.spec.event() + " is a " + vd.getTypeName() + ", not a number";
                return;
            }
            f.typed = true;
            f.problem = null;
            f.unit = Convention.PLAIN;
            f.divisor = vd.getTypeName().equals("float") || vd.getTypeName().equals("double") ? 1000 : 1;
            f.scale = f.divisor;
            DataAmount amount = vd.getAnnotation(DataAmount.class);
            Percentage pct = vd.getAnnotation(Percentage.class);
            Timespan span = vd.getAnnotation(Timespan.class);
            if (amount != null && DataAmount.BYTES.equals(amount.value())) {
                f.unit = Convention.BYTES;
            } else if (pct != null) {
                f.unit = Convention.PERCENT; // a fraction: 0.25 is 25%
                f.divisor = 100;
                f.scale = 100 * 100;
            } else if (span != null && !Timespan.TICKS.equals(span.value())) {
                f.unit = Convention.MICROSECONDS;
                f.divisor = 1;
                f.scale = switch (span.value()) {
                    case Timespan.NANOSECONDS -> 0.001;
                    case Timespan.MILLISECONDS -> 1000;
                    case Timespan.SECONDS -> 1_000_000;
                    default -> 1;
                };
            }
        }
        Object v = e.getValue(f.spec.field());
        if (v instanceof Number n) {
            double x = n.doubleValue() * f.scale;
            f.perSecond.add(Collector.nanos(e.getEndTime()), x, firstSecond);
            f.last = Math.round(x);
            f.seen = true;
        }
    }

    private static boolean isNumber(String type) {
        return switch (type) {
            case "byte", "short", "int", "long", "float", "double", "char" -> true;
            default -> false;
        };
    }

    private static String fieldNames(EventType t) {
        List<String> names = new ArrayList<>();
        for (ValueDescriptor vd : t.getFields()) {
            names.add(vd.getName());
        }
        return String.join(", ", names);
    }

    /** Reads the JVM's series and the MBeans' off the collector's lock; at most JMX_WAIT_MS for the MBeans. */
    Reading read() {
        List<Value> values = standard();
        Map<String, String> problems = new HashMap<>();
        if (choice.jmx.isEmpty() || jmxReader == null) {
            return new Reading(values, problems);
        }
        try {
            if (pendingJmx == null) {
                List<TelemetryChoice.Jmx> specs = choice.jmx;
                pendingJmx = jmxReader.submit(() -> readMBeans(specs));
            }
            Reading r = pendingJmx.get(JMX_WAIT_MS, TimeUnit.MILLISECONDS);
            pendingJmx = null;
            values.addAll(r.values());
            problems.putAll(r.problems());
        } catch (TimeoutException e) {
            // Still reading: the next poll takes what it finds, or waits again.
            for (TelemetryChoice.Jmx s : choice.jmx) {
                problems.put(s.spec(), "the MBeans did not answer within " + JMX_WAIT_MS + "ms (an attribute's getter blocks?)");
            }
        } catch (Exception e) {
            pendingJmx = null;
            for (TelemetryChoice.Jmx s : choice.jmx) {
                problems.put(s.spec(), "reading the MBeans failed: " + e);
            }
        }
        return new Reading(values, problems);
    }

    /** The JVM's standard series, as JProfiler's VM telemetries show them. */
    private List<Value> standard() {
        List<Value> out = new ArrayList<>();
        long now = Collector.now();
        out.add(new Value("Live threads", Convention.PLAIN, 1, threads.getThreadCount()));
        out.add(new Value("Daemon threads", Convention.PLAIN, 1, threads.getDaemonThreadCount()));
        out.add(new Value("Classes loaded", Convention.PLAIN, 1, classes.getLoadedClassCount()));
        if (os instanceof com.sun.management.OperatingSystemMXBean sun) {
            double process = sun.getProcessCpuLoad(), machine = sun.getCpuLoad();
            if (process >= 0) {
                out.add(new Value("Process CPU load", Convention.PERCENT, 100, Math.round(process * 10_000)));
            }
            if (machine >= 0) {
                out.add(new Value("Machine CPU load", Convention.PERCENT, 100, Math.round(machine * 10_000)));
            }
        }
        long gc = 0;
        for (GarbageCollectorMXBean c : collectors) {
            gc += Math.max(c.getCollectionTime(), 0);
        }
        if (lastGcMillis >= 0 && now > lastAt) {
            double share = (gc - lastGcMillis) * 1e6 / (now - lastAt);
            out.add(new Value("GC activity", Convention.PERCENT, 100, Math.round(Math.min(Math.max(share, 0), 1) * 10_000)));
        }
        long allocated = allocatedSince(now);
        if (allocated >= 0) {
            out.add(new Value("Allocations per second", Convention.BYTES, 1, allocated));
        }
        if (os instanceof com.sun.management.UnixOperatingSystemMXBean unix) {
            out.add(new Value("Open file descriptors", Convention.PLAIN, 1, unix.getOpenFileDescriptorCount()));
        }
        lastGcMillis = gc;
        lastAt = now;
        return out;
    }

    /** Bytes the threads allocated per second since the previous poll; -1 the first time, or when the JVM cannot say. */
    private long allocatedSince(long now) {
        if (!(threads instanceof com.sun.management.ThreadMXBean sun) || !sun.isThreadAllocatedMemorySupported()
                || !sun.isThreadAllocatedMemoryEnabled()) {
            return -1;
        }
        long[] ids = sun.getAllThreadIds();
        long[] bytes = sun.getThreadAllocatedBytes(ids);
        Map<Long, Long> current = new HashMap<>(ids.length * 2);
        long delta = 0;
        for (int i = 0; i < ids.length; i++) {
            if (bytes[i] < 0) {
                continue;
            }
            current.put(ids[i], bytes[i]);
            Long before = lastAllocated.get(ids[i]);
            delta += before == null ? bytes[i] : Math.max(bytes[i] - before, 0);
        }
        boolean first = lastAllocated.isEmpty() || lastAt == 0;
        lastAllocated = current;
        if (first || now <= lastAt) {
            return -1;
        }
        return Math.round(delta * 1e9 / (now - lastAt));
    }

    /** On the proftop-jmx thread: every MBean the user's specs name now, and its value. */
    private static Reading readMBeans(List<TelemetryChoice.Jmx> specs) {
        MBeanServer mbs = ManagementFactory.getPlatformMBeanServer();
        List<Value> values = new ArrayList<>();
        Map<String, String> problems = new HashMap<>();
        for (TelemetryChoice.Jmx s : specs) {
            Set<ObjectName> names = new TreeSet<>(mbs.queryNames(s.name(), null));
            if (names.isEmpty()) {
                problems.put(s.spec(), "no MBean " + (s.name().isPattern() ? "matches " : "named ") + s.name());
                continue;
            }
            String label = s.key() == null ? s.attribute() : s.attribute() + "." + s.key();
            if (names.size() > MAX_SERIES) {
                // A pattern as wide as *:* would have every poll read thousands of attributes.
                problems.put(s.spec(), s.name() + " matches " + names.size() + " MBeans: the first " + MAX_SERIES + " are read");
                names = new TreeSet<>(names.stream().limit(MAX_SERIES).toList());
            }
            for (ObjectName name : names) {
                try {
                    Object v = mbs.getAttribute(name, s.attribute());
                    String unit = Convention.PLAIN;
                    if (v instanceof CompositeData cd) {
                        if (s.key() == null) {
                            problems.putIfAbsent(s.spec(), s.attribute() + " of " + name + " is composite: name a key, "
                                    + s.attribute() + ".KEY (its keys: " + String.join(", ", cd.getCompositeType().keySet()) + ")");
                            continue;
                        }
                        if (!cd.containsKey(s.key())) {
                            problems.putIfAbsent(s.spec(), s.attribute() + " of " + name + " has no key " + s.key() + " (its keys: "
                                    + String.join(", ", cd.getCompositeType().keySet()) + ")");
                            continue;
                        }
                        if (cd.getCompositeType().getTypeName().equals("java.lang.management.MemoryUsage")) {
                            unit = Convention.BYTES;
                        }
                        v = cd.get(s.key());
                    } else if (s.key() != null) {
                        problems.putIfAbsent(s.spec(), s.attribute() + " of " + name + " is not composite: it has no key " + s.key());
                        continue;
                    }
                    if (!(v instanceof Number n)) {
                        problems.putIfAbsent(s.spec(), label + " of " + name + " is " + (v == null ? "null" : "a " + v.getClass().getSimpleName())
                                + ", not a number");
                        continue;
                    }
                    boolean whole = n instanceof Long || n instanceof Integer || n instanceof Short || n instanceof Byte
                            || n instanceof BigInteger || n instanceof BigDecimal bd && bd.scale() <= 0;
                    double divisor = whole ? 1 : 1000;
                    values.add(new Value(label + " (" + name + ")", unit, divisor, Math.round(n.doubleValue() * divisor), s.spec()));
                } catch (AttributeNotFoundException e) {
                    problems.putIfAbsent(s.spec(), name + " has no attribute " + s.attribute());
                } catch (InstanceNotFoundException e) {
                    // gone since the query: it is not there now
                } catch (Exception e) {
                    Throwable cause = e.getCause() != null ? e.getCause() : e;
                    problems.putIfAbsent(s.spec(), "reading " + s.attribute() + " of " + name + " failed: " + cause);
                }
            }
        }
        return new Reading(values, problems);
    }

    /** Sends the JFR fields' seconds the recording has delivered whole (at each of its flushes, and each poll). */
    void sendSeconds(long now, TraceEncoder enc) {
        for (FieldState f : fields.values()) {
            if (!f.typed) {
                continue;
            }
            String name = f.spec.event() + " " + f.spec.field() + "/s";
            f.perSecond.complete(horizon, (second, sum) -> {
                // At the second's end, as a rate is told at the end of what it measures.
                long at = (second + 1) * 1_000_000_000L;
                send(now, at, new Value(name, f.unit, f.divisor, Math.round(sum), f.spec.spec()), enc);
            });
        }
    }

    /** Sends what a poll read, the JFR fields' latest values and complete seconds, the probes' records, and what changed of the problems. */
    void report(long now, Reading r, TraceEncoder enc) {
        Map<String, String> problems = new HashMap<>(r.problems());
        for (Value v : r.values()) {
            send(now, now, v, enc);
        }
        sendSeconds(now, enc);
        Set<String> registered = null;
        for (FieldState f : fields.values()) {
            if (!f.typed) {
                if (f.problem == null) {
                    if (registered == null) {
                        registered = registeredEvents();
                    }
                    if (!registered.contains(f.spec.event())) {
                        problems.put(f.spec.spec(), "no event " + f.spec.event() + " is registered in this JVM (yet): its class is not loaded, or the name is wrong");
                    }
                } else {
                    problems.put(f.spec.spec(), f.problem);
                }
                continue;
            }
            if (f.seen) {
                send(now, now, new Value(f.spec.event() + " " + f.spec.field(), f.unit, f.divisor, f.last, f.spec.spec()), enc);
            }
        }
        for (String spec : beyondBound) {
            problems.putIfAbsent(spec, "not every series sent: this agent sends at most " + MAX_SERIES + " of the application's");
        }
        beyondBound.clear();
        probes.report(now, enc, problems, Telemetry::registeredEvents);
        for (Map.Entry<String, String> f : eventFailures.entrySet()) {
            for (TelemetryChoice.JfrField s : choice.jfr) {
                if (s.event().equals(f.getKey())) {
                    problems.putIfAbsent(s.spec(), f.getValue());
                }
            }
            for (TelemetryChoice.Probe s : choice.probes) {
                if (s.event().equals(f.getKey())) {
                    problems.putIfAbsent(s.spec(), f.getValue());
                }
            }
        }
        eventFailures.clear();
        for (Map.Entry<String, String> p : problems.entrySet()) {
            if (!p.getValue().equals(toldProblems.get(p.getKey()))) {
                enc.custom(Convention.problem(now, p.getKey(), p.getValue()));
            }
        }
        for (String spec : toldProblems.keySet()) {
            if (!problems.containsKey(spec)) {
                enc.custom(Convention.problem(now, spec, ""));
            }
        }
        toldProblems.clear();
        toldProblems.putAll(problems);
    }

    /** Sends a value of time at, declaring its series (now) the first time; the user's beyond the bound are not sent, and said so at the report. */
    private void send(long now, long at, Value v, TraceEncoder enc) {
        Long id = declared.get(v.name());
        if (id == null) {
            if (v.spec() != null && userDeclared >= MAX_SERIES) {
                beyondBound.add(v.spec());
                return;
            }
            id = (long) declared.size() + 1;
            declared.put(v.name(), id);
            if (v.spec() != null) {
                userDeclared++;
            }
            enc.custom(Convention.series(now, id, v.name(), v.unit(), v.divisor()));
        }
        enc.custom(Convention.value(at, id, v.value()));
    }

    /** The names of the JFR event types registered in this JVM now. */
    static Set<String> registeredEvents() {
        Set<String> out = new java.util.HashSet<>();
        for (EventType t : FlightRecorder.getFlightRecorder().getEventTypes()) {
            out.add(t.getName());
        }
        return out;
    }
}
