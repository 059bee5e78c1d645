package io.proftop.agent;

import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;

import jdk.jfr.EventType;
import jdk.jfr.FlightRecorder;

/**
 * Where threads spend their CPU: stack samples weighted by measured CPU
 * time. Between two polls a thread's CPU time grew by d (ThreadMXBean,
 * exact, native code included); the samples taken of it in between (JFR's
 * execution and native samples) share d equally, and each distinct stack
 * goes out once with its count and weight. So another recording that
 * samples twice as often changes the counts, not the time, and a thread
 * JFR samples rarely (it samples a few threads per period) gets its whole
 * CPU time of each interval it was sampled in. A thread that spent CPU
 * with no sample taken (in native code JFR did not catch) is charged at
 * the stack the poll saw it running at; one the poll did not see running
 * (a burst between two waits) is charged to "(not sampled)": no stack is
 * known, and the time is still the thread's.
 *
 * Until JFR's first sample arrives (starting JFR takes a second or more),
 * the agent samples stacks itself, ten times a second: hot methods show
 * within a second of attaching.
 *
 * Virtual threads have no CPU time of their own: their carriers' is theirs.
 * JFR samples name the virtual thread a carrier runs, not the carrier; so
 * the carriers and the virtual threads are one pool, whose measured CPU
 * time (the carriers') is shared among all their samples.
 *
 * On JDK 25 under Linux, JFR samples by CPU time (jdk.CPUTimeSample): a
 * thread is sampled where it spends CPU, in Java or native code, and never
 * while it waits in native code (a socket read), which execution and
 * native samples cannot tell apart. The agent uses it there.
 */
final class Sampler {
    /** The samples kept per thread awaiting their interval: beyond, the oldest go. */
    private static final int MAX_PENDING = 4096;
    /** The polls kept awaiting JFR's samples of their interval. */
    private static final int MAX_POLLS = 32;
    /** How long an interval waits for JFR's samples of it before it is charged with what it has. */
    private static final long JFR_LATENESS = 3_000_000_000L;

    /**
     * Where the CPU time of an interval goes that no sample and no poll
     * places: a thread that ran between two polls, JFR sampling none of
     * its running (JFR samples a few threads a period), and that the poll
     * found blocked or asleep. Charged here, the methods' times add up to
     * the threads' CPU time, and what the samples miss is a row of its own
     * rather than a third of the CPU gone unsaid (Tomcat under ab: 65% of
     * the request threads' CPU time placed).
     */
    static final List<TraceEncoder.Frame> NOT_SAMPLED = List.of(new TraceEncoder.Frame("(not sampled)", 0));

    /** A sample; agents says it runs the agent's code (Collector.throughAgent): it counts, and is not sent. */
    private record Taken(long time, List<TraceEncoder.Frame> stack, boolean agents) {}

    /** What a poll read of the threads: CPU times, and the stacks of those that ran. */
    private record Mark(long at, Map<Long, Long> cpu, Map<Long, List<TraceEncoder.Frame>> running, Set<Long> carriers) {}

    /** JFR's CPU-time sample (JDK 25, Linux). */
    static final String CPU_TIME_SAMPLE = "jdk.CPUTimeSample";

    /** Whether JFR samples by CPU time here: JDK 25 and later, on Linux. */
    static boolean cpuTimeSampling() {
        if (!System.getProperty("os.name", "").toLowerCase(java.util.Locale.ROOT).contains("linux")) {
            return false;
        }
        try {
            for (EventType t : FlightRecorder.getFlightRecorder().getEventTypes()) {
                if (t.getName().equals(CPU_TIME_SAMPLE)) {
                    return true;
                }
            }
        } catch (RuntimeException | Error e) {
            // no JFR: the recording fails to start and says why
        }
        return false;
    }

    private final long period; // ns, JFR's sampling period: the weight of a sample when no CPU time is known
    private final Map<Long, ArrayDeque<Taken>> pending = new HashMap<>();
    private final Set<Long> virtualPending = new HashSet<>(); // the threads of pending that are virtual
    /**
     * Threads seen running the agent's code (the JVM's notification thread,
     * in the agent's listener): CPU of theirs that nothing places is the
     * agent's, not "(not sampled)" of the application.
     */
    private final Set<Long> forAgent = new HashSet<>();
    private final ArrayDeque<Mark> marks = new ArrayDeque<>();
    private Mark attributed; // the last poll whose interval was charged
    private boolean jfrSampling; // JFR's samples have begun
    private long jfrReached; // the latest JFR sample time delivered

    Sampler(long periodNanos) {
        this.period = periodNanos;
    }

    boolean jfrSampling() {
        return jfrSampling;
    }

    /** A sample JFR took, of a platform or a virtual thread. */
    void jfrSample(long thread, long time, List<TraceEncoder.Frame> stack, boolean virtual) {
        jfrSampling = true;
        jfrReached = Math.max(jfrReached, time);
        if (add(thread, time, stack) && virtual) {
            virtualPending.add(thread);
        }
    }

    /** A sample of the agent's own, taken while JFR's have not begun. */
    void ownSample(long thread, long time, List<TraceEncoder.Frame> stack) {
        if (!jfrSampling) {
            add(thread, time, stack);
        }
    }

    private boolean add(long thread, long time, List<TraceEncoder.Frame> stack) {
        if (stack.isEmpty() || attributed != null && time <= attributed.at) {
            return false; // its interval was charged already
        }
        ArrayDeque<Taken> q = pending.computeIfAbsent(thread, k -> new ArrayDeque<>());
        if (q.size() >= MAX_PENDING) {
            q.pollFirst();
        }
        boolean agents = Collector.throughAgent(stack);
        if (agents) {
            forAgent.add(thread);
        }
        q.addLast(new Taken(time, stack, agents));
        return true;
    }

    /** A poll happened: its CPU times close an interval. carriers are the carrier threads of virtual threads. */
    void polled(ThreadPoller.Poll p, Set<Long> carriers) {
        Map<Long, Long> cpu = new HashMap<>();
        Map<Long, List<TraceEncoder.Frame>> running = new HashMap<>();
        for (ThreadPoller.Seen s : p.threads()) {
            if (s.cpu() >= 0) {
                cpu.put(s.id(), s.cpu());
            }
            // A thread seen running the agent's code (the JVM's notification
            // thread in its listener) works for the agent: its CPU then is
            // no method's of the application.
            if (s.running() && !Collector.throughAgent(s.stack())) {
                running.put(s.id(), s.stack());
            } else if (s.running()) {
                forAgent.add(s.id());
            }
        }
        Mark m = new Mark(p.cpuAt(), cpu, running, Set.copyOf(carriers));
        if (attributed == null) {
            attributed = m; // the baseline: CPU before it was not watched
            return;
        }
        if (marks.size() >= MAX_POLLS) {
            marks.pollFirst();
        }
        marks.addLast(m);
    }

    /**
     * Charges the intervals whose samples have all arrived (or waited long
     * enough): one sample event per thread and distinct stack.
     */
    void attribute(long now, TraceEncoder enc) {
        while (!marks.isEmpty()) {
            Mark m = marks.peekFirst();
            boolean complete = !jfrSampling || jfrReached >= m.at() || now - m.at() > JFR_LATENESS;
            if (!complete) {
                return;
            }
            marks.pollFirst();
            charge(attributed, m, enc);
            attributed = m;
        }
    }

    /** Charges the interval (from, to]. */
    private void charge(Mark from, Mark to, TraceEncoder enc) {
        for (Iterator<Map.Entry<Long, ArrayDeque<Taken>>> it = pending.entrySet().iterator(); it.hasNext();) {
            Map.Entry<Long, ArrayDeque<Taken>> e = it.next();
            if (e.getValue().isEmpty()) {
                it.remove();
                virtualPending.remove(e.getKey());
            }
        }
        Set<Long> pool = new HashSet<>(to.carriers());
        pool.addAll(virtualPending);
        if (!pool.isEmpty()) {
            chargePool(pool, from, to, enc);
        }
        for (Map.Entry<Long, Long> e : to.cpu().entrySet()) {
            long thread = e.getKey();
            if (pool.contains(thread)) {
                continue;
            }
            Long before = from.cpu().get(thread);
            long spent = before == null ? -1 : e.getValue() - before;
            chargeThread(thread, from.at(), to, spent, enc);
        }
        // Threads with samples but no CPU reading (it started and ended in between).
        for (Long thread : pending.keySet().toArray(new Long[0])) {
            if (!to.cpu().containsKey(thread) && !pool.contains(thread)) {
                chargeThread(thread, from.at(), to, -1, enc);
            }
        }
        forAgent.retainAll(to.cpu().keySet()); // the living only
    }

    /**
     * Charges the carriers' CPU time over the interval to the samples of
     * the carriers and of the virtual threads they ran, equally.
     */
    private void chargePool(Set<Long> pool, Mark from, Mark to, TraceEncoder enc) {
        long spent = 0;
        boolean measured = false;
        Map<Long, Long> spentBy = new HashMap<>();
        for (long c : to.carriers()) {
            Long before = from.cpu().get(c);
            Long after = to.cpu().get(c);
            if (before != null && after != null) {
                long d = Math.max(after - before, 0);
                spentBy.put(c, d);
                spent += d;
                measured = true;
            }
        }
        Map<Long, Map<List<TraceEncoder.Frame>, long[]>> byThread = new HashMap<>();
        long n = 0;
        for (long thread : pool) {
            Map<List<TraceEncoder.Frame>, long[]> byStack = new HashMap<>();
            n += take(thread, from.at(), to.at(), byStack);
            if (!byStack.isEmpty()) {
                byThread.put(thread, byStack);
            }
        }
        if (n == 0) {
            // No sample: each carrier is charged at the stack the poll saw.
            for (Map.Entry<Long, Long> e : spentBy.entrySet()) {
                List<TraceEncoder.Frame> seen = to.running().get(e.getKey());
                boolean placed = seen != null && !seen.isEmpty();
                if (e.getValue() > 0 && (placed || !forAgent.contains(e.getKey()))) {
                    enc.sample(e.getKey(), to.at(), 1, e.getValue(), placed ? seen : NOT_SAMPLED);
                }
            }
            return;
        }
        long left = spent;
        long samplesLeft = n;
        for (Map.Entry<Long, Map<List<TraceEncoder.Frame>, long[]>> t : byThread.entrySet()) {
            for (Map.Entry<List<TraceEncoder.Frame>, long[]> e : t.getValue().entrySet()) {
                long count = e.getValue()[0];
                long weight;
                samplesLeft -= count;
                if (!measured) {
                    weight = count * period;
                } else if (samplesLeft == 0) {
                    weight = left;
                } else {
                    weight = spent * count / n;
                    left -= weight;
                }
                enc.sample(t.getKey(), to.at(), count, Math.max(weight, 0), e.getKey());
            }
        }
    }

    /**
     * Takes a thread's samples up to the interval's end, counting by stack
     * those inside it; returns their number, the agent's included (their
     * share is left out: no stack counts them).
     */
    private long take(long thread, long since, long until, Map<List<TraceEncoder.Frame>, long[]> byStack) {
        ArrayDeque<Taken> q = pending.get(thread);
        long n = 0;
        while (q != null && !q.isEmpty() && q.peekFirst().time() <= until) {
            Taken t = q.pollFirst();
            if (t.time() > since) {
                if (!t.agents()) {
                    byStack.computeIfAbsent(t.stack(), k -> new long[1])[0]++;
                }
                n++;
            }
        }
        return n;
    }

    private void chargeThread(long thread, long since, Mark to, long spent, TraceEncoder enc) {
        ArrayDeque<Taken> q = pending.get(thread);
        Map<List<TraceEncoder.Frame>, long[]> byStack = new HashMap<>();
        int n = 0;
        int agents = 0;
        while (q != null && !q.isEmpty() && q.peekFirst().time() <= to.at()) {
            Taken t = q.pollFirst();
            if (t.time() > since) {
                n++;
                if (t.agents()) {
                    agents++; // its share of the CPU is the agent's: left out, given to no other stack
                } else {
                    byStack.computeIfAbsent(t.stack(), k -> new long[1])[0]++;
                }
            }
        }
        if (n == 0) {
            List<TraceEncoder.Frame> seen = to.running().get(thread);
            if (spent <= 0 || (seen == null || seen.isEmpty()) && forAgent.contains(thread)) {
                return;
            }
            enc.sample(thread, to.at(), 1, spent, seen == null || seen.isEmpty() ? NOT_SAMPLED : seen);
            return;
        }
        long left = spent - (spent > 0 ? spent * agents / n : 0);
        int stacksLeft = byStack.size();
        for (Map.Entry<List<TraceEncoder.Frame>, long[]> e : byStack.entrySet()) {
            long count = e.getValue()[0];
            long weight;
            if (spent < 0) {
                weight = count * period; // no CPU reading: what the samples stand for nominally
            } else if (--stacksLeft == 0) {
                weight = left; // the remainder, so that the weights add up to the CPU time exactly
            } else {
                weight = spent * count / n;
                left -= weight;
            }
            enc.sample(thread, to.at(), count, Math.max(weight, 0), e.getKey());
        }
    }
}
