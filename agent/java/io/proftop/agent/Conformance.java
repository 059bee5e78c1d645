package io.proftop.agent;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * Writes a fixed sequence of every event the agent sends, in both
 * encodings, so that proftop's tests can check the agent's encoders against
 * its own decoder and encoder: java -cp proftop-agent.jar
 * io.proftop.agent.Conformance OUT.trcbin OUT.trcxml
 */
public final class Conformance {
    private Conformance() {}

    static void write(TraceEncoder e) {
        List<TraceEncoder.Frame> stack = List.of(new TraceEncoder.Frame("com.acme.Cache.get", 88),
                new TraceEncoder.Frame("com.acme.Api.handle <&\"'>", 31), new TraceEncoder.Frame("java.lang.Thread.run", -1));
        long t = 1_700_000_000_123_456_789L;
        e.node("node-1", "prod-1", "10.0.0.1", 60, t);
        e.processCreate("process-1", "com.acme.Main", 4242, "node-1", t, "/usr/bin/java");
        e.agentCreate("agent-1", "process-1", "proftop JVM agent", "Profiler", t, "threshold=0ms", "1.0");
        e.traceStart("trace-1", "agent-1", t);
        e.threadStart(1, t + 1, "main", "system", "main");
        e.threadStart(23, t + 2, "main", "", "worker \"1\"\tÄ線");
        e.classDef(1, t + 3, "com.acme.Cache", "Cache.java");
        e.methodDef("get", "(Ljava/lang/String;)Ljava/lang/Object;", 80, 80, 1, 7);
        e.objAlloc(0x7f3a0048L, 1, t + 4);
        e.objClass(0x7f3a0050L, 1, t + 4);
        e.monContendedEnter(23, t + 5, 0x7f3a0048L, 1, stack);
        e.monContendedEntered(23, t + 6, 0x7f3a0048L, stack);
        e.monWait(false, 1, t + 7, 0x7f3a0048L, 500, stack);
        e.monWait(true, 1, t + 8, 0x7f3a0048L, 500, List.of());
        e.gcStart(t + 9);
        e.gcFinish(t + 10, 1L << 30, 123_456_789L, 0);
        e.agMethodEntry(23, 7, 40_000_000L, -1, -1, 40_000_000L, 2);
        e.sample(23, t + 12, 3, 60_000_000L, stack);
        e.threadState(23, t + 13, "parked", 4, 0x1234L, "java.util.concurrent.locks.ReentrantLock$NonfairSync", 1,
                77_000_000L, stack);
        e.threadState(1, t + 13, "running", 1, 0, "", 0, -1, List.of());
        e.threadPoll(t + 13, 2, 1);
        e.threadState(100031, t + 13, "blocked", 16 | 128 | 64, 0x5678L, "java.lang.Object", 23, -1, stack, 25, "vt \"1\"",
                "java.util.concurrent.ThreadPerTaskExecutor@5b6f7412", 0, 0);
        e.threadState(24, t + 13, "blocked", 1, 0x5678L, "java.lang.Object", 23, 5_000_000L, List.of(), 0, "", "", 7, 3);
        e.threadGroup(t + 13, "<root>", "parked", 16, 0x9abcL, "java.util.concurrent.CountDownLatch$Sync", 0, 3120,
                "com.acme.OrderService.await", stack);
        e.virtualThreads(t + 13, 3121, 5000, 1879, 3, t + 13, 1, 1, 12_000_000L, 1_000_000_000L);
        e.sourceNote(t + 13, "virtual-threads", 1, "listed every 42 s <&>");
        e.virtualPinned(100031, t + 13, 25_000_000L, 25, "Native or VM frame on stack", "Object.wait", stack);
        e.memoryPool(t + 14, "G1 Eden Space", true, 1L << 20, 1L << 24, -1);
        e.collection(t + 15, "G1 Young Generation", "G1 Evacuation Pause", 4_500_000L, 300L << 20, 100L << 20, 1L << 30, 12);
        e.gcTotals(t + 15, "G1 Young Generation", 12, 81_000_000L);
        e.allocation(t + 15, "byte[]", -1, 3L << 20);
        // A hidden class as JFR names it, sent as a thread dump names it.
        e.allocation(t + 15, Allocations.readable(Names.dumpName("com.acme.Api$$Lambda$88+0x00007f02a4007a08.360062456")), 1, 24);
        e.custom(Convention.series(t + 17, 1, "Live threads", Convention.PLAIN, 1));
        e.custom(Convention.series(t + 17, 2, "HeapMemoryUsage.used (java.lang:type=Memory) <&\"'>+~*% Ж線", Convention.BYTES, 1000));
        e.custom(Convention.value(t + 17, 1, 42));
        e.custom(Convention.value(t + 17, 2, -7));
        e.custom(Convention.problem(t + 18, "jmx:a:type=B:C", "no MBean named a:type=B"));
        e.custom(Convention.problem(t + 19, "jmx:a:type=B:C", ""));
        e.custom(Convention.probe(t + 20, "jfr:bank.Transfer#state", "RUNNING", 3, 4_500_000L, 2_000_000L, stack));
        e.custom("com.acme.shop");
        e.agentCost(t + 15, 12_000_000L, 3_000_000L, 4, 2, -1);
        e.threadEnd(23, t + 11);
        e.runtimeShutdown(t + 16);
    }

    public static void main(String[] args) throws IOException {
        TraceEncoder bin = new BinaryEncoder();
        write(bin);
        Files.write(Path.of(args[0]), bin.take());
        TraceEncoder xml = new XmlEncoder();
        write(xml);
        Files.write(Path.of(args[1]), xml.take());
    }
}
