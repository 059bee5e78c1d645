package io.proftop.agent;

import java.lang.management.ManagementFactory;
import java.net.InetAddress;
import java.util.TimeZone;

/** The preamble of a stream: this machine, this JVM, this agent. */
final class ProcessInfo {
    private ProcessInfo() {}

    static void describe(TraceEncoder enc, Options opts, long now) {
        long pid = ProcessHandle.current().pid();
        String host = hostname();
        String nodeId = "node-" + host;
        var runtime = ManagementFactory.getRuntimeMXBean();
        // The pid and the start time: a JVM started again under the same
        // pid (pid 1 in a container) is another process to the client.
        String processId = "process-" + pid + "-" + runtime.getStartTime();
        String agentId = "agent-" + pid;
        enc.node(nodeId, host, "", TimeZone.getDefault().getRawOffset() / 60_000, now);
        enc.processCreate(processId, mainClass(), (int) pid, nodeId, runtime.getStartTime() * 1_000_000L,
                ProcessHandle.current().info().command().orElse(""));
        enc.agentCreate(agentId, processId, "proftop JVM agent", "Profiler", now, opts.describe(), Collector.VERSION);
        enc.traceStart("trace-" + pid + "-" + now, agentId, now);
    }

    /** The main class, or the jar, the JVM was started with. */
    static String mainClass() {
        String cmd = System.getProperty("sun.java.command", "");
        int sp = cmd.indexOf(' ');
        String main = sp < 0 ? cmd : cmd.substring(0, sp);
        return main.isEmpty() ? "java" : main;
    }

    private static String hostname() {
        String env = System.getenv("HOSTNAME");
        if (env != null && !env.isEmpty()) {
            return env;
        }
        try {
            return InetAddress.getLocalHost().getHostName();
        } catch (Exception e) {
            return "localhost";
        }
    }
}
