package io.proftop.agent;

import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * One listing of the virtual threads, built from a thread dump one thread
 * at a time in bounded memory: a few threads listed one by one (with their
 * stacks) and the rest counted in groups alike in container, state, lock
 * and the method they are in, so that 100,000 threads read as a handful of
 * rows ("3,120 parked in OrderService.await").
 *
 * Listed first are the threads that matter to contention: the owners of
 * the locks virtual threads wait for (a deadlock's threads all are), then
 * those blocked on a lock someone owns, those on a carrier (running, or
 * pinned), those waiting on a lock; then a few of every group, so that a
 * group can be opened to see its threads. Monitor owners come from the
 * monitors each thread of the dump (platform threads too) says it holds.
 */
final class VirtualListing {
    /** Threads listed one by one. */
    static final int MAX_LISTED = 1000;
    /** Groups; beyond, threads fold into one group per container and state. */
    static final int MAX_GROUPS = 500;
    /** Threads whose details (lock, owned monitors, stack) are kept until the listing is chosen. */
    static final int MAX_RECORDS = 20_000;
    /** Members of each group listed, so that it can be opened. */
    static final int SAMPLES_PER_GROUP = 4;
    /** Locks whose owner or waiters are remembered. */
    private static final int MAX_LOCKS = 65_536;
    /** Distinct frames remembered while reading (most stacks share them). */
    private static final int MAX_FRAMES = 16_384;

    /** One virtual thread listed; seenAt is the dump's time of it (ISO-8601, JDK 25), parsed only if it is listed. */
    record Entry(long id, String name, String container, String state, int flags, long lock, String lockClass,
            long owner, long carrier, List<TraceEncoder.Frame> stack, String seenAt) {}

    /**
     * A platform thread the dump saw blocked on a monitor a virtual thread
     * holds, at its top frame: ThreadMXBean (JDK 25) calls such a thread
     * RUNNABLE, waiting for nothing, which would hide a deadlock between
     * platform and virtual threads.
     */
    record Blocked(long lock, String lockClass, long owner, TraceEncoder.Frame top) {}

    /** Threads not listed, alike in all but their ids. */
    record Group(String container, String state, int flags, long lock, String lockClass, long owner, String site,
            long count, List<TraceEncoder.Frame> stack) {}

    final List<Entry> listed;
    final List<Group> groups;
    /** Virtual threads the dump held. */
    final long count;
    /** Witnesses for Contentions: listed threads seen on a lock, at the moment the dump looked at each. */
    final List<ThreadPoller.Witness> witnesses;
    /** Platform threads blocked on monitors virtual threads hold, by id. */
    final Map<Long, Blocked> platformBlocked;

    private VirtualListing(List<Entry> listed, List<Group> groups, long count, List<ThreadPoller.Witness> witnesses,
            Map<Long, Blocked> platformBlocked) {
        this.listed = listed;
        this.groups = groups;
        this.count = count;
        this.witnesses = witnesses;
        this.platformBlocked = platformBlocked;
    }

    /** The key of a group. */
    private record Key(String container, String state, int flags, long lock, String lockClass, long owner, String site) {}

    /** A group being counted, with the first few members kept. */
    private static final class Counted {
        long count;
        List<TraceEncoder.Frame> stack;
        final List<Entry> samples = new ArrayList<>(SAMPLES_PER_GROUP);
    }

    /** Builds a listing from a dump's threads. */
    static final class Builder {
        private final Set<Long> platform; // the platform threads, for dumps that do not mark virtual ones
        private final Map<Key, Counted> counted = new LinkedHashMap<>();
        private final List<Entry> records = new ArrayList<>();
        private final Map<Long, Long> ownerOf = new HashMap<>(); // monitor -> thread holding it
        private final Map<Long, Boolean> waitedFor = new HashMap<>(); // locks virtual threads wait for
        private final Map<String, TraceEncoder.Frame> frames = new HashMap<>();
        private final Map<Long, Blocked> platformBlocked = new HashMap<>();
        // Locks virtual threads park on whose owner the dump does not say, and
        // their owners as LockOwners found them (0: none now).
        private final Set<Long> unownedParks = new java.util.HashSet<>();
        private boolean syncsUnowned;
        private Map<Long, Long> parkOwners;
        private final Set<Long> lockOwnerIds = new java.util.HashSet<>();
        private long count;

        /**
         * platformThreads: the platform threads, for dumps that do not mark
         * virtual ones; parkOwners: the owners of the locks threads park on,
         * by lock, as LockOwners found them just before the dump (empty: not
         * known), so that an owner is listed one by one, not in a group.
         */
        Builder(Set<Long> platformThreads, Map<Long, Long> parkOwners) {
            this.platform = platformThreads;
            this.parkOwners = parkOwners;
            for (long o : parkOwners.values()) {
                if (o != 0 && lockOwnerIds.size() < MAX_LOCKS) {
                    lockOwnerIds.add(o);
                }
            }
        }

        /** Takes one thread of the dump. */
        void add(ThreadDumpReader.DumpedThread t) {
            boolean virtual = t.virtualKnown ? t.virtual : t.tid >= 0 && !platform.contains(t.tid);
            if (!virtual) {
                owns(t, t.tid);
                if ("BLOCKED".equals(t.state) && t.blockedOn != null && !t.stack.isEmpty() && platformBlocked.size() < MAX_RECORDS) {
                    int at = t.blockedOn.lastIndexOf('@');
                    try {
                        long lock = Long.parseLong(t.blockedOn.substring(at + 1), 16) & 0xffffffffL;
                        platformBlocked.put(t.tid, new Blocked(lock, t.blockedOn.substring(0, Math.max(at, 0)), 0,
                                frame(t.stack.get(0))));
                    } catch (NumberFormatException | IndexOutOfBoundsException e) {
                        // not a class@hash name
                    }
                }
                return;
            }
            String state = stateOf(t);
            if (state == null) {
                return; // not started, or over
            }
            count++;
            owns(t, t.tid);
            int flags = ThreadPoller.VIRTUAL;
            if ("TIMED_WAITING".equals(t.state)) {
                flags |= ThreadPoller.TIMED;
            }
            if (t.carrier >= 0) {
                flags |= ThreadPoller.MOUNTED;
                if (!state.equals(ThreadPoller.RUNNING)) {
                    flags |= ThreadPoller.PINNED;
                }
            }
            String lockName = switch (state) {
                case ThreadPoller.BLOCKED -> t.blockedOn;
                case ThreadPoller.WAITING, ThreadPoller.TIMED_WAITING -> t.waitingOn;
                case ThreadPoller.PARKED -> t.parkBlocker;
                default -> null;
            };
            long lock = 0;
            String lockClass = "";
            if (lockName != null) {
                int at = lockName.lastIndexOf('@');
                if (at > 0) {
                    try {
                        lock = Long.parseLong(lockName.substring(at + 1), 16) & 0xffffffffL;
                        lockClass = lockName.substring(0, at);
                    } catch (NumberFormatException e) {
                        lock = 0;
                    }
                }
            }
            long owner = state.equals(ThreadPoller.PARKED) && t.parkBlockerOwner > 0 ? t.parkBlockerOwner : 0;
            if (state.equals(ThreadPoller.PARKED) && lock != 0 && owner == 0 && lockClass.endsWith("Sync")) {
                syncsUnowned = true;
            }
            if (state.equals(ThreadPoller.PARKED) && lock != 0 && owner == 0) {
                Long o = parkOwners.get(lock);
                owner = o == null || o == t.tid ? 0 : o;
            }
            // The JDK's ownable synchronizers are Syncs (ReentrantLock$NonfairSync…): a
            // condition, a queue or a future owns nothing, and looking for it would
            // walk every thread in vain.
            if (state.equals(ThreadPoller.PARKED) && lock != 0 && owner == 0 && !parkOwners.containsKey(lock)
                    && lockClass.endsWith("Sync") && unownedParks.size() < MAX_LOCKS) {
                unownedParks.add(lock);
            }
            if (lock != 0 && waitedFor.size() < MAX_LOCKS) {
                waitedFor.put(lock, Boolean.TRUE);
            }
            List<TraceEncoder.Frame> stack = frames(t.stack);
            String site = siteOf(stack);
            boolean detailed = lock != 0 || t.carrier >= 0 || !t.monitorsOwned.isEmpty() || lockOwnerIds.contains(t.tid);
            Entry e = new Entry(t.tid, t.name, t.container, state, flags, lock, lockClass, owner, Math.max(t.carrier, 0),
                    stack, t.time);
            if (detailed && records.size() < MAX_RECORDS) {
                records.add(e);
                return;
            }
            group(e, site);
        }

        /** Records the monitors a thread holds (not the one it waits in: Object.wait let it go). */
        private void owns(ThreadDumpReader.DumpedThread t, long tid) {
            for (String m : t.monitorsOwned) {
                if (m.equals(t.waitingOn) || ownerOf.size() >= MAX_LOCKS) {
                    continue;
                }
                int at = m.lastIndexOf('@');
                if (at > 0) {
                    try {
                        ownerOf.put(Long.parseLong(m.substring(at + 1), 16) & 0xffffffffL, tid);
                    } catch (NumberFormatException e) {
                        // not a class@hash name: nothing to record
                    }
                }
            }
        }

        private void group(Entry e, String site) {
            Key k = new Key(e.container(), e.state(), e.flags() & ~ThreadPoller.TIMED, e.lock(), e.lockClass(), e.owner(), site);
            Counted c = counted.get(k);
            if (c == null) {
                if (counted.size() >= MAX_GROUPS) {
                    // Too many kinds: fold into one group per container and state.
                    k = new Key(e.container(), e.state(), e.flags() & ThreadPoller.VIRTUAL, 0, "", 0, "");
                    c = counted.get(k);
                }
                if (c == null) {
                    c = new Counted();
                    c.stack = e.stack();
                    counted.put(k, c);
                }
            }
            c.count++;
            if (c.samples.size() < SAMPLES_PER_GROUP) {
                c.samples.add(e);
            }
        }

        /**
         * The locks virtual threads park on whose owners the dump did not
         * say (JDK 25 names the lock only): for LockOwners to find.
         */
        Set<Long> unownedParks() {
            return unownedParks;
        }

        /** Whether virtual threads park on locks whose owners the dump does not say, found or not. */
        boolean syncsUnowned() {
            return syncsUnowned;
        }

        /** Takes the owners LockOwners found of unownedParks, by lock (0: owned by nobody now). */
        void parkOwners(Map<Long, Long> owners) {
            Map<Long, Long> all = new HashMap<>(parkOwners);
            all.putAll(owners);
            parkOwners = all;
        }

        /** The owner a lock a thread parks on has, as found, 0 when not found or its own. */
        private long parkOwner(long lock, long thread) {
            Long o = parkOwners.get(lock);
            return o == null || o == thread ? 0 : o;
        }

        /** Chooses what is listed, counts the rest, and returns the listing. */
        VirtualListing build() {
            List<Entry> resolved = new ArrayList<>(records.size());
            Set<Long> owners = new java.util.HashSet<>();
            for (Entry e : records) {
                long owner = e.owner();
                if (owner == 0 && e.lock() != 0 && !e.state().equals(ThreadPoller.PARKED)) {
                    Long o = ownerOf.get(e.lock());
                    owner = o == null || o == e.id() ? 0 : o;
                } else if (owner == 0 && e.lock() != 0) {
                    owner = parkOwner(e.lock(), e.id());
                }
                if (owner != 0) {
                    owners.add(owner);
                }
                resolved.add(owner == e.owner() ? e : withOwner(e, owner));
            }
            for (Map.Entry<Long, Long> o : ownerOf.entrySet()) {
                if (waitedFor.containsKey(o.getKey())) {
                    owners.add(o.getValue());
                }
            }
            for (long o : parkOwners.values()) {
                if (o != 0) {
                    owners.add(o);
                }
            }
            List<Entry> listed = new ArrayList<>();
            Set<Long> taken = new java.util.HashSet<>();
            // Owners of locks others wait for; threads blocked on an owned
            // lock; threads on a carrier; threads waiting on a lock.
            for (int pass = 0; pass < 4; pass++) {
                for (Entry e : resolved) {
                    if (listed.size() >= MAX_LISTED) {
                        break;
                    }
                    boolean pick = switch (pass) {
                        case 0 -> owners.contains(e.id());
                        case 1 -> e.owner() != 0;
                        case 2 -> (e.flags() & ThreadPoller.MOUNTED) != 0;
                        default -> e.lock() != 0;
                    };
                    if (pick && taken.add(e.id())) {
                        listed.add(e);
                    }
                }
            }
            for (Entry e : resolved) {
                if (!taken.contains(e.id())) {
                    group(e, siteOf(e.stack()));
                }
            }
            // A few of every group, which they then leave.
            List<Group> groups = new ArrayList<>(counted.size());
            for (Map.Entry<Key, Counted> g : counted.entrySet()) {
                Counted c = g.getValue();
                long n = c.count;
                for (Entry e : c.samples) {
                    if (listed.size() < MAX_LISTED && !taken.contains(e.id()) && taken.add(e.id())) {
                        listed.add(e);
                        n--;
                    }
                }
                if (n > 0) {
                    Key k = g.getKey();
                    long owner = k.owner() == 0 && k.state().equals(ThreadPoller.PARKED) ? parkOwner(k.lock(), 0) : k.owner();
                    groups.add(new Group(k.container(), k.state(), k.flags(), k.lock(), k.lockClass(), owner, k.site(), n, c.stack));
                }
            }
            List<ThreadPoller.Witness> witnesses = new ArrayList<>();
            for (Entry e : listed) {
                long seen = e.lock() == 0 ? 0 : seenAt(e.seenAt());
                if (seen > 0) {
                    witnesses.add(new ThreadPoller.Witness(e.id(), seen, seen, e.state(), e.lock(), e.lockClass(), e.owner()));
                }
            }
            // Of the platform threads blocked, those on a monitor a virtual thread holds.
            Map<Long, Blocked> blocked = new HashMap<>();
            for (Map.Entry<Long, Blocked> b : platformBlocked.entrySet()) {
                Long owner = ownerOf.get(b.getValue().lock());
                if (owner != null && !platform.contains(owner)) {
                    Blocked v = b.getValue();
                    blocked.put(b.getKey(), new Blocked(v.lock(), v.lockClass(), owner, v.top()));
                }
            }
            return new VirtualListing(listed, groups, count, witnesses, blocked);
        }

        private static Entry withOwner(Entry e, long owner) {
            return new Entry(e.id(), e.name(), e.container(), e.state(), e.flags(), e.lock(), e.lockClass(), owner, e.carrier(),
                    e.stack(), e.seenAt());
        }

        /** A dump's frames ("java.base/java.lang.Thread.sleep(Thread.java:540)") as trace frames, shared where equal. */
        private List<TraceEncoder.Frame> frames(List<String> stack) {
            TraceEncoder.Frame[] out = new TraceEncoder.Frame[stack.size()];
            for (int i = 0; i < out.length; i++) {
                String s = stack.get(i);
                TraceEncoder.Frame f = frames.get(s);
                if (f == null) {
                    f = frame(s);
                    if (frames.size() < MAX_FRAMES) {
                        frames.put(s, f);
                    }
                }
                out[i] = f;
            }
            return List.of(out);
        }
    }

    /** The state on the wire of a virtual thread of the dump; null for one not alive. */
    static String stateOf(ThreadDumpReader.DumpedThread t) {
        String s = t.state;
        if (s == null) {
            // JDK 21 to 24 say no state: it shows in the stack.
            if (t.stack.isEmpty()) {
                return ThreadPoller.RUNNING; // started, waiting for a carrier to run it first
            }
            String top = method(t.stack.get(0));
            if (!top.startsWith("java.lang.VirtualThread.park") && !top.equals("jdk.internal.misc.Unsafe.park")) {
                return ThreadPoller.RUNNING;
            }
            return waitKind(t.stack, false);
        }
        return switch (s) {
            case "RUNNABLE" -> ThreadPoller.RUNNING;
            case "BLOCKED" -> ThreadPoller.BLOCKED;
            case "WAITING", "TIMED_WAITING" -> t.waitingOn != null ? (s.equals("WAITING") ? ThreadPoller.WAITING
                    : ThreadPoller.TIMED_WAITING) : waitKind(t.stack, s.equals("TIMED_WAITING"));
            default -> null;
        };
    }

    /** What a virtual thread waits in, from the top of its stack: Object.wait, a sleep, or a park. */
    private static String waitKind(List<String> stack, boolean timed) {
        for (int i = 0; i < Math.min(stack.size(), 8); i++) {
            String m = method(stack.get(i));
            if (m.startsWith("java.lang.Object.wait")) {
                return timed ? ThreadPoller.TIMED_WAITING : ThreadPoller.WAITING;
            }
            if (m.equals("java.lang.VirtualThread.sleepNanos") || m.startsWith("java.lang.Thread.sleep")) {
                return ThreadPoller.SLEEPING;
            }
        }
        return ThreadPoller.PARKED;
    }

    /** The method of a dump's frame, without module or loader. */
    private static String method(String frame) {
        int paren = frame.indexOf('(');
        String m = paren < 0 ? frame : frame.substring(0, paren);
        int slash = m.lastIndexOf('/');
        return slash < 0 ? m : m.substring(slash + 1);
    }

    /** A dump's frame as a trace frame; -2 for a native method, -1 for an unknown line, as StackTraceElement says. */
    static TraceEncoder.Frame frame(String s) {
        long line = -1;
        int paren = s.indexOf('(');
        if (paren >= 0) {
            String where = s.substring(paren + 1, s.endsWith(")") ? s.length() - 1 : s.length());
            if (where.equals("Native Method")) {
                line = -2;
            } else {
                int colon = where.lastIndexOf(':');
                if (colon >= 0) {
                    try {
                        line = Long.parseLong(where.substring(colon + 1));
                    } catch (NumberFormatException e) {
                        line = -1;
                    }
                }
            }
        }
        return new TraceEncoder.Frame(method(s), line);
    }

    /** The method a thread is in, for its group: its first frame outside the JDK, else its first frame. */
    static String siteOf(List<TraceEncoder.Frame> stack) {
        for (TraceEncoder.Frame f : stack) {
            String m = f.method();
            if (!m.startsWith("java.") && !m.startsWith("jdk.") && !m.startsWith("sun.") && !m.startsWith("com.sun.")) {
                return m;
            }
        }
        return stack.isEmpty() ? "" : stack.get(0).method();
    }

    /** A dump's time of a thread, ns since the epoch; 0 when absent. */
    private static long seenAt(String time) {
        if (time == null) {
            return 0;
        }
        try {
            return Collector.nanos(Instant.parse(time));
        } catch (DateTimeParseException e) {
            return 0;
        }
    }
}
