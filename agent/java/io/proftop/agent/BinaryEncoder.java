package io.proftop.agent;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;

/**
 * The binary (.trcbin) encoding: a 12-byte "0TBF" header, then messages of
 * id (u16), size (u32, header included) and attributes, little-endian.
 */
final class BinaryEncoder extends TraceEncoder {
    private byte[] buf = new byte[64 << 10];
    private int len;
    private int start; // where the current message began

    BinaryEncoder() {
        bytes(new byte[] {'0', 'T', 'B', 'F', 1, 0, 1, 1});
        i32(12);
    }

    @Override
    byte[] take() {
        byte[] out = Arrays.copyOf(buf, len);
        len = 0;
        return out;
    }

    @Override
    int buffered() {
        return len;
    }

    private void ensure(int n) {
        if (len + n > buf.length) {
            buf = Arrays.copyOf(buf, Math.max(buf.length * 2, len + n));
        }
    }

    private void bytes(byte[] b) {
        ensure(b.length);
        System.arraycopy(b, 0, buf, len, b.length);
        len += b.length;
    }

    private void u8(int v) {
        ensure(1);
        buf[len++] = (byte) v;
    }

    private void i32(long v) {
        ensure(4);
        for (int i = 0; i < 4; i++) {
            buf[len++] = (byte) (v >>> (8 * i));
        }
    }

    private void i64(long v) {
        ensure(8);
        for (int i = 0; i < 8; i++) {
            buf[len++] = (byte) (v >>> (8 * i));
        }
    }

    /** A NUL-terminated UTF-8 string; a NUL inside becomes U+FFFD, since it would end the string. */
    private void str(String s) {
        if (s != null && !s.isEmpty()) {
            bytes((s.indexOf('\0') < 0 ? s : s.replace('\0', '\uFFFD')).getBytes(StandardCharsets.UTF_8));
        }
        u8(0);
    }

    /** The most stacks whose encoding is remembered; past it the memory starts again. */
    private static final int STACKS_KEPT = 256;

    /**
     * Stacks as encoded, by their frames: a stack recurs with every event
     * recorded at it (thousands of parks a second at a handful of stacks),
     * and its names were encoded anew each time.
     */
    private final HashMap<List<Frame>, byte[]> encodedStacks = new HashMap<>();

    private void stack(List<Frame> frames) {
        if (frames.size() < 2) {
            stackAnew(frames);
            return;
        }
        byte[] done = encodedStacks.get(frames);
        if (done != null) {
            bytes(done);
            return;
        }
        int from = len;
        stackAnew(frames);
        if (encodedStacks.size() >= STACKS_KEPT) {
            encodedStacks.clear();
        }
        encodedStacks.put(frames, Arrays.copyOfRange(buf, from, len));
    }

    private void stackAnew(List<Frame> frames) {
        i32(frames.size());
        for (Frame f : frames) {
            str(f.method());
        }
        for (Frame f : frames) {
            i64(f.line());
        }
    }

    private void begin(int id) {
        start = len;
        ensure(6);
        buf[len++] = (byte) id;
        buf[len++] = (byte) (id >>> 8);
        len += 4; // the size, patched by end()
    }

    private void end() {
        int size = len - start;
        for (int i = 0; i < 4; i++) {
            buf[start + 2 + i] = (byte) (size >>> (8 * i));
        }
    }

    @Override
    void node(String nodeId, String hostname, String ipaddress, int timezone, long time) {
        begin(1001);
        str(nodeId);
        str(hostname);
        str(ipaddress);
        i32(timezone);
        i64(time);
        end();
    }

    @Override
    void processCreate(String processId, String name, int pid, String nodeIdRef, long time, String executable) {
        begin(1002);
        str(processId);
        str(name);
        i32(pid);
        str(nodeIdRef);
        i64(time);
        str(executable);
        end();
    }

    @Override
    void agentCreate(String agentId, String processIdRef, String agentName, String agentType, long time,
            String agentParameters, String version) {
        begin(1003);
        str(agentId);
        str(processIdRef);
        str(agentName);
        str(agentType);
        i64(time);
        str(agentParameters);
        str(version);
        end();
    }

    @Override
    void traceStart(String traceId, String agentIdRef, long time) {
        begin(1005);
        str(traceId);
        str(agentIdRef);
        i64(time);
        str("");
        end();
    }

    @Override
    void threadStart(long threadId, long time, String groupName, String parentName, String threadName) {
        begin(1009);
        i64(0); // transientThreadId
        i64(threadId);
        i64(time);
        str(groupName);
        str(parentName);
        i64(0); // transientObjIdRef
        i64(0); // objIdRef
        str(threadName);
        str(""); // collationValue
        str(""); // traceIdRef
        end();
    }

    @Override
    void threadEnd(long threadId, long time) {
        begin(1010);
        i64(0);
        i64(threadId);
        i64(time);
        str("");
        str("");
        end();
    }

    @Override
    void classDef(long classId, long time, String name, String sourceName) {
        begin(1011);
        i64(0); // transientThreadIdRef
        i64(0); // threadIdRef
        i64(time);
        i32(0); // numInterfaces
        str(""); // interfaceNames
        i64(0); // transientClassId
        i64(classId);
        str(sourceName);
        str(""); // classLoader
        str(""); // superclass
        i64(0); // transientObjIdRef
        i64(0); // objIdRef
        str(name);
        str(""); // access
        i32(0); // numStaticFields
        i32(0); // numMethods
        i32(0); // numInstanceFields
        str("");
        str("");
        end();
    }

    @Override
    void methodDef(String name, String signature, long startLine, long endLine, long classId, long methodId) {
        begin(1012);
        str(name);
        str(signature);
        u8(0); // isNative
        u8(0); // isAbstract
        u8(0); // isStatic
        u8(0); // isSynchronized
        str(""); // exceptions
        i64(startLine);
        i64(endLine);
        str(""); // signatureNotation
        i64(0); // transientClassIdRef
        i64(classId);
        i64(methodId);
        str("");
        str("");
        end();
    }

    @Override
    void objAlloc(long objId, long classId, long time) {
        begin(1014);
        i64(0); // transientThreadIdRef
        i64(0); // threadIdRef
        i64(time);
        u8(0); // isArray
        i64(0); // transientObjId
        i64(objId);
        i64(0); // size
        i64(0); // lineNo
        i64(0); // methodIdRef
        i64(0); // transientClassIdRef
        i64(classId);
        str(""); // contextData
        str("");
        str("");
        end();
    }

    @Override
    void gcStart(long time) {
        begin(1023);
        i64(0);
        i64(0);
        i64(time);
        str("");
        str("");
        end();
    }

    @Override
    void gcFinish(long time, long totalObjSpace, long usedObjSpace, long usedObjects) {
        begin(1027);
        i64(0);
        i64(0);
        i64(time);
        i64(totalObjSpace);
        i64(usedObjSpace);
        i64(usedObjects);
        str("");
        str("");
        end();
    }

    @Override
    void monWait(boolean waited, long threadId, long time, long obj, long timeoutMillis, List<Frame> stack) {
        begin(waited ? 1033 : 1032);
        i64(threadId);
        i64(time);
        i64(obj);
        i64(timeoutMillis);
        stack(stack);
        end();
    }

    @Override
    void monContendedEnter(long threadId, long time, long obj, long owner, List<Frame> stack) {
        begin(1034);
        i64(threadId);
        i64(time);
        i64(obj);
        i64(owner);
        stack(stack);
        end();
    }

    @Override
    void monContendedEntered(long threadId, long time, long obj, List<Frame> stack) {
        begin(1035);
        i64(threadId);
        i64(time);
        i64(obj);
        stack(stack);
        end();
    }

    @Override
    void agMethodEntry(long threadId, long methodId, long baseTime, long minTime, long maxTime, long baseCpuTime,
            long numCalls) {
        begin(1036);
        i64(threadId);
        i64(methodId);
        i64(baseTime);
        i64(minTime);
        i64(maxTime);
        i64(baseCpuTime);
        i64(numCalls);
        end();
    }

    @Override
    void runtimeShutdown(long time) {
        begin(1031);
        i64(0);
        i64(0);
        i64(time);
        str("");
        str("");
        end();
    }

    @Override
    void sample(long threadId, long time, long count, long weight, List<Frame> stack) {
        begin(1100);
        i64(threadId);
        i64(time);
        i64(count);
        i64(weight);
        stack(stack);
        end();
    }

    @Override
    void threadState(long threadId, long time, String state, int flags, long lockObj, String lockClass, long lockOwner,
            long cpuTime, List<Frame> stack, long carrier, String threadName, String container, long blockedCount,
            long waitedCount) {
        begin(1101);
        i64(threadId);
        i64(time);
        str(state);
        i32(flags);
        i64(lockObj);
        str(lockClass);
        i64(lockOwner);
        i64(cpuTime);
        stack(stack);
        // The attributes 1.2 and 1.3 appended, up to the last one not at
        // its default.
        boolean counted = blockedCount != 0 || waitedCount != 0;
        boolean contained = counted || container != null && !container.isEmpty();
        boolean named = contained || threadName != null && !threadName.isEmpty();
        if (carrier != 0 || named) {
            i64(carrier);
        }
        if (named) {
            str(threadName == null ? "" : threadName);
        }
        if (contained) {
            str(container == null ? "" : container);
        }
        if (counted) {
            i64(blockedCount);
            i64(waitedCount);
        }
        end();
    }

    @Override
    void threadGroup(long time, String container, String state, int flags, long lockObj, String lockClass, long lockOwner,
            long count, String site, List<Frame> stack) {
        begin(1140);
        i64(time);
        str(container);
        str(state);
        i32(flags);
        i64(lockObj);
        str(lockClass);
        i64(lockOwner);
        i64(count);
        str(site);
        stack(stack);
        end();
    }

    @Override
    void virtualThreads(long time, long count, long started, long ended, int flags, long listedAt, int listed, int groups,
            long cost, long period) {
        begin(1141);
        i64(time);
        i64(count);
        i64(started);
        i64(ended);
        i32(flags);
        i64(listedAt);
        i32(listed);
        i32(groups);
        i64(cost);
        i64(period);
        end();
    }

    @Override
    void sourceNote(long time, String topic, int level, String text) {
        begin(1142);
        i64(time);
        str(topic);
        i32(level);
        str(text);
        end();
    }

    @Override
    void virtualPinned(long threadId, long time, long duration, long carrier, String reason, String operation,
            List<Frame> stack) {
        begin(1143);
        i64(threadId);
        i64(time);
        i64(duration);
        i64(carrier);
        str(reason);
        str(operation);
        stack(stack);
        end();
    }

    @Override
    void threadPoll(long time, int threads, int flags) {
        begin(1102);
        i64(time);
        i32(threads);
        i32(flags);
        end();
    }

    @Override
    void memoryPool(long time, String name, boolean heap, long used, long committed, long max) {
        begin(1103);
        i64(time);
        str(name);
        u8(heap ? 1 : 0);
        i64(used);
        i64(committed);
        i64(max);
        end();
    }

    @Override
    void collection(long time, String collector, String cause, long pause, long usedBefore, long usedAfter,
            long committed, long sequence) {
        begin(1104);
        i64(time);
        str(collector);
        str(cause);
        i64(pause);
        i64(usedBefore);
        i64(usedAfter);
        i64(committed);
        if (sequence != 0) { // added in 1.3: written only when known
            i64(sequence);
        }
        end();
    }

    @Override
    void custom(String body) {
        begin(1041);
        str(body);
        end();
    }

    @Override
    void gcTotals(long time, String collector, long count, long totalTime) {
        begin(1105);
        i64(time);
        str(collector);
        i64(count);
        i64(totalTime);
        end();
    }

    @Override
    void objClass(long objId, long classId, long time) {
        begin(1108);
        i64(objId);
        i64(classId);
        i64(time);
        end();
    }

    @Override
    void allocation(long time, String className, long count, long bytes) {
        begin(1107);
        i64(time);
        str(className);
        i64(count);
        i64(bytes);
        end();
    }

    @Override
    void agentCost(long time, long agentCpu, long jfrCpu, int agentThreads, int jfrThreads, long processCpu) {
        begin(1150);
        i64(time);
        i64(agentCpu);
        i64(jfrCpu);
        i32(agentThreads);
        i32(jfrThreads);
        i64(processCpu);
        end();
    }
}
