package io.proftop.agent;

import java.lang.management.ManagementFactory;
import java.lang.management.OperatingSystemMXBean;
import java.lang.management.ThreadInfo;
import java.lang.management.ThreadMXBean;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;

/**
 * What watching costs the JVM, measured at each poll: the CPU time of the
 * agent's own threads (named "proftop-…") and of JDK Flight Recorder's
 * threads that the JVM lists ("JFR …"; its sampler runs on a thread the
 * JVM does not list, whose time shows in the JVM's whole CPU only), since
 * the agent began watching, with the JVM's whole CPU time beside. Totals
 * add each thread's growth from one poll to the next, so that a thread
 * that ends takes nothing back. Reported as agentCost (1150,
 * docs/trace-extensions.md). Measured by the poll's thread before it takes
 * the collector's lock; names come from ThreadMXBean without stacks: no
 * safepoint.
 */
final class AgentCost {
    private final ThreadMXBean mx = ManagementFactory.getThreadMXBean();
    private final OperatingSystemMXBean os = ManagementFactory.getOperatingSystemMXBean();
    private final Map<Long, Long> last = new HashMap<>(); // thread -> CPU at the previous poll
    private long agentCpu;
    private long jfrCpu;

    /** One measure, taken off the collector's lock. */
    record Reading(long agentCpu, long jfrCpu, int agentThreads, int jfrThreads, long processCpu) {}

    /** Encodes a measure. Called under the collector's lock. */
    static void report(long now, TraceEncoder enc, Reading r) {
        if (r != null) {
            enc.agentCost(now, r.agentCpu(), r.jfrCpu(), r.agentThreads(), r.jfrThreads(), r.processCpu());
        }
    }

    /** Measures, off the collector's lock (only the poll's thread calls it); null when CPU times are not measured. */
    Reading measure() {
        boolean cpuTime;
        try {
            cpuTime = mx.isThreadCpuTimeSupported() && mx.isThreadCpuTimeEnabled();
        } catch (UnsupportedOperationException e) {
            cpuTime = false;
        }
        if (!cpuTime) {
            return null;
        }
        long[] ids = mx.getAllThreadIds();
        ThreadInfo[] infos = mx.getThreadInfo(ids, 0);
        int agentThreads = 0;
        int jfrThreads = 0;
        Set<Long> alive = new HashSet<>();
        for (ThreadInfo ti : infos) {
            if (ti == null) {
                continue;
            }
            String name = ti.getThreadName();
            boolean agent = name.startsWith("proftop-");
            boolean jfr = name.startsWith("JFR ");
            if (!agent && !jfr) {
                continue;
            }
            long cpu = mx.getThreadCpuTime(ti.getThreadId());
            if (cpu < 0) {
                continue; // ended meanwhile
            }
            long id = ti.getThreadId();
            alive.add(id);
            Long before = last.put(id, cpu);
            long grew = Math.max(cpu - (before == null ? 0 : before), 0);
            if (agent) {
                agentThreads++;
                agentCpu += grew;
            } else {
                jfrThreads++;
                jfrCpu += grew;
            }
        }
        last.keySet().retainAll(alive);
        long process = -1;
        if (os instanceof com.sun.management.OperatingSystemMXBean b) {
            process = b.getProcessCpuTime();
        }
        return new Reading(agentCpu, jfrCpu, agentThreads, jfrThreads, process);
    }
}
