package io.proftop.agent;

import java.io.BufferedReader;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

import com.sun.management.HotSpotDiagnosticMXBean;

import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordedThread;
import jdk.jfr.consumer.RecordingStream;

/**
 * Virtual threads (JDK 21 and later), which ThreadMXBean does not see: how
 * many there are, started and ended, from JFR (jdk.VirtualThreadStart and
 * End, counted, never forwarded one by one); what each is doing, from the
 * JDK's JSON thread dump (HotSpotDiagnosticMXBean.dumpThreads, which JDK 25
 * extends with states, locks and carriers), turned into a listing
 * (VirtualListing); where they pin their carriers, from
 * jdk.VirtualThreadPinned.
 *
 * The dump costs the application no pause (the JDK looks at each thread
 * alone, with a handshake for the mounted ones), but it costs CPU: about
 * 20 to 50 µs a thread, seconds for 100,000 (docs/performance.md). So it
 * runs on a thread of its own, never holding up the poll of the platform
 * threads, and as often as keeps it within BUDGET of one core: every poll
 * for a few thousand threads, every minute or so for 100,000. The stream
 * says so (a sourceNote), and the count stays live in between, from JFR.
 *
 * On JDK 17 none of this exists and nothing is sent.
 */
final class VirtualThreads {
    /** The share of one core the listing may take, on average. */
    static final double BUDGET = 0.05;
    /** The longest time between listings. */
    static final long MAX_PERIOD = 600_000_000_000L;
    /** How long to wait after a failed listing. */
    private static final long RETRY = 60_000_000_000L;
    static final String NOTE_TOPIC = "virtual-threads";

    /** What the collector lends: its lock (with the trace flushed after), its encoder and contentions. */
    interface Host {
        /** Runs r under the collector's lock unless it stopped, then sends what r encoded. */
        void emit(Runnable r);
    }

    private static final Method DUMP_THREADS;
    private static final Object JSON_FORMAT;
    private static final Method IS_VIRTUAL;

    static {
        Method dump = null;
        Object json = null;
        Method isVirtual = null;
        if (Runtime.version().feature() >= 21) {
            try {
                Class<?> format = Class.forName("com.sun.management.HotSpotDiagnosticMXBean$ThreadDumpFormat");
                for (Object c : format.getEnumConstants()) {
                    if (((Enum<?>) c).name().equals("JSON")) {
                        json = c;
                    }
                }
                dump = HotSpotDiagnosticMXBean.class.getMethod("dumpThreads", String.class, format);
                isVirtual = RecordedThread.class.getMethod("isVirtual");
            } catch (ReflectiveOperationException | RuntimeException e) {
                dump = null;
            }
        }
        DUMP_THREADS = json == null ? null : dump;
        JSON_FORMAT = json;
        IS_VIRTUAL = isVirtual;
    }

    /** Whether this JVM has virtual threads and can list them. */
    static boolean supported() {
        return DUMP_THREADS != null;
    }

    /** Whether a thread JFR reports is a virtual one (never, before JDK 21). */
    static boolean isVirtual(RecordedThread t) {
        if (IS_VIRTUAL == null || t == null) {
            return false;
        }
        try {
            return (Boolean) IS_VIRTUAL.invoke(t);
        } catch (ReflectiveOperationException | RuntimeException e) {
            return false;
        }
    }

    private final Options opts;
    private final TraceEncoder enc;
    private final Contentions contentions;
    private final Host host;
    private final HotSpotDiagnosticMXBean diagnostic = ManagementFactory.getPlatformMXBean(HotSpotDiagnosticMXBean.class);
    private final java.lang.management.ThreadMXBean threads = ManagementFactory.getThreadMXBean();
    private ScheduledExecutorService lister;
    private Path dir;
    private long dumps;
    // On the listing's thread.
    private LockOwners lockOwners;
    private boolean lockOwnersTried;
    private boolean syncsUnowned; // the latest dump showed locks whose owners it did not say

    // Under the collector's lock.
    private long started = -1; // since the recording began, from JFR; -1 without it
    private long ended = -1;
    private long startedSince; // since the latest listing's moment
    private long endedSince;
    private long listedAt; // ns since the epoch; 0: none yet
    private long listedCount = -1;
    private long cost; // CPU ns of the latest listing
    private long period;
    private String note = "";
    // The stack each virtual thread of the latest listing carried, so that
    // an unchanged one is not sent again.
    private Map<Long, List<TraceEncoder.Frame>> lastStacks = new HashMap<>();
    // Platform threads the latest listing found blocked on monitors virtual threads hold.
    private volatile Map<Long, VirtualListing.Blocked> platformBlocked = Map.of();

    VirtualThreads(Options opts, TraceEncoder enc, Contentions contentions, Host host) {
        this.opts = opts;
        this.enc = enc;
        this.contentions = contentions;
        this.host = host;
        this.period = opts.poll().toNanos();
    }

    /** Enables JFR's virtual-thread events and routes them here, under the collector's lock. */
    void enable(RecordingStream rs, Consumer<Runnable> underLock) {
        started = 0; // counted from the recording's start
        ended = 0;
        rs.enable("jdk.VirtualThreadStart").withoutStackTrace();
        rs.enable("jdk.VirtualThreadEnd").withoutStackTrace();
        rs.enable("jdk.VirtualThreadPinned").withThreshold(opts.threshold()).withStackTrace();
        rs.onEvent("jdk.VirtualThreadStart", e -> underLock.accept(() -> counted(e, true)));
        rs.onEvent("jdk.VirtualThreadEnd", e -> underLock.accept(() -> counted(e, false)));
        rs.onEvent("jdk.VirtualThreadPinned", e -> underLock.accept(() -> pinned(e)));
    }

    /** Starts listing: the first listing at once, the next as the budget allows. */
    void start() {
        ScheduledExecutorService s = Executors.newSingleThreadScheduledExecutor(r -> Collector.daemon(r, "proftop-vthreads"));
        lister = s;
        s.schedule(() -> list(s), 0, TimeUnit.NANOSECONDS);
    }

    /**
     * Stops listing. A dump under way cannot be interrupted: it finishes on
     * its daemon thread, and what it finds is dropped (the collector no
     * longer takes it) or, after a restart, sent to the new client.
     */
    void stop() {
        if (lister != null) {
            lister.shutdownNow();
            lister = null;
        }
    }

    /** The counts, at every poll (under the collector's lock). */
    void report(long now) {
        long count = -1;
        int flags = 0;
        if (listedCount >= 0) {
            count = Math.max(listedCount + startedSince - endedSince, 0);
            if (startedSince != 0 || endedSince != 0) {
                flags |= TraceEncoder.VIRTUAL_ESTIMATED;
            }
        }
        enc.virtualThreads(now, count, started, ended, flags, listedAt, 0, 0, cost, period);
    }

    /**
     * A platform thread as the poll saw it, corrected by the latest
     * listing: ThreadMXBean (JDK 25) says a thread blocked on a monitor a
     * virtual thread holds is RUNNABLE and waits for nothing. While the
     * poll sees it at the frame the listing saw it blocked in, it is
     * blocked on that monitor, owned by that virtual thread.
     */
    ThreadPoller.Seen corrected(ThreadPoller.Seen s) {
        VirtualListing.Blocked b = platformBlocked.get(s.id());
        if (b == null || !s.state().equals(ThreadPoller.RUNNING) || s.stack().isEmpty() || !s.stack().get(0).equals(b.top())) {
            return s;
        }
        return new ThreadPoller.Seen(s.id(), s.name(), s.daemon(), ThreadPoller.BLOCKED, s.flags(), b.lock(), b.lockClass(),
                b.owner(), s.cpu(), s.stack(), s.carries(), s.blockedCount(), s.waitedCount());
    }

    // --- the listing, on its own thread -------------------------------------

    private void list(ScheduledExecutorService s) {
        long next = RETRY;
        try {
            long cpu0 = threads.getCurrentThreadCpuTime();
            long wall0 = System.nanoTime();
            long at = Collector.now();
            VirtualListing l = take();
            long took = threads.getCurrentThreadCpuTime() - cpu0;
            long wall = System.nanoTime() - wall0;
            // Costs are CPU time where the JVM measures it, else wall time.
            long spent = took > 0 ? took : wall;
            next = Math.min(Math.max(opts.poll().toNanos(), (long) (spent / BUDGET)), MAX_PERIOD);
            long p = next;
            host.emit(() -> listed(l, at, spent, p));
        } catch (Throwable t) {
            String why = t instanceof InvocationTargetException ite && ite.getCause() != null ? ite.getCause().toString()
                    : t.toString();
            host.emit(() -> say(1, "virtual threads: the JDK's thread dump failed (" + why + "); trying again in "
                    + seconds(RETRY)));
        }
        if (!s.isShutdown()) {
            try {
                s.schedule(() -> list(s), next, TimeUnit.NANOSECONDS);
            } catch (java.util.concurrent.RejectedExecutionException e) {
                // stopped meanwhile
            }
        }
    }

    /** Dumps every thread to a private file and reads it back into a listing. */
    private synchronized VirtualListing take() throws IOException, ReflectiveOperationException {
        if (dir == null) {
            dir = privateDir();
        }
        Path file = dir.resolve("threads-" + (++dumps) + ".json");
        Set<Long> platform = new HashSet<>();
        for (long id : threads.getAllThreadIds()) {
            platform.add(id);
        }
        try {
            // While the dumps show locks whose owners they do not say, the
            // owners are found before each dump, so that a virtual owner is
            // listed one by one, not counted in a group.
            LockOwners o = syncsUnowned ? lockOwners : null;
            Map<Long, Long> owners = o == null ? Map.of() : o.all();
            DUMP_THREADS.invoke(diagnostic, file.toAbsolutePath().toString(), JSON_FORMAT);
            VirtualListing.Builder b = new VirtualListing.Builder(platform, owners);
            try (BufferedReader r = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
                new ThreadDumpReader(r).read(b::add);
            }
            if (!b.unownedParks().isEmpty()) {
                o = lockOwners();
                if (o != null) {
                    b.parkOwners(o.owners(b.unownedParks()));
                }
            }
            syncsUnowned = b.syncsUnowned();
            return b.build();
        } finally {
            Files.deleteIfExists(file);
        }
    }

    /** The finder of the owners of locks virtual threads park on, made when first needed (it opens two JDK packages to itself). */
    private LockOwners lockOwners() {
        if (!lockOwnersTried) {
            lockOwnersTried = true;
            lockOwners = LockOwners.open(Agent.instrumentation());
        }
        return lockOwners;
    }

    /** A directory only this JVM's user can read: thread dumps name the application's threads and code. */
    private static Path privateDir() throws IOException {
        Path d;
        if (FileSystems.getDefault().supportedFileAttributeViews().contains("posix")) {
            d = Files.createTempDirectory("proftop-vthreads-",
                    PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
        } else {
            d = Files.createTempDirectory("proftop-vthreads-");
        }
        d.toFile().deleteOnExit();
        return d;
    }

    // --- under the collector's lock --------------------------------------------

    /** Sends a listing: its threads one by one, its groups, and the counts that close it. */
    private void listed(VirtualListing l, long at, long spent, long nextPeriod) {
        Map<Long, List<TraceEncoder.Frame>> stacks = new HashMap<>();
        for (VirtualListing.Entry e : l.listed) {
            List<TraceEncoder.Frame> last = lastStacks.get(e.id());
            boolean same = last != null && last.equals(e.stack());
            stacks.put(e.id(), e.stack());
            int flags = e.flags() | (same ? ThreadPoller.STACK_UNCHANGED : 0) | contentions.onLockFlag(e.state(), e.lockClass(), e.owner());
            enc.threadState(e.id(), at, e.state(), flags, e.lock(),
                    e.lockClass(), e.owner(), -1, same ? List.of() : e.stack(), e.carrier(), e.name(), e.container(), 0, 0);
        }
        lastStacks = stacks;
        for (VirtualListing.Group g : l.groups) {
            enc.threadGroup(at, g.container(), g.state(), g.flags() | contentions.onLockFlag(g.state(), g.lockClass(), g.owner()), g.lock(),
                    g.lockClass(), g.owner(), g.count(), g.site(),
                    g.stack());
        }
        contentions.witnessed(l.witnesses);
        platformBlocked = l.platformBlocked;
        listedAt = at;
        listedCount = l.count;
        startedSince = 0;
        endedSince = 0;
        cost = spent;
        period = nextPeriod;
        enc.virtualThreads(at, l.count, started, ended, TraceEncoder.VIRTUAL_LISTING | TraceEncoder.VIRTUAL_COMPLETE, at,
                l.listed.size(), l.groups.size(), spent, nextPeriod);
        long poll = opts.poll().toNanos();
        if (nextPeriod > poll + poll / 2) {
            say(1, String.format(java.util.Locale.ROOT, "virtual threads: %,d; listing them costs %s of CPU, so they are listed every %s "
                    + "(at most %d%% of a core); their number stays live in between", l.count, seconds(spent),
                    seconds(nextPeriod), Math.round(BUDGET * 100)));
        } else {
            say(0, "");
        }
    }

    /** Sends a note when it changed. */
    private void say(int level, String text) {
        if (text.equals(note)) {
            return;
        }
        note = text;
        enc.sourceNote(Collector.now(), NOTE_TOPIC, level, text);
    }

    private void counted(RecordedEvent e, boolean start) {
        long time = Collector.nanos(e.getStartTime());
        if (start) {
            started++;
            if (time > listedAt) {
                startedSince++;
            }
        } else {
            ended++;
            if (time > listedAt) {
                endedSince++;
            }
        }
    }

    private void pinned(RecordedEvent e) {
        RecordedThread t = e.getThread("eventThread");
        if (t == null) {
            return;
        }
        RecordedThread carrier = e.hasField("carrierThread") ? e.getThread("carrierThread") : null;
        String reason = e.hasField("pinnedReason") ? e.getString("pinnedReason") : "";
        String op = e.hasField("blockingOperation") ? e.getString("blockingOperation") : "";
        enc.virtualPinned(t.getJavaThreadId(), Collector.nanos(e.getStartTime()), e.getDuration().toNanos(),
                carrier == null ? 0 : carrier.getJavaThreadId(), reason == null ? "" : reason, op == null ? "" : op,
                Collector.frames(e.getStackTrace()));
    }

    /** A duration for a note: "2.1 s", "42 s", "3 min". */
    static String seconds(long ns) {
        double s = ns / 1e9;
        if (s < 10) {
            return String.format(java.util.Locale.ROOT, "%.1f s", s);
        }
        if (s < 120) {
            return Math.round(s) + " s";
        }
        return Math.round(s / 60) + " min";
    }
}
