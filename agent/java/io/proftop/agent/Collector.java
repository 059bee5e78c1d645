package io.proftop.agent;

import java.lang.management.LockInfo;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryUsage;
import java.lang.management.ThreadInfo;
import java.lang.management.ThreadMXBean;
import java.net.InetAddress;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TimeZone;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordedFrame;
import jdk.jfr.consumer.RecordedMethod;
import jdk.jfr.consumer.RecordedStackTrace;
import jdk.jfr.consumer.RecordedThread;
import jdk.jfr.consumer.RecordingStream;

/**
 * Turns what the JVM reports into trace events, while a client watches.
 *
 * Two sources, reconciled so that nothing is reported twice:
 * <ul>
 * <li>JDK Flight Recorder event streaming: monitor contention and waits
 * (with their exact start, end and stack), thread starts and ends,
 * collections and heap summaries, execution samples. JFR delivers events
 * about a second after they happen, and a contention only once it is over.</li>
 * <li>A ThreadMXBean poll (once a second by default) for what is true now:
 * threads blocked on a monitor and its owner, threads waiting, contention
 * that began before monitoring. A deadlock never ends, so JFR never reports
 * it: the poll does, within a second.</li>
 * </ul>
 * A contention the poll has reported as begun is ended by the JFR event
 * that covers it (or by the poll when JFR stays silent); a JFR event for a
 * contention the poll never saw reports both its start and its end.
 */
final class Collector {
    static final String VERSION = "1.0";

    /** Sends encoded trace bytes to the client. */
    interface Sink {
        void send(byte[] data) throws Exception;
    }

    private final Options opts;
    private final TraceEncoder enc;
    private final Sink sink;
    private final Object lock = new Object(); // guards the encoder and every map below
    private final ThreadMXBean mx = ManagementFactory.getThreadMXBean();
    private volatile boolean stopped;
    private volatile Throwable failure;

    private RecordingStream stream;
    private Thread jfrThread;
    private ScheduledExecutorService poller;

    // Names, sent once: classDef and methodDef before first use.
    private final Map<String, Long> classIds = new HashMap<>();
    private final Map<String, Long> methodIds = new HashMap<>();
    private final Set<Long> allocated = new HashSet<>();
    // JFR names a monitor by its address, the poll by its identity hash: the
    // pairs learned from contentions both saw.
    private final Map<Long, Long> addressToObject = bounded(4096);

    private final Set<Long> announced = new HashSet<>();
    private final Map<Long, Long> missing = new HashMap<>(); // thread -> polls it was not seen in
    private final Map<Long, Open> open = new HashMap<>(); // thread -> its contention or wait in progress
    private final ArrayDeque<Open> recentlyClosed = new ArrayDeque<>();
    private final Map<Long, Map<Long, long[]>> samples = new HashMap<>(); // thread -> method -> count
    private final Map<Long, long[]> heapAfterGC = bounded(64); // gcId -> used, committed
    private final Map<Long, long[]> pendingGC = bounded(64); // gcId -> start, pause

    /** A contention or wait the poll reported as begun. */
    private static final class Open {
        final long thread;
        final long obj;
        final String className;
        final boolean waiting;
        final long since; // ns, when the poll first saw it
        long releasedAt; // ns, when the poll first saw it over; 0 while it lasts

        Open(long thread, long obj, String className, boolean waiting, long since) {
            this.thread = thread;
            this.obj = obj;
            this.className = className;
            this.waiting = waiting;
            this.since = since;
        }
    }

    Collector(Options opts, TraceEncoder enc, Sink sink) {
        this.opts = opts;
        this.enc = enc;
        this.sink = sink;
    }

    private static <K, V> Map<K, V> bounded(int max) {
        return new LinkedHashMap<>(16, 0.75f, false) {
            @Override
            protected boolean removeEldestEntry(Map.Entry<K, V> e) {
                return size() > max;
            }
        };
    }

    static long nanos(Instant t) {
        return t.getEpochSecond() * 1_000_000_000L + t.getNano();
    }

    static long now() {
        return nanos(Instant.now());
    }

    /** Agent threads and JFR's own are not the application's. */
    static boolean own(String name) {
        return name != null && (name.startsWith("proftop-") || name.startsWith("JFR "));
    }

    Throwable failure() {
        return failure;
    }

    /** Sends the picture as it is now, then follows the JVM until stop. */
    void start() {
        synchronized (lock) {
            describeProcess();
            for (Thread t : liveThreads()) {
                announce(t.getId(), t.getName(), group(t), now());
            }
            MemoryUsage heap = ManagementFactory.getMemoryMXBean().getHeapMemoryUsage();
            enc.gcFinish(now(), heap.getCommitted(), heap.getUsed(), 0);
        }
        poll();
        flush();
        poller = Executors.newSingleThreadScheduledExecutor(r -> daemon(r, "proftop-poll"));
        long every = opts.poll().toMillis();
        poller.scheduleAtFixedRate(this::tick, every, every, TimeUnit.MILLISECONDS);
        stream = new RecordingStream();
        jfrThread = daemon(this::runRecording, "proftop-jfr");
        jfrThread.start();
    }

    static Thread daemon(Runnable r, String name) {
        Thread t = new Thread(r, name);
        t.setDaemon(true);
        return t;
    }

    void stop() {
        stopped = true;
        if (poller != null) {
            poller.shutdownNow();
        }
        if (stream != null) {
            stream.close();
        }
        if (jfrThread != null) {
            try {
                jfrThread.join(2000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    private void tick() {
        try {
            poll();
            flush();
        } catch (Throwable t) {
            fail(t);
        }
    }

    /** Stops collecting on an unexpected error; the application runs on. */
    private void fail(Throwable t) {
        if (failure == null) {
            failure = t;
            if (!(t instanceof java.io.IOException)) {
                System.err.println("proftop agent: monitoring stopped by an error: " + t);
                t.printStackTrace();
            }
        }
        stopped = true;
    }

    /** Sends what was encoded. */
    void flush() {
        byte[] data;
        synchronized (lock) {
            if (enc.buffered() == 0) {
                return;
            }
            data = enc.take();
        }
        try {
            sink.send(data);
        } catch (Exception e) {
            fail(e);
        }
    }

    // --- the process -------------------------------------------------------

    private void describeProcess() {
        long now = now();
        long pid = ProcessHandle.current().pid();
        String host = hostname();
        String nodeId = "node-" + host;
        String processId = "process-" + pid;
        String agentId = "agent-" + pid;
        var runtime = ManagementFactory.getRuntimeMXBean();
        enc.node(nodeId, host, "", TimeZone.getDefault().getRawOffset() / 60_000, now);
        enc.processCreate(processId, mainClass(), (int) pid, nodeId, runtime.getStartTime() * 1_000_000L,
                ProcessHandle.current().info().command().orElse(""));
        enc.agentCreate(agentId, processId, "proftop JVM agent", "Profiler", now,
                "threshold=" + opts.threshold().toMillis() + "ms,sample=" + opts.samplePeriod().toMillis() + "ms", VERSION);
        enc.traceStart("trace-" + pid + "-" + now, agentId, now);
    }

    static String mainClass() {
        String cmd = System.getProperty("sun.java.command", "");
        int sp = cmd.indexOf(' ');
        String main = sp < 0 ? cmd : cmd.substring(0, sp);
        return main.isEmpty() ? "java" : main;
    }

    private static String hostname() {
        String env = System.getenv("HOSTNAME");
        if (env != null && !env.isEmpty()) {
            return env;
        }
        try {
            return InetAddress.getLocalHost().getHostName();
        } catch (Exception e) {
            return "localhost";
        }
    }

    // --- names --------------------------------------------------------------

    private long classId(String name, long time) {
        Long id = classIds.get(name);
        if (id == null) {
            id = (long) classIds.size() + 1;
            classIds.put(name, id);
            int dot = name.lastIndexOf('.');
            String simple = name.substring(dot + 1);
            int dollar = simple.indexOf('$');
            enc.classDef(id, time, name, (dollar < 0 ? simple : simple.substring(0, dollar)) + ".java");
        }
        return id;
    }

    private long methodId(String className, String name, String descriptor, long line, long time) {
        String key = className + '.' + name + descriptor;
        Long id = methodIds.get(key);
        if (id == null) {
            long cid = classId(className, time);
            id = (long) methodIds.size() + 1;
            methodIds.put(key, id);
            enc.methodDef(name, descriptor, line, line, cid, id);
        }
        return id;
    }

    /** The monitor's object id, announced with its class the first time. */
    private long object(long id, String className, long time) {
        if (allocated.add(id)) {
            enc.objAlloc(id, classId(className, time), time);
        }
        return id;
    }

    private void announce(long id, String name, String group, long time) {
        if (own(name) || !announced.add(id)) {
            return;
        }
        enc.threadStart(id, time, group, "", name);
    }

    private void end(long id, long time) {
        if (announced.remove(id)) {
            Open o = open.remove(id);
            if (o != null) {
                close(o, time, List.of());
            }
            samples.remove(id);
            enc.threadEnd(id, time);
        }
    }

    private static String group(Thread t) {
        ThreadGroup g = t.getThreadGroup();
        return g == null ? "" : g.getName();
    }

    private static List<Thread> liveThreads() {
        ThreadGroup root = Thread.currentThread().getThreadGroup();
        while (root.getParent() != null) {
            root = root.getParent();
        }
        Thread[] all = new Thread[root.activeCount() * 2 + 16];
        int n = root.enumerate(all, true);
        List<Thread> out = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            if (!own(all[i].getName())) {
                out.add(all[i]);
            }
        }
        return out;
    }

    // --- the poll: what is true now -------------------------------------------

    private static List<TraceEncoder.Frame> frames(StackTraceElement[] stack) {
        List<TraceEncoder.Frame> out = new ArrayList<>(stack.length);
        for (StackTraceElement e : stack) {
            out.add(new TraceEncoder.Frame(e.getClassName() + "." + e.getMethodName(), e.getLineNumber()));
        }
        return out;
    }

    private static boolean inObjectWait(ThreadInfo info) {
        StackTraceElement[] s = info.getStackTrace();
        return s.length > 0 && s[0].getClassName().equals("java.lang.Object") && s[0].getMethodName().equals("wait");
    }

    private void poll() {
        if (stopped) {
            return;
        }
        ThreadInfo[] infos = mx.dumpAllThreads(false, false, 64);
        Map<Long, String> groups = new HashMap<>();
        for (Thread t : liveThreads()) {
            groups.put(t.getId(), group(t));
        }
        long now = now();
        synchronized (lock) {
            Set<Long> seen = new HashSet<>();
            for (ThreadInfo info : infos) {
                if (info == null || own(info.getThreadName())) {
                    continue;
                }
                long id = info.getThreadId();
                seen.add(id);
                announce(id, info.getThreadName(), groups.getOrDefault(id, ""), now);
                observe(info, now);
            }
            // Threads gone from two polls in a row have ended (JFR usually says so first).
            for (Iterator<Long> it = announced.iterator(); it.hasNext();) {
                long id = it.next();
                if (seen.contains(id)) {
                    missing.remove(id);
                } else if (missing.merge(id, 1L, Long::sum) >= 2) {
                    missing.remove(id);
                    Open o = open.remove(id);
                    if (o != null) {
                        close(o, now, List.of());
                    }
                    samples.remove(id);
                    it.remove();
                    enc.threadEnd(id, now);
                }
            }
            // A contention seen over by the poll is closed by JFR's event, which
            // has its exact end; when JFR stays silent, the poll closes it.
            long grace = 3 * opts.poll().toNanos();
            for (Iterator<Open> it = open.values().iterator(); it.hasNext();) {
                Open o = it.next();
                if (o.releasedAt != 0 && now - o.releasedAt > grace) {
                    it.remove();
                    close(o, o.releasedAt, List.of());
                }
            }
        }
    }

    /** Compares a thread's state now with what was reported. */
    private void observe(ThreadInfo info, long now) {
        long id = info.getThreadId();
        LockInfo li = info.getLockInfo();
        Thread.State st = info.getThreadState();
        long owner = info.getLockOwnerId();
        boolean blocked = li != null && st == Thread.State.BLOCKED;
        // A thread parked on a java.util.concurrent lock that another thread owns
        // is blocked by that thread just the same.
        boolean parkedOnOwnedLock = li != null && owner >= 0 && owner != id
                && (st == Thread.State.WAITING || st == Thread.State.TIMED_WAITING);
        boolean waiting = li != null && owner < 0 && (st == Thread.State.WAITING || st == Thread.State.TIMED_WAITING)
                && inObjectWait(info);
        Open o = open.get(id);
        if (!blocked && !parkedOnOwnedLock && !waiting) {
            if (o != null && o.releasedAt == 0) {
                o.releasedAt = now;
            }
            return;
        }
        long obj = object(li.getIdentityHashCode(), li.getClassName(), now);
        boolean isWait = waiting;
        if (o != null && o.obj == obj && o.waiting == isWait) {
            o.releasedAt = 0; // still, or again, on the same monitor
            return;
        }
        if (o != null) {
            open.remove(id);
            close(o, now, List.of());
        }
        List<TraceEncoder.Frame> stack = frames(info.getStackTrace());
        if (isWait) {
            enc.monWait(false, id, now, obj, 0, stack);
        } else {
            enc.monContendedEnter(id, now, obj, owner >= 0 ? owner : 0, stack);
        }
        open.put(id, new Open(id, obj, li.getClassName(), isWait, now));
    }

    /** Ends a reported contention or wait at time at. */
    private void close(Open o, long at, List<TraceEncoder.Frame> stack) {
        if (o.waiting) {
            enc.monWait(true, o.thread, at, o.obj, 0, stack);
        } else {
            enc.monContendedEntered(o.thread, at, o.obj, stack);
        }
        o.releasedAt = at;
        recentlyClosed.addLast(o);
        while (recentlyClosed.size() > 1024) {
            recentlyClosed.removeFirst();
        }
    }

    // --- JFR: what happened, a second late ---------------------------------------

    private void runRecording() {
        RecordingStream rs = stream;
        try {
            rs.enable("jdk.JavaMonitorEnter").withThreshold(opts.threshold()).withStackTrace();
            rs.enable("jdk.JavaMonitorWait").withThreshold(opts.threshold()).withStackTrace();
            rs.enable("jdk.ThreadStart");
            rs.enable("jdk.ThreadEnd");
            rs.enable("jdk.GarbageCollection");
            rs.enable("jdk.GCHeapSummary");
            rs.enable("jdk.ExecutionSample").withPeriod(opts.samplePeriod());
            rs.onEvent("jdk.JavaMonitorEnter", e -> handle(() -> onContention(e, false)));
            rs.onEvent("jdk.JavaMonitorWait", e -> handle(() -> onContention(e, true)));
            rs.onEvent("jdk.ThreadStart", e -> handle(() -> onThreadStart(e)));
            rs.onEvent("jdk.ThreadEnd", e -> handle(() -> onThreadEnd(e)));
            rs.onEvent("jdk.GarbageCollection", e -> handle(() -> onCollection(e)));
            rs.onEvent("jdk.GCHeapSummary", e -> handle(() -> onHeapSummary(e)));
            rs.onEvent("jdk.ExecutionSample", e -> handle(() -> onSample(e)));
            rs.onFlush(() -> {
                handle(this::onFlush);
                flush(); // a batch's events leave together, without waiting for the poll
            });
            // start() blocks until close(), on this daemon thread: never startAsync(),
            // whose own non-daemon thread would keep a finished JVM alive.
            rs.start();
        } catch (Throwable t) {
            if (!stopped) {
                fail(t);
            }
        }
    }

    private void handle(Runnable r) {
        if (stopped) {
            return;
        }
        try {
            synchronized (lock) {
                r.run();
            }
        } catch (Throwable t) {
            fail(t);
        }
    }

    private static List<TraceEncoder.Frame> frames(RecordedStackTrace st) {
        if (st == null) {
            return List.of();
        }
        List<RecordedFrame> fs = st.getFrames();
        List<TraceEncoder.Frame> out = new ArrayList<>(fs.size());
        for (RecordedFrame f : fs) {
            RecordedMethod m = f.getMethod();
            out.add(new TraceEncoder.Frame(m.getType().getName() + "." + m.getName(), f.getLineNumber()));
        }
        return out;
    }

    private void onContention(RecordedEvent e, boolean isWait) {
        RecordedThread t = e.getThread("eventThread");
        if (t == null || own(t.getJavaName())) {
            return;
        }
        long id = t.getJavaThreadId();
        long start = nanos(e.getStartTime());
        long end = nanos(e.getEndTime());
        announce(id, t.getJavaName(), t.getThreadGroup() == null ? "" : t.getThreadGroup().getName(), start);
        String cls = e.getClass("monitorClass") == null ? "java.lang.Object" : e.getClass("monitorClass").getName();
        long address = e.getLong("address");
        List<TraceEncoder.Frame> stack = frames(e.getStackTrace());
        long slack = opts.poll().toNanos();
        Open o = open.get(id);
        if (o != null && o.waiting == isWait && o.className.equals(cls) && covers(o, start, end, slack)) {
            // The contention the poll reported as begun: JFR has its end.
            addressToObject.put(address, o.obj);
            open.remove(id);
            close(o, end, stack);
            return;
        }
        for (Open c : recentlyClosed) {
            if (c.thread == id && c.waiting == isWait && c.className.equals(cls) && covers(c, start, end, slack)) {
                addressToObject.put(address, c.obj);
                return; // the poll already reported it, begun and over
            }
        }
        long obj = object(addressToObject.getOrDefault(address, address), cls, start);
        if (isWait) {
            long timeout = e.getLong("timeout");
            enc.monWait(false, id, start, obj, timeout, stack);
            enc.monWait(true, id, end, obj, timeout, stack);
        } else {
            RecordedThread prev = e.getThread("previousOwner");
            enc.monContendedEnter(id, start, obj, prev == null ? 0 : prev.getJavaThreadId(), stack);
            enc.monContendedEntered(id, end, obj, stack);
        }
    }

    /**
     * Whether a JFR event from start to end is the contention the poll saw
     * begin at o.since. JFR's clock and the wall clock the poll reads may
     * differ a little, hence the slack on both sides.
     */
    private static boolean covers(Open o, long start, long end, long slack) {
        return o.since >= start - slack && o.since <= end + slack;
    }

    private void onThreadStart(RecordedEvent e) {
        RecordedThread t = e.getThread("thread");
        if (t != null) {
            announce(t.getJavaThreadId(), t.getJavaName(), t.getThreadGroup() == null ? "" : t.getThreadGroup().getName(),
                    nanos(e.getStartTime()));
        }
    }

    private void onThreadEnd(RecordedEvent e) {
        RecordedThread t = e.getThread("thread");
        if (t != null && !own(t.getJavaName())) {
            end(t.getJavaThreadId(), nanos(e.getStartTime()));
        }
    }

    private void onCollection(RecordedEvent e) {
        long gcId = e.getLong("gcId");
        long start = nanos(e.getStartTime());
        long pause = e.getDuration("sumOfPauses").toNanos();
        long[] heap = heapAfterGC.remove(gcId);
        if (heap == null) {
            pendingGC.put(gcId, new long[] {start, pause});
            return;
        }
        enc.gcStart(start);
        enc.gcFinish(start + pause, heap[1], heap[0], 0);
    }

    private void onHeapSummary(RecordedEvent e) {
        if (!"After GC".equals(e.getString("when"))) {
            return;
        }
        long gcId = e.getLong("gcId");
        long used = e.getLong("heapUsed");
        jdk.jfr.consumer.RecordedObject space = e.getValue("heapSpace");
        long committed = space == null ? 0 : space.getLong("committedSize");
        long[] gc = pendingGC.remove(gcId);
        if (gc == null) {
            heapAfterGC.put(gcId, new long[] {used, committed});
            return;
        }
        enc.gcStart(gc[0]);
        enc.gcFinish(gc[0] + gc[1], committed, used, 0);
    }

    private void onSample(RecordedEvent e) {
        RecordedThread t = e.getThread("sampledThread");
        RecordedStackTrace st = e.getStackTrace();
        if (t == null || st == null || st.getFrames().isEmpty() || own(t.getJavaName())) {
            return;
        }
        long time = nanos(e.getStartTime());
        long tid = t.getJavaThreadId();
        announce(tid, t.getJavaName(), t.getThreadGroup() == null ? "" : t.getThreadGroup().getName(), time);
        RecordedFrame top = st.getFrames().get(0);
        RecordedMethod m = top.getMethod();
        long mid = methodId(m.getType().getName(), m.getName(), m.getDescriptor(), top.getLineNumber(), time);
        samples.computeIfAbsent(tid, k -> new HashMap<>()).computeIfAbsent(mid, k -> new long[1])[0]++;
    }

    /**
     * JFR finished a batch: the samples become one agMethodEntry per
     * (thread, method): self and CPU time estimated as samples × period,
     * calls counted as samples, min and max not measured (-1).
     */
    private void onFlush() {
        long period = opts.samplePeriod().toNanos();
        for (var byThread : samples.entrySet()) {
            for (var byMethod : byThread.getValue().entrySet()) {
                long n = byMethod.getValue()[0];
                enc.agMethodEntry(byThread.getKey(), byMethod.getKey(), n * period, -1, -1, n * period, n);
            }
        }
        samples.clear();
    }
}
