package io.proftop.agent;

import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.MessageDigest;
import java.util.List;
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A one-agent agent controller (docs/protocol.md): it lists this JVM as its
 * only agent, negotiates the output format and streams the trace to one
 * client at a time. With no client, nothing is recorded.
 */
final class ControllerServer {
    static final String AGENT_ID = "1";

    /** At most this many refusals are under way at once; further connections are closed at once. */
    private static final int MAX_REFUSALS = 4;
    /**
     * With a token, connections that have not authenticated yet do not hold
     * the one place: at most this many at once, each for at most
     * AUTHENTICATE_WITHIN.
     */
    private static final int MAX_UNAUTHENTICATED = 4;
    private static final long AUTHENTICATE_WITHIN_MS = 10_000;

    private final Options opts;
    private final ServerSocket server;
    private final AtomicBoolean busy = new AtomicBoolean();
    private final Semaphore refusals = new Semaphore(MAX_REFUSALS);
    private final Semaphore unauthenticated = new Semaphore(MAX_UNAUTHENTICATED);

    ControllerServer(Options opts) throws IOException {
        this.opts = opts;
        InetAddress bind = opts.host() == null ? InetAddress.getLoopbackAddress() : InetAddress.getByName(opts.host());
        server = new ServerSocket();
        try {
            server.setReuseAddress(true);
            server.bind(new InetSocketAddress(bind, opts.port()));
        } catch (IOException e) {
            server.close();
            throw e;
        }
    }

    Options options() {
        return opts;
    }

    int port() {
        return server.getLocalPort();
    }

    void start() throws IOException {
        writePortFile(opts.portFile(), List.of());
        Collector.daemon(this::acceptLoop, "proftop-accept").start();
    }

    void close() {
        try {
            server.close();
        } catch (IOException e) {
            // closed already
        }
    }

    /**
     * Writes the port to a file, atomically: a reader sees a whole file or
     * nothing. Notes for the one who attached follow, one per line.
     */
    void writePortFile(Path file, List<String> notes) throws IOException {
        if (file == null) {
            return;
        }
        StringBuilder b = new StringBuilder().append(port()).append('\n');
        for (String n : notes) {
            b.append(n.replace('\n', ' ')).append('\n');
        }
        Path tmp = file.resolveSibling(file.getFileName() + ".tmp");
        Files.writeString(tmp, b, StandardCharsets.UTF_8);
        Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    }

    private void acceptLoop() {
        while (true) {
            Socket s;
            try {
                s = server.accept();
            } catch (IOException e) {
                return;
            }
            if (needsToken()) {
                // The place is taken on authentication, not on connection.
                if (unauthenticated.tryAcquire()) {
                    Collector.daemon(() -> new Session(s, false).serve(), "proftop-client").start();
                } else {
                    closeQuietly(s);
                }
            } else if (busy.compareAndSet(false, true)) {
                Collector.daemon(() -> new Session(s, true).serve(), "proftop-client").start();
            } else if (refusals.tryAcquire()) {
                Collector.daemon(() -> {
                    try {
                        refuse(s);
                    } finally {
                        refusals.release();
                    }
                }, "proftop-refuse").start();
            } else {
                closeQuietly(s);
            }
        }
    }

    private boolean needsToken() {
        return opts.token() != null && !opts.token().isEmpty();
    }

    private static void closeQuietly(Socket s) {
        try {
            s.close();
        } catch (IOException e) {
            // closed already
        }
    }

    /** A second client gets a clear error to its first command. */
    private static void refuse(Socket s) {
        try (s) {
            s.setSoTimeout(2000);
            Wire.Frame f = Wire.read(s.getInputStream(), Wire.MAX_UNAUTHENTICATED);
            Wire.Command c = f == null || f.data() ? null : Wire.parse(f.payload());
            String body = Wire.error("BUSY", "this JVM's proftop agent already serves a client; it serves one at a time");
            byte[] reply = Wire.reply("agentController", c == null ? "proftop" : c.src(), c == null ? "0" : c.ctxt(), body)
                    .getBytes(StandardCharsets.UTF_8);
            Wire.write(s.getOutputStream(), false, reply, 0, reply.length);
            s.getOutputStream().flush();
        } catch (IOException e) {
            // the client went away or sent nonsense: nothing to tell it
        }
    }

    /** One client's connection. */
    private final class Session {
        private final Socket socket;
        private final long authenticateBy = System.currentTimeMillis() + AUTHENTICATE_WITHIN_MS;
        private boolean authed = !needsToken();
        private boolean holdsPlace; // the one place (busy), else a place among the unauthenticated
        private boolean attached;
        private boolean monitoring;
        private String format = "xml";
        private Outbox outbox;
        // The stream of this attachment: its encoder and the names it has
        // sent live on across stop and start, until detach or a new attach.
        private Collector collector;
        // The application's series and probes the client chose (TelemetryChoice).
        private TelemetryChoice telemetry = TelemetryChoice.NONE;

        Session(Socket socket, boolean holdsPlace) {
            this.socket = socket;
            this.holdsPlace = holdsPlace;
        }

        /** How long the next read may wait: until the deadline to authenticate, or idle, or forever while monitoring. */
        private int readTimeout() throws IOException {
            if (!authed) {
                long left = authenticateBy - System.currentTimeMillis();
                if (left <= 0) {
                    throw new IOException("did not authenticate in time");
                }
                return (int) left;
            }
            return monitoring ? 0 : (int) Math.min(Integer.MAX_VALUE, opts.idle().toMillis());
        }

        void serve() {
            try {
                socket.setTcpNoDelay(true);
                outbox = new Outbox(socket, opts.backlog());
                Collector.daemon(outbox::run, "proftop-send").start();
                InputStream in = new BufferedInputStream(socket.getInputStream());
                while (true) {
                    // Silence is normal while monitoring (the client only reads);
                    // before, a silent client would hold the one place for nothing.
                    socket.setSoTimeout(readTimeout());
                    Wire.Frame f = Wire.read(in, authed ? Wire.MAX_COMMAND : Wire.MAX_UNAUTHENTICATED);
                    if (f == null || f.data()) {
                        return;
                    }
                    Wire.Command c = Wire.parse(f.payload());
                    if (c == null) {
                        send(Wire.reply(self(), "proftop", "0", Wire.error("BAD_REQUEST", "not a <Cmd> command")));
                        continue;
                    }
                    handle(c);
                }
            } catch (IOException e) {
                // the client is gone, idle too long, or sent a bad frame
            } catch (Throwable t) {
                System.err.println("proftop agent: the client's session failed: " + t);
            } finally {
                stopMonitoring();
                if (outbox != null) {
                    try {
                        outbox.drain(2000);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                }
                // Free the place before the client sees the connection close,
                // so that it can connect again at once.
                if (holdsPlace) {
                    busy.set(false);
                } else {
                    unauthenticated.release();
                }
                if (outbox != null) {
                    outbox.close("the session is over");
                }
                closeQuietly(socket);
            }
        }

        private String self() {
            return attached ? "agent:" + AGENT_ID : "agentController";
        }

        private void reply(Wire.Command c, String body) throws IOException {
            send(Wire.reply(self(), c.src(), c.ctxt(), body));
        }

        private void send(String xml) throws IOException {
            outbox.put(false, xml.getBytes(StandardCharsets.UTF_8));
        }

        /** Trace bytes, as data frames after what was queued before. */
        private void sendData(byte[] data) throws IOException {
            outbox.put(true, data);
        }

        private void handle(Wire.Command c) throws IOException {
            if (c.name().equals("authenticate")) {
                if (needsToken() && !equal(opts.token(), c.attr("token"))) {
                    reply(c, Wire.error("UNAUTHORIZED", "wrong token"));
                    throw new IOException("wrong token"); // one guess per connection
                }
                if (!holdsPlace) {
                    if (!busy.compareAndSet(false, true)) {
                        reply(c, Wire.error("BUSY", "this JVM's proftop agent already serves a client; it serves one at a time"));
                        throw new IOException("busy");
                    }
                    holdsPlace = true;
                    unauthenticated.release();
                }
                authed = true;
                reply(c, "<authenticated></authenticated>");
                return;
            }
            if (!authed) {
                reply(c, Wire.error("UNAUTHORIZED", "this agent requires a token: send <authenticate token=\"…\"/> first"));
                return;
            }
            boolean agentCommand = switch (c.name()) {
                case "setOutputFormat", "startMonitoring", "stopMonitoring", "detach", "chooseTelemetry" -> true;
                default -> false;
            };
            if (agentCommand && !attached) {
                reply(c, Wire.error("NOT_ATTACHED", "attach to the agent first"));
                return;
            }
            switch (c.name()) {
                case "listAgents" -> reply(c, "<agentList><agent id=\"" + AGENT_ID + "\" pid=\"" + ProcessHandle.current().pid()
                        + "\" name=\"" + Wire.escape(Collector.mainClass()) + "\" type=\"Profiler\" version=\"" + Collector.VERSION
                        + "\"></agent></agentList>");
                case "attach" -> {
                    if (!AGENT_ID.equals(c.attr("agentId"))) {
                        reply(c, Wire.error("NO_SUCH_AGENT", "no agent \"" + c.attr("agentId") + "\": this JVM is agent " + AGENT_ID));
                        return;
                    }
                    stopMonitoring();
                    attached = true;
                    format = "xml";
                    collector = null;
                    telemetry = TelemetryChoice.NONE;
                    reply(c, "<attached agentId=\"" + AGENT_ID + "\"></attached>");
                }
                case "setOutputFormat" -> {
                    if (collector != null) {
                        reply(c, Wire.error("BAD_REQUEST", "the stream has begun in " + format));
                    } else if (!c.child("format").equals("binary") && !c.child("format").equals("xml")) {
                        reply(c, Wire.error("UNSUPPORTED_FORMAT", "format \"" + c.child("format") + "\": this agent sends binary or xml"));
                    } else {
                        format = c.child("format");
                        reply(c, "<enabledOutputFormat><format>" + format + "</format></enabledOutputFormat>");
                    }
                }
                case "startMonitoring" -> startMonitoring(c);
                case "chooseTelemetry" -> {
                    if (monitoring) {
                        reply(c, Wire.error("BAD_REQUEST", "monitoring has started: choose the telemetry before startMonitoring (or stop first)"));
                    } else {
                        telemetry = TelemetryChoice.parse(c.body());
                        reply(c, telemetry.reply);
                    }
                }
                case "stopMonitoring" -> {
                    stopMonitoring();
                    reply(c, "<monitoringStopped></monitoringStopped>");
                }
                case "detach" -> {
                    stopMonitoring();
                    attached = false;
                    collector = null;
                    reply(c, "<detached></detached>");
                }
                default -> reply(c, Wire.error("UNRECOGNIZED_COMMAND", "unrecognized command <" + c.name() + ">"));
            }
        }

        private void startMonitoring(Wire.Command c) throws IOException {
            if (monitoring) {
                reply(c, "<monitoringStarted></monitoringStarted>");
                return;
            }
            if (ModuleLayer.boot().findModule("jdk.jfr").isEmpty()) {
                reply(c, Wire.error("AGENT_FAILURE", "this JVM cannot record: it runs without JDK Flight Recorder (module jdk.jfr)"));
                return;
            }
            // The answer goes first: starting JFR may take a second, more on a
            // loaded machine, and the client waits for the answer only so long.
            reply(c, "<monitoringStarted></monitoringStarted>");
            if (collector == null) {
                collector = new Collector(opts, TraceEncoder.forFormat(format), new Collector.Sink() {
                    @Override
                    public void send(byte[] data) throws IOException {
                        sendData(data);
                    }

                    @Override
                    public void drain(long millis) {
                        try {
                            outbox.drain(millis);
                        } catch (InterruptedException e) {
                            Thread.currentThread().interrupt();
                        }
                    }
                }, why -> outbox.close("monitoring failed: " + why));
            }
            monitoring = true;
            collector.choose(telemetry);
            try {
                collector.start();
            } catch (RuntimeException | Error e) {
                System.err.println("proftop agent: cannot record: " + e);
                throw new IOException("cannot record", e); // ends the session: the client reconnects
            }
        }

        /** Stops recording; what was recorded is queued before whatever reply follows. */
        private void stopMonitoring() {
            if (monitoring) {
                monitoring = false;
                collector.stop();
            }
        }
    }

    /** Compares tokens in constant time. */
    private static boolean equal(String a, String b) {
        return MessageDigest.isEqual(a.getBytes(StandardCharsets.UTF_8), b.getBytes(StandardCharsets.UTF_8));
    }
}
