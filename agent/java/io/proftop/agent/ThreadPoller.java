package io.proftop.agent;

import java.lang.management.LockInfo;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.lang.management.ThreadMXBean;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Looks at every thread at once: its exact state as the JVM knows it, the
 * lock it waits for (a monitor, or the blocker a java.util.concurrent lock,
 * condition or queue parks it on) and that lock's owner, its stack and its
 * CPU time. This is the present the client shows: jstack's view, once a
 * poll.
 *
 * One ThreadMXBean call takes every thread's information and stack at one
 * safepoint, so a poll is a consistent picture; CPU times are read right
 * after. Nothing here holds the collector's lock: a slow safepoint delays
 * the poll, not the JFR consumer.
 */
final class ThreadPoller {
    /** Frames taken of each thread's stack. */
    static final int STACK_DEPTH = 64;

    /**
     * One thread as a poll saw it; carries is the virtual thread a carrier
     * thread runs (0: none); blockedCount and waitedCount are how often it
     * has blocked on a monitor and waited (ThreadInfo's, 0: unknown), which
     * tell one block seen at two polls from two.
     */
    record Seen(long id, String name, boolean daemon, String state, int flags, long lock, String lockClass, long owner,
            long cpu, List<TraceEncoder.Frame> stack, long carries, long blockedCount, long waitedCount) {

        /** Whether the thread runs: in Java or in native code. */
        boolean running() {
            return state.equals(RUNNING) || state.equals(NATIVE);
        }
    }

    /**
     * A poll: its threads, seen between from and to (ns since the epoch),
     * CPU times read at cpuAt; and the witnesses of the threads held up by
     * a lock.
     */
    record Poll(long from, long to, long cpuAt, List<Seen> threads, List<Witness> witnesses) {}

    /**
     * A thread seen held up by a lock, alone, between from and to: a much
     * narrower moment than the poll's (which takes every thread's stack at
     * a safepoint), narrow enough to fall inside a contention of a few
     * milliseconds, so that JFR's report of it can be told to be about
     * this lock.
     */
    record Witness(long id, long from, long to, String state, long lock, String lockClass, long owner) {}

    // The states on the wire (docs/trace-extensions.md).
    static final String RUNNING = "running";
    static final String NATIVE = "native";
    static final String BLOCKED = "blocked";
    static final String PARKED = "parked";
    static final String WAITING = "waiting";
    static final String TIMED_WAITING = "timed-waiting";
    static final String SLEEPING = "sleeping";
    /**
     * A witness's state (never on the wire) for a thread seen waiting on a
     * lock other than the one its poll saw: a look without a stack cannot
     * tell Object.wait from a park.
     */
    static final String WAITING_OR_PARKED = "waiting-or-parked";

    // The flags of a threadState.
    static final int STACK_UNCHANGED = 1;
    static final int DAEMON = 2;
    static final int TIMED = 4;
    static final int SUSPENDED = 8;
    static final int VIRTUAL = 16;
    static final int CARRIER = 32;
    static final int PINNED = 64;
    static final int MOUNTED = 128;
    /** Parked on a lock (an ownable synchronizer): contention, even at an instant it has no owner. */
    static final int ON_LOCK = 256;

    /** The class a carrier thread waits on, as ThreadMXBean reports it, while it runs a virtual thread. */
    static final String VIRTUAL_THREAD_CLASS = "java.lang.VirtualThread";

    private final ThreadMXBean mx = ManagementFactory.getThreadMXBean();
    private final com.sun.management.ThreadMXBean cpuBean = mx instanceof com.sun.management.ThreadMXBean b ? b : null;
    private final boolean cpuTime;

    ThreadPoller() {
        boolean cpu = false;
        try {
            cpu = mx.isThreadCpuTimeSupported() && mx.isThreadCpuTimeEnabled();
        } catch (UnsupportedOperationException e) {
            // no CPU times on this JVM
        }
        cpuTime = cpu;
    }

    /**
     * What the poller remembers of a thread between polls: what it read of
     * it without a stack, and what it made of that with one.
     */
    private record Known(Thread.State state, long lock, boolean inNative, Seen seen, long polledAt) {}

    private final Map<Long, Known> known = new HashMap<>();
    private final ArrayDeque<Long> refreshQueue = new ArrayDeque<>();

    /**
     * Stacks of threads that nothing else calls for (they wait where they
     * waited) refreshed per poll, in turn: every stack is re-read now and
     * then, at a bounded cost per poll however many threads wait.
     */
    static final int REFRESH_PER_POLL = 32;

    /**
     * Stacks read at one safepoint at most. The first poll of a JVM of
     * thousands of threads needs every stack; read at once, they would
     * pause the application for as long as jstack does (hundreds of
     * milliseconds for 3,000 threads); in slices, each pause stays short.
     */
    static final int STACKS_PER_SAFEPOINT = 256;

    /**
     * Polls every thread but the agent's own, with CPU times and witnesses
     * when asked. Two steps, as jstack's accuracy needs and production
     * allows: every thread without its stack (no safepoint, cheap however
     * many threads there are), then one safepoint for the stacks of the
     * threads that need one: those that run (their stacks move), those
     * whose state or lock changed since the last poll, and a few others in
     * turn. A thread that waits where it waited keeps its stack.
     */
    Poll take(boolean cpu, boolean witnesses) {
        long[] ids = mx.getAllThreadIds();
        long from = Collector.now();
        Map<Long, Long> blockedBefore = blockedAtLastPoll();
        retriesLeft = OwnerlessMonitors.RETRIES;
        ThreadInfo[] brief = lookOutsideHandovers(blockedBefore, Map.of(), () -> mx.getThreadInfo(ids, 0));
        // The stacks' looks see some threads again: the others count as this look saw them.
        Map<Long, OwnerlessMonitors.Brief> briefSeen = seenOf(blockedBefore, Map.of(), brief);
        List<Long> need = new ArrayList<>();
        Map<Long, ThreadInfo> byId = new HashMap<>();
        for (ThreadInfo info : brief) {
            if (info == null || Collector.own(info.getThreadName())) {
                continue;
            }
            long id = info.getThreadId();
            byId.put(id, info);
            Known k = known.get(id);
            if (k == null || info.getThreadState() == Thread.State.RUNNABLE || k.state != info.getThreadState()
                    || k.lock != briefLock(info) || k.inNative != info.isInNative()) {
                need.add(id);
            }
        }
        known.keySet().retainAll(byId.keySet());
        for (int n = 0; n < REFRESH_PER_POLL && !refreshQueue.isEmpty(); n++) {
            long id = refreshQueue.pollFirst();
            if (byId.containsKey(id) && !need.contains(id)) {
                need.add(id);
            }
        }
        if (refreshQueue.isEmpty()) {
            refreshQueue.addAll(byId.keySet());
        }
        long[] needed = need.stream().mapToLong(Long::longValue).toArray();
        for (int at = 0; at < needed.length; at += STACKS_PER_SAFEPOINT) {
            long[] chunk = Arrays.copyOfRange(needed, at, Math.min(needed.length, at + STACKS_PER_SAFEPOINT));
            for (ThreadInfo info : lookOutsideHandovers(blockedBefore, briefSeen, () -> mx.getThreadInfo(chunk, STACK_DEPTH))) {
                if (info != null) {
                    byId.put(info.getThreadId(), info); // the later look, with its stack, is the truth
                    Seen s = seen(info, -1);
                    if (s == null) {
                        byId.remove(info.getThreadId());
                        known.remove(info.getThreadId());
                    } else {
                        known.put(info.getThreadId(), new Known(info.getThreadState(), briefLock(info), info.isInNative(), s, from));
                    }
                }
            }
        }
        long to = Collector.now();
        long[] seenIds = byId.keySet().stream().mapToLong(Long::longValue).toArray();
        long[] cpus = cpu && cpuTime ? cpuTimes(seenIds) : null;
        long cpuAt = Collector.now();
        List<Seen> out = new ArrayList<>(seenIds.length);
        for (int i = 0; i < seenIds.length; i++) {
            Known k = known.get(seenIds[i]);
            if (k == null) {
                Seen s = seen(byId.get(seenIds[i]), -1); // a thread too new for the stacks' look: without its stack
                if (s == null) {
                    continue;
                }
                k = new Known(byId.get(seenIds[i]).getThreadState(), briefLock(byId.get(seenIds[i])), false, s, from);
            }
            ThreadInfo info = byId.get(seenIds[i]);
            Seen s = k.seen();
            int flags = (s.flags() & ~(DAEMON | SUSPENDED)) | (info.isDaemon() ? DAEMON : 0) | (info.isSuspended() ? SUSPENDED : 0);
            // The owner is read fresh: a lock changes hands while its waiters wait on.
            long owner = s.lock() == 0 || info.getLockOwnerId() == s.id() ? 0 : Math.max(info.getLockOwnerId(), 0);
            // The counts of this poll's latest look, as the owner: a thread
            // whose state has not changed is not looked at again with its
            // stack (beyond REFRESH_PER_POLL a poll), and the counts of the
            // look that did are as old as that look.
            out.add(new Seen(s.id(), info.getThreadName(), info.isDaemon(), s.state(), flags, s.lock(), s.lockClass(), owner,
                    cpus == null ? -1 : cpus[i], s.stack(), s.carries(), info.getBlockedCount(), info.getWaitedCount()));
        }
        return new Poll(from, to, cpuAt, out, witnesses ? witness(out, new long[0]) : List.of());
    }

    /** Looks taken again because they fell in a monitor's handover (OwnerlessMonitors), since the poller began. */
    private long handoverRetries;

    /**
     * Looks the poll being taken may still take again: a budget for the
     * whole poll, not for each look, so that contention really over (which
     * looks the same) costs at most this many looks more, not this many for
     * every slice of stacks.
     */
    private int retriesLeft;

    long handoverRetries() {
        return handoverRetries;
    }

    /** The monitor each thread was blocked on at the last poll. */
    private Map<Long, Long> blockedAtLastPoll() {
        Map<Long, Long> out = new HashMap<>();
        for (Map.Entry<Long, Known> e : known.entrySet()) {
            if (e.getValue().state == Thread.State.BLOCKED && e.getValue().lock != 0) {
                out.put(e.getKey(), e.getValue().lock);
            }
        }
        return out;
    }

    /**
     * Takes a look, and takes it again a moment later while it falls in the
     * handover of a monitor the last poll saw threads blocked on, where
     * ThreadMXBean reads them all running (OwnerlessMonitors); at most
     * OwnerlessMonitors.RETRIES times in a poll, then the last look stands.
     * seen is what an earlier look of the poll saw of the threads this one
     * may leave out: one still blocked on a monitor says it has an owner.
     */
    private ThreadInfo[] lookOutsideHandovers(Map<Long, Long> blockedBefore, Map<Long, OwnerlessMonitors.Brief> seen,
            java.util.function.Supplier<ThreadInfo[]> look) {
        ThreadInfo[] infos = look.get();
        while (retriesLeft > 0 && blockedBefore.size() >= OwnerlessMonitors.MIN_WAITERS
                && OwnerlessMonitors.inHandover(blockedBefore, List.copyOf(seenOf(blockedBefore, seen, infos).values()))) {
            retriesLeft--;
            handoverRetries++;
            java.util.concurrent.locks.LockSupport.parkNanos(OwnerlessMonitors.RETRY_NANOS);
            infos = look.get();
        }
        return infos;
    }

    /**
     * The threads blocked at the last poll as a look saw them, over what
     * was seen of them before (seen): none of the others matters to a
     * handover.
     */
    private static Map<Long, OwnerlessMonitors.Brief> seenOf(Map<Long, Long> blockedBefore, Map<Long, OwnerlessMonitors.Brief> seen,
            ThreadInfo[] infos) {
        Map<Long, OwnerlessMonitors.Brief> out = new HashMap<>(seen);
        for (ThreadInfo info : infos) {
            if (info != null && blockedBefore.containsKey(info.getThreadId())) {
                out.put(info.getThreadId(), new OwnerlessMonitors.Brief(info.getThreadId(), info.getThreadState(), briefLock(info)));
            }
        }
        return out;
    }

    /** The stacks of the threads that run now, for sampling; nothing else is read or remembered. */
    Poll running() {
        long[] ids = mx.getAllThreadIds();
        long from = Collector.now();
        List<Long> run = new ArrayList<>();
        for (ThreadInfo info : mx.getThreadInfo(ids, 0)) {
            if (info != null && info.getThreadState() == Thread.State.RUNNABLE && !Collector.own(info.getThreadName())) {
                run.add(info.getThreadId());
            }
        }
        List<Seen> out = new ArrayList<>(run.size());
        if (!run.isEmpty()) {
            for (ThreadInfo info : mx.getThreadInfo(run.stream().mapToLong(Long::longValue).toArray(), STACK_DEPTH)) {
                Seen s = info == null ? null : seen(info, -1);
                if (s != null) {
                    out.add(s);
                }
            }
        }
        long to = Collector.now();
        return new Poll(from, to, to, out, List.of());
    }

    /** The lock a look without a stack says a thread waits for (0: none). */
    private static long briefLock(ThreadInfo info) {
        return info.getLockInfo() == null ? 0 : lockId(info.getLockInfo());
    }

    /**
     * Looks again, one by one and without stacks (no safepoint), at the
     * threads the poll saw held up by a lock, then at the threads of more
     * (those JFR saw park lately): each is a witness of the lock it is held
     * up by now, the poll's or another (a thread that takes one of many
     * locks in turn is seldom on the same one twice).
     */
    List<Witness> witness(List<Seen> seen, long[] more) {
        List<Witness> out = new ArrayList<>();
        java.util.Set<Long> looked = new java.util.HashSet<>();
        for (Seen s : seen) {
            if (s.lock() != 0 && looked.add(s.id())) {
                look(s.id(), s, out);
            }
        }
        for (long id : more) {
            if (looked.add(id)) {
                look(id, null, out);
            }
        }
        return out;
    }

    /**
     * One look at one thread; polled is what the poll saw of it, if
     * anything: on the same lock, its state then tells a park from an
     * Object.wait, which a look without a stack cannot.
     */
    private void look(long id, Seen polled, List<Witness> out) {
        long from = Collector.now();
        ThreadInfo info = mx.getThreadInfo(id);
        long to = Collector.now();
        LockInfo lock = info == null ? null : info.getLockInfo();
        if (lock == null || lock.getClassName().equals(VIRTUAL_THREAD_CLASS)) {
            return;
        }
        long lockId = lockId(lock);
        boolean knownKind = polled != null && polled.lock() == lockId && !polled.state().equals(BLOCKED);
        String state = switch (info.getThreadState()) {
            case BLOCKED -> BLOCKED;
            case WAITING, TIMED_WAITING -> knownKind ? polled.state() : WAITING_OR_PARKED;
            default -> null;
        };
        if (state != null) {
            long owner = Math.max(info.getLockOwnerId(), 0);
            out.add(new Witness(id, from, to, state, lockId, lock.getClassName(), owner == id ? 0 : owner));
        }
    }

    private long[] cpuTimes(long[] ids) {
        if (cpuBean != null) {
            try {
                return cpuBean.getThreadCpuTime(ids);
            } catch (UnsupportedOperationException e) {
                // fall through to one call per thread
            }
        }
        long[] out = new long[ids.length];
        for (int i = 0; i < ids.length; i++) {
            out[i] = mx.getThreadCpuTime(ids[i]);
        }
        return out;
    }

    /** A thread's state as jstack would name it; null for one not started or already over. */
    static Seen seen(ThreadInfo info, long cpu) {
        StackTraceElement[] st = info.getStackTrace();
        String state;
        int flags = info.isDaemon() ? DAEMON : 0;
        if (info.isSuspended()) {
            flags |= SUSPENDED;
        }
        LockInfo lock = info.getLockInfo();
        long owner = Math.max(info.getLockOwnerId(), 0);
        switch (info.getThreadState()) {
            case RUNNABLE -> state = reentering(st) ? BLOCKED : info.isInNative() ? NATIVE : RUNNING;
            case BLOCKED -> state = BLOCKED;
            case WAITING, TIMED_WAITING -> {
                boolean timed = info.getThreadState() == Thread.State.TIMED_WAITING;
                state = waitKind(st, lock, timed);
                if (timed) {
                    flags |= TIMED;
                }
            }
            default -> {
                return null;
            }
        }
        long carries = 0;
        if (lock != null && lock.getClassName().equals(VIRTUAL_THREAD_CLASS) && owner > 0) {
            // A carrier running a virtual thread: ThreadMXBean says it waits
            // on the virtual thread, "owned" by it. It runs it.
            carries = owner;
            state = RUNNING;
            flags = (flags & ~TIMED) | CARRIER;
            lock = null;
        }
        if (state.equals(RUNNING) || state.equals(NATIVE) || state.equals(SLEEPING)) {
            lock = null; // the lock of a thread that does not wait names nothing
        }
        if (owner == info.getThreadId()) {
            owner = 0;
        }
        return new Seen(info.getThreadId(), info.getThreadName(), info.isDaemon(), state, flags,
                lock == null ? 0 : lockId(lock), lock == null ? "" : lock.getClassName(), lock == null ? 0 : owner, cpu,
                frames(st), carries, info.getBlockedCount(), info.getWaitedCount());
    }

    /**
     * Whether a thread read RUNNABLE is in Object.wait: woken, it takes its
     * monitor again, and ThreadMXBean reads it RUNNABLE while that monitor
     * has no owner (OwnerlessMonitors), where jstack reads it BLOCKED
     * ("waiting to re-lock in wait()"). Read running, it was charged CPU
     * in Object.wait (40% of a JDBC workload's first seconds on H2).
     */
    static boolean reentering(StackTraceElement[] st) {
        return st.length > 0 && st[0].getClassName().equals("java.lang.Object") && st[0].getMethodName().startsWith("wait");
    }

    /**
     * What a waiting thread waits in, from its top frame: Object.wait (join
     * waits so too), Thread.sleep, or a park; without a stack, from its lock.
     */
    static String waitKind(StackTraceElement[] st, LockInfo lock, boolean timed) {
        if (st.length > 0) {
            String cls = st[0].getClassName();
            String m = st[0].getMethodName();
            if (cls.equals("java.lang.Object") && m.startsWith("wait")) {
                return timed ? TIMED_WAITING : WAITING;
            }
            if (cls.equals("java.lang.Thread") && m.startsWith("sleep")) {
                return SLEEPING;
            }
            if (m.equals("park") && (cls.equals("jdk.internal.misc.Unsafe") || cls.equals("sun.misc.Unsafe"))) {
                return PARKED;
            }
        }
        if (lock == null) {
            return timed ? SLEEPING : WAITING;
        }
        return timed ? TIMED_WAITING : WAITING;
    }

    /** The id of a lock on the wire: its identity hash, as Object.toString and jstack's lock names show it. */
    static long lockId(LockInfo lock) {
        return lock.getIdentityHashCode() & 0xffffffffL;
    }

    static List<TraceEncoder.Frame> frames(StackTraceElement[] stack) {
        TraceEncoder.Frame[] out = new TraceEncoder.Frame[stack.length];
        for (int i = 0; i < stack.length; i++) {
            out[i] = new TraceEncoder.Frame(stack[i].getClassName() + "." + stack[i].getMethodName(), stack[i].getLineNumber());
        }
        return Arrays.asList(out);
    }
}
