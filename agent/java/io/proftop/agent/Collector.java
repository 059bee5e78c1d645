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
    /** Stack frames fetched for a thread found blocked or waiting. */
    private static final int STACK_DEPTH = 64;
    /**
     * How far apart JFR's clock and the wall clock the poll reads may be:
     * a JFR event is the contention the poll saw when their times overlap
     * within this.
     */
    private static final long CLOCK_SLACK = 10_000_000L;
    /** How long a contention the poll saw over waits for JFR's event before JFR's is taken as lost. */
    private static final long FORGET_AFTER = 30_000_000_000L;
    private static final int MAX_NAMES = 1 << 16;
    /**
     * A monitor JFR has not reported for this long may have been deflated,
     * and its address reused for another object: what the address was
     * learned to name is forgotten.
     */
    private static final long ADDRESS_STALE_AFTER = 10_000_000_000L;

    /** Sends encoded trace bytes to the client; queues them, never waits for the network. */
    interface Sink {
        void send(byte[] data) throws java.io.IOException;
    }

    /** Told when collecting stopped by an error, so that the client is not left waiting. */
    interface FailureListener {
        void failed(String why);
    }

    private final Options opts;
    private final TraceEncoder enc;
    private final Sink sink;
    private final FailureListener onFailure;
    private final Object lock = new Object(); // guards the encoder, the sink's order and every map below
    private final ThreadMXBean mx = ManagementFactory.getThreadMXBean();
    private volatile boolean stopped = true;
    private volatile Throwable failure;
    private boolean begun; // the stream's preamble was sent

    // One run of the recording, from start to stop.
    private RecordingStream stream;
    private Thread jfrThread;
    private ScheduledExecutorService poller;

    // What the stream has told, kept across stop and start: names are sent
    // once (classDef and methodDef before first use), threads announced once.
    private final Map<String, Long> classIds = bounded(MAX_NAMES);
    private final Map<String, Long> methodIds = bounded(MAX_NAMES);
    private long lastClassId;
    private long lastMethodId;
    private final Map<Long, Boolean> allocated = bounded(MAX_NAMES);
    // JFR names a monitor by its address, the poll by its identity hash: the
    // pairs learned from contentions both saw.
    private final Map<Long, Named> addressToObject = bounded(4096);
    private final Set<Long> announced = new HashSet<>();
    private final Map<Long, Long> missing = new HashMap<>(); // thread -> polls it was not seen in
    // thread -> {identity hash of the object it is parked on, 1 if that is Object.wait}
    private final Map<Long, long[]> parkedIn = new HashMap<>();
    private final Map<Long, Open> open = new HashMap<>(); // thread -> its contention or wait in progress
    // Contentions the poll saw begin and end; JFR's events for them, due later, are not reported again.
    private final ArrayDeque<Open> closedByPoll = new ArrayDeque<>();
    // thread -> the last contention JFR alone reported: the poll may have seen it just before it ended.
    private final Map<Long, Open> lastFromJfr = new HashMap<>();
    // Contentions JFR alone saw, on monitors whose identity hash is not known
    // yet: held back a few seconds, until a contention the poll saw too names
    // the monitor, so that one lock does not show as two monitors.
    private final ArrayDeque<Held> held = new ArrayDeque<>();
    // Polls and JFR batches so far: a held contention waits for a few of each,
    // the time it takes the poll to see the monitor and JFR to confirm it,
    // however slow a loaded machine makes them.
    private long polls;
    private long batches;
    private final Map<Long, Map<Long, long[]>> samples = new HashMap<>(); // thread -> method -> count
    private final Map<Long, long[]> heapAfterGC = bounded(64); // gcId -> used, committed
    private final Map<Long, long[]> pendingGC = bounded(64); // gcId -> start, pause

    /** A contention or wait, as the poll saw it. */
    private static final class Open {
        final long thread;
        final long obj;
        final String className;
        final boolean waiting;
        final TraceEncoder.Frame where; // the frame that locks or waits, null when unknown
        final long since; // ns: the poll first saw it at or after this
        long lastSeen; // ns: the poll last saw it at or before this
        long releasedAt; // ns, when the poll first saw it over; 0 while it lasts

        Open(long thread, long obj, String className, boolean waiting, TraceEncoder.Frame where, long since,
                long lastSeen) {
            this.thread = thread;
            this.obj = obj;
            this.className = className;
            this.waiting = waiting;
            this.where = where;
            this.since = since;
            this.lastSeen = lastSeen;
        }

        /**
         * Whether a JFR event is this contention: of the same kind, on a
         * monitor of the same class, entered or waited on at the same line,
         * and overlapping in time what the poll saw. The line tells apart a
         * thread's contentions on two objects of one class in a row.
         */
        boolean isSame(boolean isWait, String cls, TraceEncoder.Frame at, long start, long end) {
            return waiting == isWait && className.equals(cls) && (where == null || at == null || where.equals(at))
                    && start <= lastSeen + CLOCK_SLACK && end >= since - CLOCK_SLACK;
        }
    }

    /** What an address was learned to name: an object of a class, last reported at lastUsed. */
    private static final class Named {
        final long obj;
        final String className;
        long lastUsed;

        Named(long obj, String className, long lastUsed) {
            this.obj = obj;
            this.className = className;
            this.lastUsed = lastUsed;
        }
    }

    /** The frame a stack locks or waits in: its first outside java.lang.Object (whose wait a waiting stack begins with). */
    static TraceEncoder.Frame where(List<TraceEncoder.Frame> stack) {
        for (TraceEncoder.Frame f : stack) {
            if (!f.method().startsWith("java.lang.Object.")) {
                return f;
            }
        }
        return null;
    }

    /** The object JFR's address names, when known and still trusted; null otherwise. */
    private Long named(long address, String cls, long start, long end) {
        Named n = addressToObject.get(address);
        if (n == null || !n.className.equals(cls) || start - n.lastUsed > ADDRESS_STALE_AFTER) {
            return null;
        }
        n.lastUsed = Math.max(n.lastUsed, end);
        return n.obj;
    }

    private void learn(long address, long obj, String cls, long end) {
        addressToObject.put(address, new Named(obj, cls, end));
    }

    /** A contention or wait JFR alone saw, not yet reported. */
    private record Held(long thread, boolean waiting, long start, long end, long address, String className,
            long timeoutOrOwner, List<TraceEncoder.Frame> stack, long heldAt, long pollsAt, long batchesAt) {}

    Collector(Options opts, TraceEncoder enc, Sink sink, FailureListener onFailure) {
        this.opts = opts;
        this.enc = enc;
        this.sink = sink;
        this.onFailure = onFailure;
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

    /** Readies a run of the recording: JFR's stream, its events and handlers. */
    private void prepare() {
        RecordingStream rs = new RecordingStream();
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
            // A batch's events leave together, without waiting for the poll.
            rs.onFlush(() -> handle(() -> {
                batches++;
                releaseHeld(false);
                sendSamples();
                flushLocked();
            }));
        } catch (Throwable t) {
            rs.close();
            throw t;
        }
        stream = rs;
    }

    /**
     * Sends the picture as it is now, then follows the JVM until stop. The
     * picture goes first: starting JFR takes a second or more.
     */
    void start() {
        synchronized (lock) {
            stopped = false;
            if (!begun) {
                describeProcess();
                begun = true;
            }
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
        prepare();
        jfrThread = daemon(this::runRecording, "proftop-jfr");
        jfrThread.start();
    }

    /** A daemon thread whose failure is reported as the agent's, never handed to the application's handler. */
    static Thread daemon(Runnable r, String name) {
        Thread t = new Thread(r, name);
        t.setDaemon(true);
        t.setUncaughtExceptionHandler((th, e) -> System.err.println("proftop agent: " + th.getName() + " stopped: " + e));
        return t;
    }

    /**
     * Stops the run and waits for its threads, so that nothing is encoded
     * after: what was recorded is sent before this returns.
     */
    void stop() {
        synchronized (lock) {
            stopped = true;
        }
        if (poller != null) {
            poller.shutdownNow();
            try {
                poller.awaitTermination(5, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            poller = null;
        }
        if (stream != null) {
            stream.close();
            stream = null;
        }
        if (jfrThread != null) {
            try {
                jfrThread.join(5000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            jfrThread = null;
        }
        synchronized (lock) {
            releaseHeld(true);
            sendSamples();
            flushLocked();
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

    /**
     * Stops collecting on an unexpected error and drops the client, who
     * reconnects; the application runs on.
     */
    private void fail(Throwable t) {
        if (failure == null) {
            failure = t;
            if (!(t instanceof java.io.IOException)) {
                System.err.println("proftop agent: monitoring stopped by an error: " + t);
                t.printStackTrace();
            }
        }
        stopped = true;
        onFailure.failed(String.valueOf(t.getMessage()));
    }

    /** Sends what was encoded. */
    void flush() {
        synchronized (lock) {
            flushLocked();
        }
    }

    /** Sends what was encoded; queuing under the lock keeps the chunks in the order they were encoded. */
    private void flushLocked() {
        if (enc.buffered() == 0) {
            return;
        }
        try {
            sink.send(enc.take());
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
            id = ++lastClassId;
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
            id = ++lastMethodId;
            methodIds.put(key, id);
            enc.methodDef(name, descriptor, line, line, cid, id);
        }
        return id;
    }

    /** The monitor's object id, announced with its class the first time. */
    private long object(long id, String className, long time) {
        if (allocated.put(id, Boolean.TRUE) == null) {
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
        if (!announced.remove(id)) {
            return;
        }
        Open o = open.remove(id);
        if (o != null) {
            close(o, Math.max(time, o.since), List.of());
        }
        missing.remove(id);
        parkedIn.remove(id);
        lastFromJfr.remove(id);
        samples.remove(id);
        enc.threadEnd(id, time);
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

    /** Object.wait, or wait0 beneath it in later JDKs. */
    private static boolean inObjectWait(ThreadInfo info) {
        StackTraceElement[] s = info.getStackTrace();
        return s.length > 0 && s[0].getClassName().equals("java.lang.Object") && s[0].getMethodName().startsWith("wait");
    }

    /**
     * Looks at every thread without its stack, which needs no safepoint and
     * costs little however many threads there are; then fetches the stacks
     * of the few threads that have newly blocked or begun waiting.
     */
    private void poll() {
        if (stopped) {
            return;
        }
        long[] ids = mx.getAllThreadIds();
        long seenFrom = now();
        ThreadInfo[] infos = mx.getThreadInfo(ids, 0);
        long seenTo = now();
        Map<Long, String> groups = new HashMap<>();
        for (Thread t : liveThreads()) {
            groups.put(t.getId(), group(t));
        }
        List<Long> needStacks = new ArrayList<>();
        synchronized (lock) {
            if (stopped) {
                return;
            }
            Set<Long> seen = new HashSet<>();
            for (ThreadInfo info : infos) {
                if (info == null || own(info.getThreadName())) {
                    continue;
                }
                long id = info.getThreadId();
                seen.add(id);
                announce(id, info.getThreadName(), groups.getOrDefault(id, ""), seenFrom);
                if (!observe(info, seenFrom, seenTo, false)) {
                    needStacks.add(id);
                }
            }
            endMissing(seen, seenTo);
            closeReleased(seenTo);
            polls++;
            releaseHeld(false);
        }
        if (needStacks.isEmpty()) {
            return;
        }
        long[] some = needStacks.stream().mapToLong(Long::longValue).toArray();
        seenFrom = now();
        infos = mx.getThreadInfo(some, STACK_DEPTH);
        seenTo = now();
        synchronized (lock) {
            if (stopped) {
                return;
            }
            for (ThreadInfo info : infos) {
                if (info != null) {
                    observe(info, seenFrom, seenTo, true);
                }
            }
        }
    }

    /** Threads gone from two polls in a row have ended (JFR usually says so first). */
    private void endMissing(Set<Long> seen, long now) {
        List<Long> gone = new ArrayList<>();
        for (long id : announced) {
            if (seen.contains(id)) {
                missing.remove(id);
            } else if (missing.merge(id, 1L, Long::sum) >= 2) {
                gone.add(id);
            }
        }
        for (long id : gone) {
            end(id, now);
        }
    }

    /**
     * A contention the poll saw over is closed by JFR's event, which has its
     * exact end; when JFR stays silent, the poll closes it. Those the poll
     * closed wait a while for JFR's event, so that it is not reported again.
     */
    private void closeReleased(long now) {
        // JFR delivers an event about a second after it ends: wait longer than that.
        long grace = Math.max(3 * opts.poll().toNanos(), 3_000_000_000L);
        for (Iterator<Open> it = open.values().iterator(); it.hasNext();) {
            Open o = it.next();
            if (o.releasedAt != 0 && now - o.releasedAt > grace) {
                it.remove();
                close(o, o.releasedAt, List.of());
                closedByPoll.addLast(o);
            }
        }
        while (!closedByPoll.isEmpty()
                && (closedByPoll.size() > 1024 || now - closedByPoll.peekFirst().releasedAt > FORGET_AFTER)) {
            closedByPoll.removeFirst();
        }
    }

    /**
     * Compares a thread's state now with what was reported. Returns false,
     * having changed nothing, when telling needs the thread's stack and info
     * has none.
     */
    private boolean observe(ThreadInfo info, long seenFrom, long seenTo, boolean withStack) {
        long id = info.getThreadId();
        LockInfo li = info.getLockInfo();
        Thread.State st = info.getThreadState();
        long owner = info.getLockOwnerId();
        boolean parked = st == Thread.State.WAITING || st == Thread.State.TIMED_WAITING;
        // A thread parked on a java.util.concurrent lock that another thread owns
        // is blocked by that thread just the same.
        boolean blocked = li != null && (st == Thread.State.BLOCKED || parked && owner >= 0 && owner != id);
        boolean waiting = false;
        if (li != null && parked && owner < 0) {
            Boolean w = inObjectWait(id, li.getIdentityHashCode(), withStack ? info : null);
            if (w == null) {
                return false;
            }
            waiting = w;
        }
        Open o = open.get(id);
        if (!blocked && !waiting) {
            if (o != null && o.releasedAt == 0) {
                o.releasedAt = seenFrom;
            }
            return true;
        }
        long obj = li.getIdentityHashCode();
        if (o != null && o.obj == obj && o.waiting == waiting) {
            o.releasedAt = 0; // still, or again, on the same monitor
            o.lastSeen = seenTo;
            return true;
        }
        if (!withStack) {
            return false;
        }
        String cls = li.getClassName();
        List<TraceEncoder.Frame> stack = frames(info.getStackTrace());
        Open j = lastFromJfr.get(id);
        if (j != null && j.isSame(waiting, cls, where(stack), seenFrom, seenTo)) {
            return true; // over already: JFR reported it while this poll ran
        }
        if (o != null) {
            open.remove(id);
            close(o, Math.max(seenFrom, o.since), List.of());
            closedByPoll.addLast(o);
        }
        object(obj, cls, seenFrom);
        if (waiting) {
            enc.monWait(false, id, seenFrom, obj, 0, stack);
        } else {
            enc.monContendedEnter(id, seenFrom, obj, owner >= 0 ? owner : 0, stack);
        }
        open.put(id, new Open(id, obj, cls, waiting, where(stack), seenFrom, seenTo));
        return true;
    }

    /**
     * Whether a thread parked on the object with this identity hash is in
     * Object.wait, rather than parked by java.util.concurrent: null when that
     * takes its stack and info has none. Asked once per thread and object.
     */
    private Boolean inObjectWait(long thread, int identity, ThreadInfo info) {
        long[] known = parkedIn.get(thread);
        if (known != null && known[0] == identity) {
            return known[1] != 0;
        }
        if (info == null) {
            return null;
        }
        boolean w = inObjectWait(info);
        parkedIn.put(thread, new long[] {identity, w ? 1 : 0});
        return w;
    }

    /** Ends a reported contention or wait at time at. */
    private void close(Open o, long at, List<TraceEncoder.Frame> stack) {
        if (o.waiting) {
            enc.monWait(true, o.thread, at, o.obj, 0, stack);
        } else {
            enc.monContendedEntered(o.thread, at, o.obj, stack);
        }
        if (o.releasedAt == 0) {
            o.releasedAt = at;
        }
    }

    // --- JFR: what happened, a second late ---------------------------------------

    private void runRecording() {
        RecordingStream rs = stream;
        try {
            // start() blocks until close(), on this daemon thread: never startAsync(),
            // whose own non-daemon thread would keep a finished JVM alive.
            rs.start();
        } catch (Throwable t) {
            if (!stopped) {
                fail(t);
            }
        }
    }

    /** Runs a JFR callback under the lock, unless the run was stopped. */
    private void handle(Runnable r) {
        try {
            synchronized (lock) {
                if (stopped) {
                    return;
                }
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

    /**
     * A contention or wait JFR recorded, once over. It is the poll's open one
     * when their times overlap: JFR then gives its exact end. Or the poll saw
     * it begin and end, and it was reported. Otherwise the poll never saw it
     * and it is reported here, start and end.
     */
    private void onContention(RecordedEvent e, boolean isWait) {
        RecordedThread t = e.getThread("eventThread");
        if (t == null || own(t.getJavaName())) {
            return;
        }
        long id = t.getJavaThreadId();
        long start = nanos(e.getStartTime());
        long end = Math.max(nanos(e.getEndTime()), start);
        announce(id, t.getJavaName(), t.getThreadGroup() == null ? "" : t.getThreadGroup().getName(), start);
        String cls = e.getClass("monitorClass") == null ? "java.lang.Object" : e.getClass("monitorClass").getName();
        long address = e.getLong("address");
        List<TraceEncoder.Frame> stack = frames(e.getStackTrace());
        TraceEncoder.Frame at = where(stack);
        Open o = open.get(id);
        if (o != null && o.isSame(isWait, cls, at, start, end)) {
            learn(address, o.obj, cls, end);
            open.remove(id);
            close(o, Math.max(end, o.since), stack);
            return;
        }
        for (Iterator<Open> it = closedByPoll.iterator(); it.hasNext();) {
            Open c = it.next();
            if (c.thread == id && c.isSame(isWait, cls, at, start, end)) {
                learn(address, c.obj, cls, end);
                it.remove(); // one JFR event per contention
                return;
            }
        }
        long timeoutOrOwner;
        if (isWait) {
            timeoutOrOwner = e.getLong("timeout");
        } else {
            RecordedThread prev = e.getThread("previousOwner");
            timeoutOrOwner = prev == null ? 0 : prev.getJavaThreadId();
        }
        Held h = new Held(id, isWait, start, end, address, cls, timeoutOrOwner, stack, now(), polls, batches);
        Long obj = named(address, cls, start, end);
        if (obj != null) {
            report(h, obj);
        } else {
            held.addLast(h);
        }
        lastFromJfr.put(id, new Open(id, address, cls, isWait, at, start, end));
    }

    /** Reports a contention or wait JFR alone saw, start and end, on monitor obj. */
    private void report(Held h, long obj) {
        object(obj, h.className(), h.start());
        if (h.waiting()) {
            enc.monWait(false, h.thread(), h.start(), obj, h.timeoutOrOwner(), h.stack());
            enc.monWait(true, h.thread(), h.end(), obj, h.timeoutOrOwner(), h.stack());
        } else {
            enc.monContendedEnter(h.thread(), h.start(), obj, h.timeoutOrOwner(), h.stack());
            enc.monContendedEntered(h.thread(), h.end(), obj, h.stack());
        }
    }

    /**
     * Reports the held contentions whose monitor is now named, and those
     * held long enough (or all, when the run stops): five polls and five
     * JFR batches, or 15 s at most. Those go out under JFR's address for
     * the monitor.
     */
    private void releaseHeld(boolean all) {
        long now = now();
        for (Iterator<Held> it = held.iterator(); it.hasNext();) {
            Held h = it.next();
            Long obj = named(h.address(), h.className(), h.start(), h.end());
            boolean waited = polls - h.pollsAt() >= 5 && batches - h.batchesAt() >= 5 || now - h.heldAt() > 15_000_000_000L;
            if (obj != null || all || waited || held.size() > 100_000) {
                it.remove();
                report(h, obj != null ? obj : h.address());
            }
        }
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
     * The samples since the last batch become one agMethodEntry per
     * (thread, method): self and CPU time estimated as samples × period,
     * calls counted as samples, min and max not measured (-1).
     */
    private void sendSamples() {
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
