package io.proftop.agent;

import java.util.List;

/**
 * Writes trace events in one of the two encodings of the trace format
 * (docs/protocol.md, ../shared/spec/trace-format.md). Only the messages this
 * agent sends are here; each writes every attribute of its message, in wire
 * order, unused ones at their default. Not thread-safe: the collector
 * serialises calls.
 */
abstract class TraceEncoder {
    /** One frame of a stack: a display name ("pkg.Class.method") and a line (-1: unknown). */
    record Frame(String method, long line) {}

    /** The bytes encoded since the last call, the stream header first. */
    abstract byte[] take();

    abstract int buffered();

    abstract void node(String nodeId, String hostname, String ipaddress, int timezone, long time);

    abstract void processCreate(String processId, String name, int pid, String nodeIdRef, long time, String executable);

    abstract void agentCreate(String agentId, String processIdRef, String agentName, String agentType, long time,
            String agentParameters, String version);

    abstract void traceStart(String traceId, String agentIdRef, long time);

    abstract void threadStart(long threadId, long time, String groupName, String parentName, String threadName);

    abstract void threadEnd(long threadId, long time);

    abstract void classDef(long classId, long time, String name, String sourceName);

    abstract void methodDef(String name, String signature, long startLine, long endLine, long classId, long methodId);

    abstract void objAlloc(long objId, long classId, long time);

    /** An object's class, told without an allocation (objClass, 1108): a lock object first seen. */
    abstract void objClass(long objId, long classId, long time);

    abstract void gcStart(long time);

    abstract void gcFinish(long time, long totalObjSpace, long usedObjSpace, long usedObjects);

    /** monWait (waited false) or monWaited (waited true). */
    abstract void monWait(boolean waited, long threadId, long time, long obj, long timeoutMillis, List<Frame> stack);

    abstract void monContendedEnter(long threadId, long time, long obj, long owner, List<Frame> stack);

    abstract void monContendedEntered(long threadId, long time, long obj, List<Frame> stack);

    abstract void agMethodEntry(long threadId, long methodId, long baseTime, long minTime, long maxTime, long baseCpuTime,
            long numCalls);

    abstract void runtimeShutdown(long time);

    // proftop's extensions (docs/trace-extensions.md).

    abstract void sample(long threadId, long time, long count, long weight, List<Frame> stack);

    /** A platform thread's state at a poll: the attributes appended in 1.2 at their defaults. */
    final void threadState(long threadId, long time, String state, int flags, long lockObj, String lockClass,
            long lockOwner, long cpuTime, List<Frame> stack) {
        threadState(threadId, time, state, flags, lockObj, lockClass, lockOwner, cpuTime, stack, 0, "", "", 0, 0);
    }

    /**
     * A thread's state, with what 1.2 appended: for a virtual thread its
     * carrier (for a carrier, the virtual thread it carries), and the name
     * and container of a thread no threadStart announces.
     */
    abstract void threadState(long threadId, long time, String state, int flags, long lockObj, String lockClass,
            long lockOwner, long cpuTime, List<Frame> stack, long carrier, String threadName, String container,
            long blockedCount, long waitedCount);

    // The flags of virtualThreads.
    static final int VIRTUAL_LISTING = 1;
    static final int VIRTUAL_COMPLETE = 2;
    static final int VIRTUAL_ESTIMATED = 4;

    abstract void threadGroup(long time, String container, String state, int flags, long lockObj, String lockClass,
            long lockOwner, long count, String site, List<Frame> stack);

    abstract void virtualThreads(long time, long count, long started, long ended, int flags, long listedAt, int listed,
            int groups, long cost, long period);

    abstract void sourceNote(long time, String topic, int level, String text);

    abstract void virtualPinned(long threadId, long time, long duration, long carrier, String reason, String operation,
            List<Frame> stack);

    abstract void threadPoll(long time, int threads, int flags);

    abstract void memoryPool(long time, String name, boolean heap, long used, long committed, long max);

    /**
     * One collection; sequence is the collector's count once it is
     * included (GcInfo's id), so that a client tells exactly whether a
     * collector's totals already count it; 0: unknown.
     */
    abstract void collection(long time, String collector, String cause, long pause, long usedBefore, long usedAfter,
            long committed, long sequence);

    abstract void gcTotals(long time, String collector, long count, long totalTime);

    /** What was seen allocated of a class since its previous report: count -1 when sampled by size. */
    abstract void allocation(long time, String className, long count, long bytes);

    /** A custom message (1041): a free-form body; telemetry's in proftop's convention (Convention). */
    abstract void custom(String body);

    /** What watching costs: the agent's threads' CPU and JFR's since the agent began, the JVM's beside (-1: unknown). */
    abstract void agentCost(long time, long agentCpu, long jfrCpu, int agentThreads, int jfrThreads, long processCpu);

    static TraceEncoder forFormat(String format) {
        return "binary".equals(format) ? new BinaryEncoder() : new XmlEncoder();
    }
}
