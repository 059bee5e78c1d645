package io.proftop.agent;

import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;

import jdk.jfr.consumer.RecordedClass;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordedThread;
import jdk.jfr.consumer.RecordingStream;

/**
 * Every contention and wait, from JFR, each reported once it is over with
 * its exact start, end and stack: monitor enters (jdk.JavaMonitorEnter),
 * Object.wait (jdk.JavaMonitorWait) and parks on java.util.concurrent
 * locks, conditions and queues (jdk.ThreadPark). The present (who is
 * blocked now) is the poll's: these are the counts and durations over time.
 *
 * The lock's name. The poll names a lock by its identity hash; JFR by an
 * address (a monitor's, or the blocker object's), which is only good for a
 * while: a deflated monitor's address may serve another object, and a
 * collection moves objects. An address is taken to be a lock the poll
 * named only on evidence: the poll (or a look between polls) saw the
 * event's thread held up by that lock, of the event's class, while the
 * event was under way, its whole observation inside the event: a thread is
 * held up by one thing at a time, so the event under way then is that very
 * contention or wait. Other events at that address are that lock while
 * nothing can have given the address to another object in between: no
 * monitor deflated (a monitor address), no collection moved objects (an
 * object address). So every stretch between two collections needs a look
 * of its own: the collector looks again right after each one (see
 * Collector.witnessAfterCollection). An event nothing names waits a few
 * polls for evidence, then goes out under its address: two names for one
 * lock, never one name for two.
 */
final class Contentions {
    /**
     * How far inside an event a witness must lie: JFR's clock and the wall
     * clock are measured to agree within a few microseconds (see JfrClock).
     * A look that falls within this of a park's start or end is not taken:
     * a thread may end one park and begin the next within microseconds.
     */
    private static final long MARGIN = 20_000L;
    /**
     * Polls an event waits for evidence of its lock: a lock contended often
     * is witnessed within a few, even on a loaded machine.
     */
    private static final int HOLD_POLLS = 10;
    /**
     * Observations kept per thread: a thread parked on a busy lock is looked
     * at some fifteen times a second when collections are frequent (see
     * Witnesses), and JFR reports its parks a second or two later.
     */
    private static final int OBSERVATIONS = 64;
    /**
     * An observation older than what JFR has delivered by this much is
     * dropped: the events still to come end later, and one that covers it
     * covers the later looks at the same thread too.
     */
    private static final long OBSERVATION_LIFE = 2_000_000_000L;
    private static final int MAX_HELD = 100_000;
    private static final int MAX_LINKS = 8192;
    /**
     * Links kept per address: at most one per LINK_SPACING unless a
     * collection came between (each stretch between collections needs its
     * own), enough to reach back past the time an event is held, so that an
     * event finds the link of its own stretch however many came after.
     */
    private static final int LINKS_PER_ADDRESS = 64;
    private static final long LINK_SPACING = 250_000_000L;

    /** Where an address lives: a monitor's, or a parked-on object's. */
    enum Space { MONITOR, OBJECT }

    /**
     * The poll saw a thread held up by a lock, between from and to; space is
     * null for a thread seen waiting without knowing whether in Object.wait
     * or in a park (a look without a stack tells the lock, not which).
     */
    private record Observed(long from, long to, Space space, boolean waiting, long lock, String className) {
        /** Whether an event of this kind may be what the thread was held up by. */
        boolean sameKind(Event ev) {
            if (space == null) {
                return ev.space() == Space.OBJECT || ev.waiting();
            }
            return space == ev.space() && waiting == ev.waiting();
        }
    }

    /** A JFR event: a contention (or wait) over [start, end] at an address. */
    private record Event(long thread, Space space, boolean waiting, long start, long end, long address, String className,
            long ownerOrTimeout, List<TraceEncoder.Frame> stack, long pollsAt) {}

    /** What an address was seen to name, and when (JFR takes an event's address as it ends). */
    private record Link(long lock, String className, Space space, long at) {}

    /**
     * An address's links, in the order they were seen (which is the order
     * of their times: JFR delivers its events in the order they end), and
     * the stamp of the latest added.
     */
    private static final class Links {
        final ArrayDeque<Link> list = new ArrayDeque<>();
        long stamp;
    }

    /**
     * A held event, and what it was last asked with: the stamp of its
     * address's links then, and whether JFR had delivered far enough past
     * it that time alone can name it no more (only a new link can).
     */
    private static final class Held {
        final Event ev;
        long stamp = -1;
        boolean settled;

        Held(Event ev) {
            this.ev = ev;
        }
    }

    private final Options opts;
    private final TraceEncoder enc;
    private final Names names;
    private final Epochs epochs = new Epochs();
    private final JfrClock clock = new JfrClock();
    private final Map<Long, ArrayDeque<Observed>> observed = new HashMap<>();
    // What each address was seen to name, the latest few times: a lock moved
    // by collections may come back to an address it had.
    private final Map<Long, Links> links = Names.bounded(MAX_LINKS);
    private long linkStamp; // stamps each link added, in order
    private final ArrayDeque<Held> held = new ArrayDeque<>();
    // Classes of java.util.concurrent synchronizers that are locks (a park on
    // them is contention, not a wait): the JDK's, and any the poll sees owned.
    private final Map<String, Boolean> lockClasses = Names.bounded(4096);
    private long polls;
    /**
     * The threads JFR saw park lately, the latest last, with when their
     * latest park ended and whether it was on a lock: the threads to look at
     * after a collection, whether or not a poll caught them parked.
     */
    private final Map<Long, long[]> parkers = Names.bounded(MAX_PARKERS);
    private static final int MAX_PARKERS = 1024;
    /** How long a thread counts as parking lately after its latest park ended. */
    private static final long PARKER_LIFE = 5_000_000_000L;

    private static final Set<String> JDK_LOCKS = Set.of(
            "java.util.concurrent.locks.ReentrantLock$NonfairSync",
            "java.util.concurrent.locks.ReentrantLock$FairSync",
            "java.util.concurrent.locks.ReentrantReadWriteLock$NonfairSync",
            "java.util.concurrent.locks.ReentrantReadWriteLock$FairSync",
            "java.util.concurrent.locks.StampedLock",
            "java.util.concurrent.Semaphore$NonfairSync",
            "java.util.concurrent.Semaphore$FairSync");

    Contentions(Options opts, TraceEncoder enc, Names names) {
        this.opts = opts;
        this.enc = enc;
        this.names = names;
    }

    /** Enables JFR's events and routes them here, under the collector's lock. */
    void enable(RecordingStream rs, Consumer<Runnable> underLock) {
        rs.enable("jdk.JavaMonitorEnter").withThreshold(opts.threshold()).withStackTrace();
        rs.enable("jdk.JavaMonitorWait").withThreshold(opts.threshold()).withStackTrace();
        rs.enable("jdk.ThreadPark").withThreshold(opts.parkThreshold()).withStackTrace();
        rs.onEvent("jdk.JavaMonitorEnter", e -> underLock.accept(() -> onMonitor(e, false)));
        rs.onEvent("jdk.JavaMonitorWait", e -> underLock.accept(() -> onMonitor(e, true)));
        rs.onEvent("jdk.ThreadPark", e -> underLock.accept(() -> onPark(e)));
        if (!epochs.countsDeflations()) {
            // JDK 24 and later dropped the deflation counter: JFR tells
            // each deflation instead (an event those JDKs have).
            rs.enable("jdk.JavaMonitorDeflate").withoutStackTrace().withThreshold(java.time.Duration.ZERO);
            rs.onEvent("jdk.JavaMonitorDeflate", e -> underLock.accept(() -> {
                long at = Collector.nanos(e.getStartTime());
                epochs.deflation(at);
                reached(at);
            }));
        }
        clock.enable(rs, underLock);
    }

    /** Marks JFR's clock against the wall clock; called at each poll. */
    void mark() {
        clock.mark();
    }

    /** Whether a park on an object of this class is contention for a lock, not a wait. */
    boolean isLock(String className) {
        return JDK_LOCKS.contains(className) || lockClasses.containsKey(className);
    }

    /** A thread state's ON_LOCK flag: parked on a lock, owned now or not, as the events here count it. */
    int onLockFlag(String state, String lockClass, long owner) {
        return state.equals(ThreadPoller.PARKED) && (owner != 0 || isLock(lockClass)) ? ThreadPoller.ON_LOCK : 0;
    }

    // --- what the poll saw ---------------------------------------------------

    /** JFR recorded a collection (jdk.GarbageCollection's name) over [start, end]: objects may have moved in between. */
    void collection(String name, long start, long end) {
        epochs.collection(name, start, end);
        reached(end);
    }

    /** JFR has delivered its events up to time: one ending before it will not come now (JFR delivers in order). */
    void reached(long time) {
        epochs.reached(time);
    }

    /** Takes a poll: what it says of lock classes, and its witnesses. */
    void polled(ThreadPoller.Poll p) {
        polls++;
        epochs.polled(p.to());
        for (ThreadPoller.Seen s : p.threads()) {
            if (s.state().equals(ThreadPoller.PARKED) && s.owner() != 0 && s.lock() != 0) {
                lockClasses.put(s.lockClass(), Boolean.TRUE);
            }
        }
        witnessed(p.witnesses());
    }

    /** Takes witnesses of threads held up by locks (a poll's, or those taken between polls). */
    void witnessed(List<ThreadPoller.Witness> witnesses) {
        for (ThreadPoller.Witness w : witnesses) {
            Space space;
            boolean waiting;
            switch (w.state()) {
                case ThreadPoller.BLOCKED -> {
                    space = Space.MONITOR;
                    waiting = false;
                }
                case ThreadPoller.WAITING, ThreadPoller.TIMED_WAITING -> {
                    space = Space.MONITOR;
                    waiting = true;
                }
                case ThreadPoller.PARKED -> {
                    space = Space.OBJECT;
                    waiting = !isLock(w.lockClass());
                }
                case ThreadPoller.WAITING_OR_PARKED -> {
                    space = null;
                    waiting = true;
                }
                default -> {
                    continue;
                }
            }
            ArrayDeque<Observed> q = observed.computeIfAbsent(w.id(), k -> new ArrayDeque<>());
            long stale = epochs.reached() - OBSERVATION_LIFE;
            while (!q.isEmpty() && (q.size() >= OBSERVATIONS || clock.toJfr(q.peekFirst().to()) < stale)) {
                q.pollFirst();
            }
            q.addLast(new Observed(w.from(), w.to(), space, waiting, w.lock(), w.lockClass()));
        }
    }

    void ended(long thread) {
        observed.remove(thread);
        parkers.remove(thread);
    }

    /** The threads JFR saw park lately, at most max, those on locks first, then the latest. */
    long[] recentParkers(int max) {
        long since = epochs.reached() - PARKER_LIFE;
        List<Long> onLocks = new java.util.ArrayList<>();
        List<Long> others = new java.util.ArrayList<>();
        for (Map.Entry<Long, long[]> p : parkers.entrySet()) {
            if (p.getValue()[0] >= since) {
                (p.getValue()[1] != 0 ? onLocks : others).add(p.getKey());
            }
        }
        java.util.Collections.reverse(onLocks);
        java.util.Collections.reverse(others);
        onLocks.addAll(others);
        return onLocks.stream().limit(max).mapToLong(Long::longValue).toArray();
    }

    // --- what JFR recorded ------------------------------------------------------

    private void onMonitor(RecordedEvent e, boolean waiting) {
        RecordedThread t = e.getThread("eventThread");
        if (t == null || Collector.own(t.getJavaName())) {
            return;
        }
        RecordedClass cls = e.getClass("monitorClass");
        if (cls != null && cls.getName().equals(ThreadPoller.VIRTUAL_THREAD_CLASS)) {
            return; // the JDK's own mounting of a virtual thread, not the application's lock
        }
        long extra;
        if (waiting) {
            extra = e.getLong("timeout");
        } else {
            RecordedThread prev = e.getThread("previousOwner");
            extra = prev == null ? 0 : prev.getJavaThreadId();
        }
        take(t, Space.MONITOR, waiting, e, cls == null ? "java.lang.Object" : Names.dumpName(cls.getName()), extra);
    }

    private void onPark(RecordedEvent e) {
        RecordedThread t = e.getThread("eventThread");
        RecordedClass cls = e.getClass("parkedClass");
        if (t == null || cls == null || Collector.own(t.getJavaName())) {
            return; // a park on nothing (LockSupport.parkNanos(null)) is a sleep
        }
        if (cls.getName().equals(ThreadPoller.VIRTUAL_THREAD_CLASS)) {
            return; // a carrier waiting for the virtual thread it runs, not the application's lock
        }
        long timeout = e.getLong("timeout");
        take(t, Space.OBJECT, !isLock(cls.getName()), e, Names.dumpName(cls.getName()), timeout > 0 ? timeout / 1_000_000 : 0);
    }

    private void take(RecordedThread t, Space space, boolean waiting, RecordedEvent e, String cls, long extra) {
        long start = Collector.nanos(e.getStartTime());
        long end = Math.max(Collector.nanos(e.getEndTime()), start);
        reached(end);
        Event ev = new Event(t.getJavaThreadId(), space, waiting, start, end, e.getLong("address"), cls, extra,
                Collector.frames(e.getStackTrace()), polls);
        if (space == Space.OBJECT) {
            parkers.remove(ev.thread()); // to the end: the latest last
            parkers.put(ev.thread(), new long[] {end, waiting ? 0 : 1});
        }
        Long seen = witnessed(ev);
        long lock = seen != null ? seen : linked(ev);
        if (lock >= 0) {
            report(ev, lock);
            return;
        }
        if (lock == NEVER) {
            report(ev, unnamed(ev.address()));
            return;
        }
        if (held.size() >= MAX_HELD) {
            Event old = held.pollFirst().ev;
            report(old, unnamed(old.address()));
        }
        held.addLast(new Held(ev));
    }

    /** The lock the poll saw the event's thread wait for during the event; it names the address from now on. */
    private Long witnessed(Event ev) {
        ArrayDeque<Observed> q = observed.get(ev.thread());
        if (q == null) {
            return null;
        }
        // The looks are in the order taken: from the latest back, past those
        // after the event, to the first before it.
        for (Iterator<Observed> it = q.descendingIterator(); it.hasNext();) {
            Observed o = it.next();
            long from = clock.toJfr(o.from());
            long to = clock.toJfr(o.to());
            if (to + MARGIN > ev.end()) {
                continue;
            }
            if (ev.start() + MARGIN > from) {
                break;
            }
            if (o.sameKind(ev) && o.className().equals(ev.className())) {
                // JFR takes the address as the event ends: that is when it names the lock.
                Links ls = links.computeIfAbsent(ev.address(), k -> new Links());
                Link last = ls.list.peekLast();
                if (last == null || last.lock() != o.lock() || last.space() != ev.space() || last.at() + LINK_SPACING < ev.end()
                        || ev.space() == Space.OBJECT && epochs.mayHaveMoved(Math.min(last.at(), ev.end()), Math.max(last.at(), ev.end()))) {
                    if (ls.list.size() >= LINKS_PER_ADDRESS) {
                        ls.list.pollFirst();
                    }
                    ls.list.addLast(new Link(o.lock(), o.className(), ev.space(), ev.end()));
                    ls.stamp = ++linkStamp;
                }
                return o.lock();
            }
        }
        return null;
    }

    /** What linked answers besides a lock's id (identity hashes are never negative). */
    private static final long NOT_YET = -1;
    private static final long NEVER = -2;

    /**
     * The lock the event's address was seen to name, if nothing can have
     * renamed it between then and the event's end (when JFR took the address);
     * NEVER when no look can name it any more, NOT_YET when one still may.
     */
    private long linked(Event ev) {
        Links ls = links.get(ev.address());
        if (ls == null) {
            return NOT_YET;
        }
        // Only the links nearest the event's end, before and after it, are
        // asked: what nothing renamed between a farther link and the event,
        // nothing renamed between a nearer one and the event either, and an
        // address names one lock of a class while nothing renames it. Each
        // question costs; an event may be asked again at every release.
        Link before = null;
        Link after = null;
        for (Iterator<Link> it = ls.list.descendingIterator(); it.hasNext();) { // the latest first
            Link l = it.next();
            if (l.space() != ev.space() || !l.className().equals(ev.className())) {
                continue;
            }
            if (l.at() > ev.end()) {
                after = l;
            } else {
                before = l;
                break;
            }
        }
        if (before != null && epochs.unchanged(ev.space(), before.at(), ev.end())) {
            return before.lock();
        }
        if (after != null && epochs.unchanged(ev.space(), ev.end(), after.at())) {
            return after.lock();
        }
        // Links come in the order of their times: none can come nearer than
        // the one after; once what lies between has settled, the answer is final.
        return after != null && epochs.settled(after.at()) ? NEVER : NOT_YET;
    }

    /**
     * Reports the held events that are now named, and those that waited
     * long enough (or all, when the run stops), under their address.
     */
    void release(long now, boolean all) {
        for (Iterator<Held> it = held.iterator(); it.hasNext();) {
            Held h = it.next();
            Event ev = h.ev;
            Links ls = links.get(ev.address());
            long lock = NOT_YET;
            // Asked again only when it may answer otherwise: a link came
            // for its address, or time may still tell (an address nothing
            // was seen to name stays unnamed).
            if (ls != null && (ls.stamp != h.stamp || !h.settled)) {
                lock = linked(ev);
                h.stamp = ls.stamp;
                h.settled = epochs.settled(ev.end());
            }
            if (lock >= 0) {
                it.remove();
                report(ev, lock);
            } else if (lock == NEVER || all || polls - ev.pollsAt() >= HOLD_POLLS) {
                it.remove();
                report(ev, unnamed(ev.address()));
            }
        }
    }

    /**
     * The id a lock nothing named goes by: its address, which JFR gives,
     * kept apart from every identity hash (what a named lock goes by, 31
     * bits): an address that low (a heap placed low in memory) gets bit 62,
     * so that two locks are never taken for one.
     */
    static long unnamed(long address) {
        return address >= 0 && address <= Integer.MAX_VALUE ? address | 1L << 62 : address;
    }

    /** Reports a contention or wait, begin and end, on lock obj. */
    private void report(Event ev, long obj) {
        names.object(obj, ev.className(), ev.start());
        if (ev.waiting()) {
            long timeout = ev.ownerOrTimeout();
            enc.monWait(false, ev.thread(), ev.start(), obj, timeout, ev.stack());
            enc.monWait(true, ev.thread(), ev.end(), obj, timeout, List.of());
        } else {
            enc.monContendedEnter(ev.thread(), ev.start(), obj, ev.ownerOrTimeout(), ev.stack());
            enc.monContendedEntered(ev.thread(), ev.end(), obj, List.of());
        }
    }
}
