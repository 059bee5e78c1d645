package io.proftop.agent;

import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordedFrame;
import jdk.jfr.consumer.RecordedMethod;
import jdk.jfr.consumer.RecordedStackTrace;
import jdk.jfr.consumer.RecordedThread;
import jdk.jfr.consumer.RecordingStream;

/**
 * Turns what the JVM reports into trace events while a client watches.
 *
 * What is true now comes from the thread poll (ThreadPoller), once a
 * second: every thread's state, the lock it waits for and its owner, its
 * stack and CPU time. What happened comes from JDK Flight Recorder, a
 * second or so late: each contention, wait and park with its exact start,
 * end and stack (Contentions), the stack samples that say where CPU time
 * goes (Sampler), the exact pause of each collection (MemoryWatcher). The
 * client shows the poll as the present and counts JFR's events over time;
 * nothing is guessed or held for seconds.
 *
 * Three threads feed it: the poll (proftop-poll), JFR's consumer
 * (proftop-jfr) and the JVM's notification thread (collections, which it
 * only queues). Every encoder call happens under one lock, so that the
 * trace is a sequence.
 */
final class Collector {
    static final String VERSION = "1.4";
    /** The thread group of the JDK's carrier threads of virtual threads. */
    static final String CARRIER_GROUP = "CarrierThreads";
    /** How often the agent samples stacks itself until JFR's samples begin (a second or two). */
    private static final long OWN_SAMPLING_MS = 100;

    /** Sends encoded trace bytes to the client; queues them, never waits for the network. */
    interface Sink {
        void send(byte[] data) throws java.io.IOException;

        /** Waits, at most millis, until what was sent has left. */
        default void drain(long millis) {}
    }

    /** Told when collecting stopped by an error, so that the client is not left waiting. */
    interface FailureListener {
        void failed(String why);
    }

    private final Options opts;
    private final TraceEncoder enc;
    private final Sink sink;
    private final FailureListener onFailure;
    private final Object lock = new Object(); // guards the encoder, the sink's order and the parts' state
    private volatile boolean stopped = true;
    private volatile Throwable failure;
    private boolean begun; // the stream's preamble was sent
    private boolean polled; // a poll was reported: threads it finds new started since

    private final ThreadPoller poller = new ThreadPoller();
    private final Names names;
    private final Sampler sampler;
    private final Contentions contentions;
    private final MemoryWatcher memory = new MemoryWatcher();
    private final VirtualThreads virtual; // null before JDK 21
    // Carrier threads (of virtual threads), known by their thread group when first seen.
    private final Set<Long> carriers = new HashSet<>();
    private final Allocations allocations = new Allocations();
    // The JVM's series and the application's the client chose (Telemetry): declared once a stream.
    private final Telemetry telemetry = new Telemetry();
    private final AgentCost cost = new AgentCost();
    // Threads announced (threadStart sent) and not yet ended, and the stack
    // each last reported, so that an unchanged stack is not sent again.
    private final Set<Long> announced = new HashSet<>();
    private final Map<Long, List<TraceEncoder.Frame>> lastStack = new HashMap<>();
    // Threads that ended: JFR may report their start after the poll saw them gone.
    private final Map<Long, Boolean> ended = Names.bounded(4096);
    private final Witnesses witnesses;

    // One run of the recording, from start to stop.
    private RecordingStream stream;
    private Thread jfrThread;
    private ScheduledExecutorService scheduler;
    private ScheduledFuture<?> ownSampling;

    /** The collector running now, for the shutdown hook. */
    private static volatile Collector running;
    private static boolean hooked;

    Collector(Options opts, TraceEncoder enc, Sink sink, FailureListener onFailure) {
        this.opts = opts;
        this.enc = enc;
        this.sink = sink;
        this.onFailure = onFailure;
        this.names = new Names(enc);
        this.sampler = new Sampler(opts.samplePeriod().toNanos());
        this.contentions = new Contentions(opts, enc, names);
        this.witnesses = new Witnesses(poller, new Witnesses.Host() {
            @Override
            public void witnessed(List<ThreadPoller.Witness> w) {
                handle(() -> contentions.witnessed(w));
            }

            @Override
            public void failed(Throwable t) {
                fail(t);
            }
        });
        memory.afterEachCollection(witnesses::collected);
        this.virtual = virtualThreads();
    }

    /** What watches the virtual threads: nothing before JDK 21, or in a JVM without the jdk.management module. */
    private VirtualThreads virtualThreads() {
        try {
            return VirtualThreads.supported() ? new VirtualThreads(opts, enc, contentions, this::emit) : null;
        } catch (LinkageError e) {
            return null;
        }
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

    /**
     * Says a sampled stack runs the agent's own code: the application never
     * calls into the agent, so a JVM thread seen there (the notification
     * thread running the agent's listener of collections) works for the
     * agent, not for the application.
     */
    static boolean throughAgent(RecordedStackTrace st) {
        if (st == null) {
            return false;
        }
        for (RecordedFrame f : st.getFrames()) {
            RecordedMethod m = f.getMethod();
            if (m != null && m.getType() != null && m.getType().getName().startsWith(AGENT_PACKAGE)) {
                return true;
            }
        }
        return false;
    }

    /** throughAgent for a stack as the agent encodes it (a thread poll's). */
    static boolean throughAgent(List<TraceEncoder.Frame> stack) {
        for (TraceEncoder.Frame f : stack) {
            if (f.method().startsWith(AGENT_PACKAGE)) {
                return true;
            }
        }
        return false;
    }

    private static final String AGENT_PACKAGE = Collector.class.getPackageName() + ".";

    /** Says an allocation sample is of the agent's own work: by its thread, or by its stack (throughAgent). */
    static boolean agentsAllocation(RecordedEvent e) {
        RecordedThread t = e.getThread("eventThread");
        return t != null && own(t.getJavaName()) || throughAgent(e.getStackTrace());
    }

    static String mainClass() {
        return ProcessInfo.mainClass();
    }

    /**
     * Runs once what a client's first poll runs, with nobody watching, on
     * a thread of its own when the agent starts: the JDK's management and
     * JFR classes load then, not while the first client waits for its
     * first picture. What it encodes is thrown away.
     */
    static void warmUp() {
        daemon(() -> {
            try {
                TraceEncoder enc = new BinaryEncoder();
                ThreadPoller.Poll p = new ThreadPoller().take(true, true);
                for (ThreadPoller.Seen s : p.threads()) {
                    enc.threadState(s.id(), p.from(), s.state(), s.flags(), s.lock(), s.lockClass(), s.owner(), s.cpu(), s.stack());
                }
                new MemoryWatcher().report(now(), enc, false);
                new Telemetry().report(now(), new Telemetry().read(), enc);
                Class.forName("jdk.jfr.consumer.RecordingStream");
            } catch (Throwable t) {
                // only a head start: the first poll does it all again
            }
        }, "proftop-warmup").start();
    }

    /** A daemon thread whose failure is reported as the agent's, never handed to the application's handler. */
    static Thread daemon(Runnable r, String name) {
        Thread t = new Thread(r, name);
        t.setDaemon(true);
        t.setUncaughtExceptionHandler((th, e) -> System.err.println("proftop agent: " + th.getName() + " stopped: " + e));
        return t;
    }

    /**
     * Sends the picture as it is now (every thread and what it waits for),
     * then follows the JVM until stop. The picture goes first: starting JFR
     * takes a second or more, during which the agent samples stacks itself.
     */
    void start() {
        synchronized (lock) {
            stopped = false;
            if (!begun) {
                ProcessInfo.describe(enc, opts, now());
                begun = true;
            }
        }
        hookShutdown(this);
        memory.start();
        telemetry.start();
        pollNow();
        scheduler = Executors.newSingleThreadScheduledExecutor(r -> daemon(r, "proftop-poll"));
        long every = opts.poll().toMillis();
        // The second poll comes sooner: it closes the first interval of
        // samples, so that hot methods show within a second of attaching.
        scheduler.scheduleAtFixedRate(this::tick, Math.min(every / 2, 300), every, TimeUnit.MILLISECONDS);
        ownSampling = scheduler.scheduleWithFixedDelay(this::sampleOwn, OWN_SAMPLING_MS, OWN_SAMPLING_MS, TimeUnit.MILLISECONDS);
        if (virtual != null) {
            virtual.start();
        }
        witnesses.start(scheduler);
        prepare();
        jfrThread = daemon(this::runRecording, "proftop-jfr");
        jfrThread.start();
    }

    /** Readies a run of the recording: JFR's stream, its events and handlers. */
    private void prepare() {
        RecordingStream rs = new RecordingStream();
        try {
            contentions.enable(rs, this::handle);
            telemetry.enable(rs, this::handle);
            rs.enable("jdk.ThreadStart");
            rs.enable("jdk.ThreadEnd");
            rs.enable("jdk.GarbageCollection");
            if (virtual != null) {
                virtual.enable(rs, this::handle);
            }
            if (Sampler.cpuTimeSampling()) {
                // JDK 25 on Linux: samples taken by CPU time spent, Java and native code alike.
                rs.enable(Sampler.CPU_TIME_SAMPLE).with("throttle", opts.samplePeriod().toMillis() + "ms").withStackTrace();
                rs.onEvent(Sampler.CPU_TIME_SAMPLE, e -> handle(() -> onSample(e)));
            } else {
                rs.enable("jdk.ExecutionSample").withPeriod(opts.samplePeriod());
                rs.enable("jdk.NativeMethodSample").withPeriod(opts.samplePeriod());
            }
            allocations.enable(rs);
            rs.onEvent("jdk.ThreadStart", e -> handle(() -> onThreadStart(e)));
            rs.onEvent("jdk.ThreadEnd", e -> handle(() -> onThreadEnd(e)));
            rs.onEvent("jdk.GarbageCollection", e -> handle(() -> {
                memory.jfrCollection(nanos(e.getStartTime()), e.getDuration("sumOfPauses").toNanos());
                contentions.collection(e.getString("name"), nanos(e.getStartTime()), nanos(e.getEndTime()));
            }));
            rs.onEvent("jdk.ExecutionSample", e -> handle(() -> onSample(e)));
            rs.onEvent("jdk.NativeMethodSample", e -> handle(() -> onSample(e)));
            rs.onEvent("jdk.ObjectAllocationSample", e -> handle(() -> {
                if (!agentsAllocation(e)) {
                    allocations.add(e);
                }
            }));
            // A batch's events leave together, without waiting for the poll.
            rs.onFlush(() -> handle(() -> {
                long now = now();
                contentions.release(now, false);
                witnesses.parkers(contentions.recentParkers(Witnesses.PARKED_PER_COLLECTION));
                sampler.attribute(now, enc);
                allocations.report(now, enc);
                telemetry.sendSeconds(now, enc);
                flushLocked();
            }));
        } catch (Throwable t) {
            rs.close();
            throw t;
        }
        stream = rs;
    }

    /**
     * Stops the run and waits for its threads, so that nothing is encoded
     * after: what was recorded is sent before this returns.
     */
    void stop() {
        synchronized (lock) {
            stopped = true;
        }
        if (virtual != null) {
            virtual.stop();
        }
        witnesses.stop();
        if (scheduler != null) {
            scheduler.shutdownNow();
            try {
                scheduler.awaitTermination(5, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            scheduler = null;
        }
        telemetry.stop();
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
        memory.stop();
        synchronized (lock) {
            long now = now();
            contentions.release(now, true);
            memory.report(now, enc, true);
            flushLocked();
        }
        if (running == this) {
            running = null;
        }
    }

    private void tick() {
        try {
            pollNow();
        } catch (Throwable t) {
            fail(t);
        }
    }

    /**
     * One poll: taken off the lock (a safepoint may take a while on a busy
     * JVM), then reported: every thread's state, and what the poll closes
     * (the CPU time of the interval it ends, the collections since).
     */
    private void pollNow() {
        if (stopped) {
            return;
        }
        ThreadPoller.Poll p = poller.take(true, true);
        Map<Long, String> groups = groupsOfNew(p);
        Telemetry.Reading reading = telemetry.read();
        AgentCost.Reading spent = cost.measure();
        synchronized (lock) {
            if (stopped) {
                return;
            }
            long at = p.from() + (p.to() - p.from()) / 2;
            // The threads the first poll finds were started before anyone
            // watched: their start is unknown (0), not the poll's time.
            long started = polled ? at : 0;
            polled = true;
            Set<Long> seen = new HashSet<>();
            for (ThreadPoller.Seen polledAs : p.threads()) {
                ThreadPoller.Seen s = virtual == null ? polledAs : virtual.corrected(polledAs);
                seen.add(s.id());
                String group = groups.getOrDefault(s.id(), "");
                if (group.equals(CARRIER_GROUP) || s.carries() != 0) {
                    carriers.add(s.id());
                }
                announce(s.id(), s.name(), group, started);
                List<TraceEncoder.Frame> last = lastStack.get(s.id());
                boolean same = last != null && last.equals(s.stack());
                if (!same) {
                    lastStack.put(s.id(), s.stack());
                }
                int flags = s.flags() | (same ? ThreadPoller.STACK_UNCHANGED : 0)
                        | (carriers.contains(s.id()) ? ThreadPoller.CARRIER : 0) | contentions.onLockFlag(s.state(), s.lockClass(), s.owner());
                enc.threadState(s.id(), at, s.state(), flags, s.lock(), s.lockClass(), s.owner(), s.cpu(),
                        same ? List.of() : s.stack(), s.carries(), "", "", s.blockedCount(), s.waitedCount());
            }
            enc.threadPoll(at, p.threads().size(), 1);
            if (virtual != null) {
                virtual.report(at);
            }
            for (long id : announced.toArray(Long[]::new)) {
                if (!seen.contains(id)) {
                    end(id, at);
                }
            }
            long now = now();
            contentions.mark();
            contentions.polled(p);
            witnesses.polled(p.threads(), contentions::isLock);
            witnesses.parkers(contentions.recentParkers(Witnesses.PARKED_PER_COLLECTION));
            contentions.release(now, false);
            sampler.polled(p, carriers);
            sampler.attribute(now, enc);
            memory.report(now, enc, false);
            telemetry.report(now, reading, enc);
            AgentCost.report(now, enc, spent);
            flushLocked();
        }
    }

    /** The application's series and probes for the next start (ControllerServer's chooseTelemetry). */
    void choose(TelemetryChoice c) {
        synchronized (lock) {
            telemetry.choose(c);
        }
    }

    /** Runs r under the lock unless the run was stopped, and sends what it encoded at once. */
    private void emit(Runnable r) {
        handle(() -> {
            r.run();
            flushLocked();
        });
    }

    /** Until JFR's samples begin, a sample of every running thread's stack. */
    private void sampleOwn() {
        try {
            if (stopped || sampler.jfrSampling()) {
                if (ownSampling != null) {
                    ownSampling.cancel(false);
                }
                return;
            }
            ThreadPoller.Poll p = poller.running();
            synchronized (lock) {
                for (ThreadPoller.Seen s : p.threads()) {
                    if (s.running()) {
                        sampler.ownSample(s.id(), p.from(), s.stack());
                    }
                }
            }
        } catch (Throwable t) {
            fail(t);
        }
    }

    /** The thread groups of the threads a poll saw for the first time. */
    private Map<Long, String> groupsOfNew(ThreadPoller.Poll p) {
        boolean fresh = false;
        synchronized (lock) {
            for (ThreadPoller.Seen s : p.threads()) {
                if (!announced.contains(s.id())) {
                    fresh = true;
                    break;
                }
            }
        }
        Map<Long, String> out = new HashMap<>();
        if (!fresh) {
            return out;
        }
        ThreadGroup root = Thread.currentThread().getThreadGroup();
        while (root.getParent() != null) {
            root = root.getParent();
        }
        Thread[] all = new Thread[root.activeCount() * 2 + 16];
        int n = root.enumerate(all, true);
        for (int i = 0; i < n; i++) {
            ThreadGroup g = all[i].getThreadGroup();
            out.put(all[i].getId(), g == null ? "" : g.getName());
        }
        return out;
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

    // --- the JVM's end -----------------------------------------------------

    /** One hook for the agent's lifetime: it tells the client watching then, if any, that the JVM exits. */
    private static synchronized void hookShutdown(Collector c) {
        running = c;
        if (hooked) {
            return;
        }
        hooked = true;
        try {
            Runtime.getRuntime().addShutdownHook(daemon(() -> {
                Collector now = running;
                if (now != null) {
                    now.shutdown();
                }
            }, "proftop-shutdown"));
        } catch (IllegalStateException e) {
            // the JVM is already exiting
        }
    }

    /** The JVM exits: says so, and gives the words a moment to leave. */
    private void shutdown() {
        synchronized (lock) {
            if (stopped) {
                return;
            }
            enc.runtimeShutdown(now());
            flushLocked();
        }
        sink.drain(500);
    }

    // --- JFR: what happened, a second late ---------------------------------

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
    void handle(Runnable r) {
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

    /** JFR's stacks, each turned into trace frames once. */
    private static final JfrStacks STACKS = new JfrStacks();

    /** A JFR stack as trace frames, innermost first (the same list for the same stack). */
    static List<TraceEncoder.Frame> frames(RecordedStackTrace st) {
        return STACKS.frames(st);
    }

    /** A stack sample: JFR's execution or native sample, or (JDK 25) its CPU-time sample. */
    private void onSample(RecordedEvent e) {
        RecordedThread t = e.getThread(e.hasField("sampledThread") ? "sampledThread" : "eventThread");
        // A stack through the agent's code is left out by the sampler, on
        // the frames it reads anyway (Sampler.add).
        if (t == null || own(t.getJavaName()) || e.getStackTrace() == null) {
            return;
        }
        long time = nanos(e.getStartTime());
        contentions.reached(time);
        boolean isVirtual = VirtualThreads.isVirtual(t);
        if (!isVirtual) {
            // A virtual thread is no thread of the poll's: its samples count for their methods only.
            announce(t.getJavaThreadId(), t.getJavaName(), groupOf(t), time);
        }
        sampler.jfrSample(t.getJavaThreadId(), time, frames(e.getStackTrace()), isVirtual);
    }

    private void onThreadStart(RecordedEvent e) {
        RecordedThread t = e.getThread("thread");
        if (t != null) {
            announce(t.getJavaThreadId(), t.getJavaName(), groupOf(t), nanos(e.getStartTime()));
        }
    }

    private void onThreadEnd(RecordedEvent e) {
        RecordedThread t = e.getThread("thread");
        if (t != null && !own(t.getJavaName())) {
            end(t.getJavaThreadId(), nanos(e.getStartTime()));
        }
    }

    static String groupOf(RecordedThread t) {
        return t.getThreadGroup() == null ? "" : t.getThreadGroup().getName();
    }

    /** Sends threadStart for a thread not announced yet. */
    void announce(long id, String name, String group, long time) {
        if (own(name) || ended.containsKey(id) || !announced.add(id)) {
            return;
        }
        enc.threadStart(id, time, group, "", name);
    }

    private void end(long id, long time) {
        if (!announced.remove(id)) {
            return;
        }
        carriers.remove(id);
        lastStack.remove(id);
        ended.put(id, Boolean.TRUE);
        contentions.ended(id);
        enc.threadEnd(id, time);
    }
}
