package io.proftop.agent;

import java.lang.instrument.Instrumentation;
import java.util.List;

/**
 * proftop's JVM agent: start it with -javaagent:proftop-agent.jar=OPTIONS or
 * attach it at run time (proftop attach PID). It listens for proftop
 * (loopback port 10002 by default, see Options), admits only clients that
 * present its token (see ControllerServer, Handover), and streams what the
 * JVM is doing while one watches. All its threads are daemons: the JVM exits
 * when its application does.
 */
public final class Agent {
    private static ControllerServer server;
    private static volatile Instrumentation instrumentation;

    private Agent() {}

    public static void premain(String args, Instrumentation inst) {
        instrumentation = inst;
        start(args);
    }

    public static void agentmain(String args, Instrumentation inst) {
        instrumentation = inst;
        start(args);
    }

    /** What the JVM lent the agent as it loaded it (see LockOwners); null if it was loaded otherwise. */
    static Instrumentation instrumentation() {
        return instrumentation;
    }

    private static synchronized void start(String args) {
        try {
            Options opts = Options.parse(args);
            if (server != null) {
                // Attached again: the agent already runs, with its first options; say where, and which of
                // the new options it cannot take.
                List<String> ignored = server.options().ignoredIn(opts);
                server.writePortFile(opts.portFile(), ignored.isEmpty() ? List.of()
                        : List.of("the agent was already running: these options keep their first values: " + String.join(", ", ignored)));
                return;
            }
            ControllerServer s = new ControllerServer(opts);
            try {
                s.start();
            } catch (Throwable t) {
                s.close(); // never leave a port bound with no one answering
                throw t;
            }
            server = s;
            Collector.warmUp();
            System.err.println("proftop agent: listening on " + (opts.host() == null ? "127.0.0.1" : opts.host()) + ":" + s.port()
                    + (s.tokenFile() == null ? "" : "; its token is in " + s.tokenFile() + ", for this JVM's user"));
        } catch (Throwable t) {
            // The application must run on whatever happens to its profiler.
            System.err.println(server == null ? "proftop agent: not started: " + t : "proftop agent: running on; new options refused: " + t);
            tellWhyNot(args, t);
        }
    }

    /**
     * Tells the proftop that attached the agent why it did not start, in
     * the port file it waits on ("failed", then why): the JVM's standard
     * error is not where it looks, and it waited ten seconds for a port,
     * then said only that none came. The file is found in the options as
     * given, parsed or not (an option may be what failed).
     */
    private static void tellWhyNot(String args, Throwable t) {
        if (args == null) {
            return;
        }
        for (String kv : args.split(",")) {
            if (kv.startsWith("portfile=") && kv.length() > "portfile=".length()) {
                try {
                    java.nio.file.Path file = java.nio.file.Path.of(kv.substring("portfile=".length()));
                    String why = String.valueOf(t.getMessage() == null ? t : t.getMessage()).replace('\n', ' ');
                    if (server != null) {
                        // Attached again with options it cannot read: it runs on with
                        // its first ones, and says where, and that these were refused.
                        server.writePortFile(file, List.of("the agent was already running, with its first options: these were refused: " + why));
                    } else {
                        Handover.writePrivate(file, "failed\n" + why + "\n");
                    }
                } catch (Throwable ignored) {
                    // nothing more to tell it with: it waits, then says so
                }
                return;
            }
        }
    }
}
