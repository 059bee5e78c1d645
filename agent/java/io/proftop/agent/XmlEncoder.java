package io.proftop.agent;

import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * The XML (.trcxml) encoding: a declaration, an unclosed TRACE element, one
 * element per event and line; attributes at their default are left out, as
 * the profilers of the format do; times are decimal seconds.
 */
final class XmlEncoder extends TraceEncoder {
    private final StringBuilder sb = new StringBuilder(64 << 10);

    XmlEncoder() {
        sb.append("<?xml version=\"1.0\"?>\n<TRACE>\n");
    }

    @Override
    byte[] take() {
        byte[] out = sb.toString().getBytes(StandardCharsets.UTF_8);
        sb.setLength(0);
        return out;
    }

    @Override
    int buffered() {
        return sb.length();
    }

    private void open(String element) {
        sb.append('<').append(element);
    }

    private void close() {
        sb.append("/>\n");
    }

    private void attr(String name, String v) {
        if (v == null || v.isEmpty()) {
            return;
        }
        sb.append(' ').append(name).append("=\"");
        escape(v);
        sb.append('"');
    }

    private void attr(String name, long v) {
        if (v != 0) {
            sb.append(' ').append(name).append("=\"").append(v).append('"');
        }
    }

    /** A time or duration in nanoseconds as decimal seconds, exactly. */
    private void time(String name, long ns) {
        if (ns == 0) {
            return;
        }
        sb.append(' ').append(name).append("=\"");
        if (ns < 0) {
            sb.append('-');
            ns = -ns;
        }
        String frac = Long.toString(ns % 1_000_000_000L);
        sb.append(ns / 1_000_000_000L).append('.');
        for (int i = frac.length(); i < 9; i++) {
            sb.append('0');
        }
        sb.append(frac).append('"');
    }

    private void escape(String s) {
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '&' -> sb.append("&amp;");
                case '<' -> sb.append("&lt;");
                case '>' -> sb.append("&gt;");
                case '"' -> sb.append("&quot;");
                case '\0' -> sb.append('\uFFFD');
                default -> {
                    if (c < 0x20 || c == 0x7f) {
                        sb.append("&#x").append(Integer.toHexString(c)).append(';');
                    } else {
                        sb.append(c);
                    }
                }
            }
        }
    }

    private void stack(String element, List<Frame> frames) {
        if (frames.isEmpty()) {
            close();
            return;
        }
        sb.append(" stackDepth=\"").append(frames.size()).append("\">");
        for (Frame f : frames) {
            sb.append("<frame method=\"");
            escape(f.method());
            sb.append("\" line=\"").append(f.line()).append("\"/>");
        }
        sb.append("</").append(element).append(">\n");
    }

    @Override
    void node(String nodeId, String hostname, String ipaddress, int timezone, long time) {
        open("node");
        attr("nodeId", nodeId);
        attr("hostname", hostname);
        attr("ipaddress", ipaddress);
        attr("timezone", timezone);
        time("time", time);
        close();
    }

    @Override
    void processCreate(String processId, String name, int pid, String nodeIdRef, long time, String executable) {
        open("processCreate");
        attr("processId", processId);
        attr("name", name);
        attr("pid", pid);
        attr("nodeIdRef", nodeIdRef);
        time("time", time);
        attr("executable", executable);
        close();
    }

    @Override
    void agentCreate(String agentId, String processIdRef, String agentName, String agentType, long time,
            String agentParameters, String version) {
        open("agentCreate");
        attr("agentId", agentId);
        attr("processIdRef", processIdRef);
        attr("agentName", agentName);
        attr("agentType", agentType);
        time("time", time);
        attr("agentParameters", agentParameters);
        attr("version", version);
        close();
    }

    @Override
    void traceStart(String traceId, String agentIdRef, long time) {
        open("traceStart");
        attr("traceId", traceId);
        attr("agentIdRef", agentIdRef);
        time("time", time);
        close();
    }

    @Override
    void threadStart(long threadId, long time, String groupName, String parentName, String threadName) {
        open("threadStart");
        attr("threadId", threadId);
        time("time", time);
        attr("groupName", groupName);
        attr("parentName", parentName);
        attr("threadName", threadName);
        close();
    }

    @Override
    void threadEnd(long threadId, long time) {
        open("threadEnd");
        attr("threadIdRef", threadId);
        time("time", time);
        close();
    }

    @Override
    void classDef(long classId, long time, String name, String sourceName) {
        open("classDef");
        time("time", time);
        attr("classId", classId);
        attr("sourceName", sourceName);
        attr("name", name);
        close();
    }

    @Override
    void methodDef(String name, String signature, long startLine, long endLine, long classId, long methodId) {
        open("methodDef");
        attr("name", name);
        attr("signature", signature);
        attr("startLineNumber", startLine);
        attr("endLineNumber", endLine);
        attr("classIdRef", classId);
        attr("methodId", methodId);
        close();
    }

    @Override
    void objAlloc(long objId, long classId, long time) {
        open("objAlloc");
        time("time", time);
        attr("objId", objId);
        attr("classIdRef", classId);
        close();
    }

    @Override
    void objClass(long objId, long classId, long time) {
        open("objClass");
        attr("objId", objId);
        attr("classIdRef", classId);
        time("time", time);
        close();
    }

    @Override
    void gcStart(long time) {
        open("gcStart");
        time("time", time);
        close();
    }

    @Override
    void gcFinish(long time, long totalObjSpace, long usedObjSpace, long usedObjects) {
        open("gcFinish");
        time("time", time);
        attr("totalObjSpace", totalObjSpace);
        attr("usedObjSpace", usedObjSpace);
        attr("usedObjects", usedObjects);
        close();
    }

    @Override
    void monWait(boolean waited, long threadId, long time, long obj, long timeoutMillis, List<Frame> stack) {
        String element = waited ? "monWaited" : "monWait";
        open(element);
        attr("threadIdRef", threadId);
        time("time", time);
        attr("objIdRef", obj);
        attr("timeout", timeoutMillis);
        stack(element, stack);
    }

    @Override
    void monContendedEnter(long threadId, long time, long obj, long owner, List<Frame> stack) {
        open("monContendedEnter");
        attr("threadIdRef", threadId);
        time("time", time);
        attr("objIdRef", obj);
        attr("threadOwner", owner);
        stack("monContendedEnter", stack);
    }

    @Override
    void monContendedEntered(long threadId, long time, long obj, List<Frame> stack) {
        open("monContendedEntered");
        attr("threadIdRef", threadId);
        time("time", time);
        attr("objIdRef", obj);
        stack("monContendedEntered", stack);
    }

    @Override
    void agMethodEntry(long threadId, long methodId, long baseTime, long minTime, long maxTime, long baseCpuTime,
            long numCalls) {
        open("agMethodEntry");
        attr("threadIdRef", threadId);
        attr("methodIdRef", methodId);
        time("baseTime", baseTime);
        time("minTime", minTime);
        time("maxTime", maxTime);
        time("baseCPUTime", baseCpuTime);
        attr("numCalls", numCalls);
        close();
    }

    @Override
    void runtimeShutdown(long time) {
        open("runtimeShutdown");
        time("time", time);
        close();
    }

    @Override
    void sample(long threadId, long time, long count, long weight, List<Frame> stack) {
        open("sample");
        attr("threadIdRef", threadId);
        time("time", time);
        attr("count", count);
        time("weight", weight);
        stack("sample", stack);
    }

    @Override
    void threadState(long threadId, long time, String state, int flags, long lockObj, String lockClass, long lockOwner,
            long cpuTime, List<Frame> stack, long carrier, String threadName, String container, long blockedCount,
            long waitedCount) {
        open("threadState");
        attr("threadIdRef", threadId);
        time("time", time);
        attr("state", state);
        attr("flags", flags);
        attr("lockObjIdRef", lockObj);
        attr("lockClass", lockClass);
        attr("lockOwner", lockOwner);
        time("cpuTime", cpuTime);
        attr("carrier", carrier);
        attr("threadName", threadName);
        attr("container", container);
        attr("blockedCount", blockedCount);
        attr("waitedCount", waitedCount);
        stack("threadState", stack);
    }

    @Override
    void threadGroup(long time, String container, String state, int flags, long lockObj, String lockClass, long lockOwner,
            long count, String site, List<Frame> stack) {
        open("threadGroup");
        time("time", time);
        attr("container", container);
        attr("state", state);
        attr("flags", flags);
        attr("lockObjIdRef", lockObj);
        attr("lockClass", lockClass);
        attr("lockOwner", lockOwner);
        attr("count", count);
        attr("site", site);
        stack("threadGroup", stack);
    }

    @Override
    void virtualThreads(long time, long count, long started, long ended, int flags, long listedAt, int listed, int groups,
            long cost, long period) {
        open("virtualThreads");
        time("time", time);
        attr("count", count);
        attr("started", started);
        attr("ended", ended);
        attr("flags", flags);
        time("listedAt", listedAt);
        attr("listed", listed);
        attr("groups", groups);
        time("cost", cost);
        time("period", period);
        close();
    }

    @Override
    void sourceNote(long time, String topic, int level, String text) {
        open("sourceNote");
        time("time", time);
        attr("topic", topic);
        attr("level", level);
        attr("text", text);
        close();
    }

    @Override
    void virtualPinned(long threadId, long time, long duration, long carrier, String reason, String operation,
            List<Frame> stack) {
        open("virtualPinned");
        attr("threadIdRef", threadId);
        time("time", time);
        time("duration", duration);
        attr("carrier", carrier);
        attr("reason", reason);
        attr("operation", operation);
        stack("virtualPinned", stack);
    }

    @Override
    void threadPoll(long time, int threads, int flags) {
        open("threadPoll");
        time("time", time);
        attr("threads", threads);
        attr("flags", flags);
        close();
    }

    @Override
    void memoryPool(long time, String name, boolean heap, long used, long committed, long max) {
        open("memoryPool");
        time("time", time);
        attr("name", name);
        attr("heap", heap ? 1 : 0);
        attr("used", used);
        attr("committed", committed);
        attr("max", max);
        close();
    }

    @Override
    void collection(long time, String collector, String cause, long pause, long usedBefore, long usedAfter,
            long committed, long sequence) {
        open("collection");
        time("time", time);
        attr("collector", collector);
        attr("cause", cause);
        time("pause", pause);
        attr("usedBefore", usedBefore);
        attr("usedAfter", usedAfter);
        attr("committed", committed);
        attr("sequence", sequence);
        close();
    }

    @Override
    void gcTotals(long time, String collector, long count, long totalTime) {
        open("gcTotals");
        time("time", time);
        attr("collector", collector);
        attr("count", count);
        time("totalTime", totalTime);
        close();
    }

    @Override
    void allocation(long time, String className, long count, long bytes) {
        open("allocation");
        time("time", time);
        attr("className", className);
        attr("count", count);
        attr("bytes", bytes);
        close();
    }

    @Override
    void custom(String body) {
        open("custom");
        attr("body", body);
        close();
    }

    @Override
    void agentCost(long time, long agentCpu, long jfrCpu, int agentThreads, int jfrThreads, long processCpu) {
        open("agentCost");
        time("time", time);
        time("agentCpu", agentCpu);
        time("jfrCpu", jfrCpu);
        attr("agentThreads", agentThreads);
        attr("jfrThreads", jfrThreads);
        time("processCpu", processCpu);
        close();
    }
}
