package io.proftop.agent;

import java.lang.instrument.Instrumentation;

/**
 * proftop's JVM agent: start it with -javaagent:proftop-agent.jar=OPTIONS or
 * attach it at run time (proftop attach PID). It listens for proftop
 * (loopback port 10002 by default, see Options) and streams what the JVM is
 * doing while a client watches. All its threads are daemons: the JVM exits
 * when its application does.
 */
public final class Agent {
    private static ControllerServer server;

    private Agent() {}

    public static void premain(String args, Instrumentation inst) {
        start(args);
    }

    public static void agentmain(String args, Instrumentation inst) {
        start(args);
    }

    private static synchronized void start(String args) {
        try {
            Options opts = Options.parse(args);
            if (server != null) {
                // Attached again: the agent already runs; tell where.
                server.writePortFile(opts.portFile());
                return;
            }
            server = new ControllerServer(opts);
            server.start();
            System.err.println("proftop agent: listening on " + (opts.host() == null ? "127.0.0.1" : opts.host()) + ":" + server.port());
        } catch (Exception e) {
            // The application must run on whatever happens to its profiler.
            System.err.println("proftop agent: not started: " + e.getMessage());
        }
    }
}
