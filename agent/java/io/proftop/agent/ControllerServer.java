package io.proftop.agent;

import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.ReentrantLock;

/**
 * A one-agent agent controller (docs/protocol.md): it lists this JVM as its
 * only agent, negotiates the output format and streams the trace to one
 * client at a time. With no client, nothing is recorded.
 *
 * Only clients with the token get in: a connection's first frame must be
 * authenticate, within AUTHENTICATE_WITHIN_MS of connecting (however
 * slowly its bytes come); anything else is answered UNAUTHORIZED and
 * closed. The token is given (token=, tokenfile=) or made up, and handed
 * to the JVM's user alone (Handover).
 */
final class ControllerServer {
    static final String AGENT_ID = "1";

    /** At most this many connections wait to authenticate at once. */
    private static final int MAX_PENDING = 8;
    /** The whole exchange, from connecting to an authenticate read, must fit in this. */
    private static final long AUTHENTICATE_WITHIN_MS = 10_000;
    /**
     * When every pending place is taken, a newcomer takes the place of the
     * oldest connection that has been sending its first frame for longer
     * than this: a client that has its token authenticates in
     * milliseconds, so the ones this old are slow or stalled.
     */
    private static final long EVICTABLE_AFTER_MS = 1_000;
    /** Tokens are checked one at a time, and a wrong one holds the next check back this long. */
    private static final long WRONG_TOKEN_PAUSE_MS = 200;
    /** At most this many refusals are under way at once; further connections are closed at once. */
    private static final int MAX_REFUSALS = 4;

    private final Options opts;
    private final ServerSocket server;
    private final String token;
    private Path tokenFile; // where its user's proftop finds the token; null when it could not be written
    private final AtomicBoolean busy = new AtomicBoolean();
    private final Semaphore refusals = new Semaphore(MAX_REFUSALS);
    private final List<Session> pending = new ArrayList<>(); // guarded by itself
    private final ReentrantLock checking = new ReentrantLock(true);
    private final ScheduledExecutorService timer;

    ControllerServer(Options opts) throws IOException {
        this.opts = opts;
        String given = opts.givenToken();
        this.token = given != null ? given : Handover.newToken();
        InetAddress bind = opts.host() == null ? InetAddress.getLoopbackAddress() : InetAddress.getByName(opts.host());
        server = new ServerSocket();
        try {
            server.setReuseAddress(true);
            server.bind(new InetSocketAddress(bind, opts.port()));
        } catch (IOException e) {
            server.close();
            throw e;
        }
        ScheduledThreadPoolExecutor t = new ScheduledThreadPoolExecutor(1, r -> Collector.daemon(r, "proftop-timer"));
        t.setRemoveOnCancelPolicy(true);
        timer = t;
    }

    Options options() {
        return opts;
    }

    int port() {
        return server.getLocalPort();
    }

    /** Where the JVM's user's proftop finds the token, or null. */
    Path tokenFile() {
        return tokenFile;
    }

    /**
     * Hands the token over, writes the port file and starts accepting. A
     * token made up here that can be handed over nowhere would lock
     * everyone out: the agent does not start then.
     */
    void start() throws IOException {
        String why = null;
        try {
            Path f = Handover.tokenFile(port());
            // The token, then who wrote it: this JVM removes the file at its
            // exit only while it is still its own.
            String content = token + "\npid=" + ProcessHandle.current().pid() + "\n";
            Handover.writePrivate(f, content);
            Handover.removeAtExitIfUnchanged(f, content);
            tokenFile = f;
        } catch (IOException | RuntimeException e) {
            why = e.getMessage();
        }
        if (tokenFile == null) {
            if (opts.token() == null && opts.tokenFile() == null && opts.portFile() == null) {
                throw new IOException("cannot hand its token to this JVM's user (" + why
                        + "): give tokenfile=PATH (or token=SECRET), the token clients will present");
            }
            System.err.println("proftop agent: the token is not in /tmp/proftop-UID (" + why
                    + "): its clients must be given it (--token, PROFTOP_TOKEN)");
        }
        writePortFile(opts.portFile(), List.of());
        Collector.daemon(this::acceptLoop, "proftop-accept").start();
    }

    void close() {
        try {
            server.close();
        } catch (IOException e) {
            // closed already
        }
        timer.shutdownNow();
    }

    /**
     * Writes the port, then the token ("token=…"), to a file only this
     * JVM's user may read, atomically: a reader sees a whole file or
     * nothing. Notes for the one who attached follow, one per line.
     */
    void writePortFile(Path file, List<String> notes) throws IOException {
        if (file == null) {
            return;
        }
        StringBuilder b = new StringBuilder().append(port()).append('\n');
        b.append("token=").append(token).append('\n');
        for (String n : notes) {
            b.append(n.replace('\n', ' ')).append('\n');
        }
        Handover.writePrivate(file, b.toString());
    }

    private void acceptLoop() {
        while (true) {
            Socket s;
            try {
                s = server.accept();
            } catch (IOException e) {
                return;
            }
            Session session = new Session(s);
            if (admit(session)) {
                Collector.daemon(session::serve, "proftop-client").start();
            } else {
                refuse(s, "BUSY", MAX_PENDING + " connections are waiting to authenticate to this JVM's proftop agent; try again in a moment");
            }
        }
    }

    /**
     * Gives a new connection a pending place: a free one, or the place of
     * the oldest connection still sending its first frame after
     * EVICTABLE_AFTER_MS. False when every place is held by a younger one.
     */
    private boolean admit(Session s) {
        synchronized (pending) {
            if (pending.size() >= MAX_PENDING) {
                long now = System.currentTimeMillis();
                Session oldest = null;
                for (Session p : pending) {
                    if (p.evictable(now) && (oldest == null || p.accepted < oldest.accepted)) {
                        oldest = p;
                    }
                }
                if (oldest == null) {
                    return false;
                }
                pending.remove(oldest);
                closeQuietly(oldest.socket);
            }
            pending.add(s);
            return true;
        }
    }

    private void leavePending(Session s) {
        synchronized (pending) {
            pending.remove(s);
        }
    }

    private static void closeQuietly(Socket s) {
        try {
            s.close();
        } catch (IOException e) {
            // closed already
        }
    }

    /**
     * Tells a connection at once why it cannot be served, without reading
     * anything: an error with ctxt 0, then the end of the connection. The
     * socket is drained a moment before it closes, so that the client's
     * own first frame does not turn the close into a reset that would
     * discard the reason.
     */
    private void refuse(Socket s, String code, String message) {
        if (!refusals.tryAcquire()) {
            closeQuietly(s);
            return;
        }
        Collector.daemon(() -> {
            try (s) {
                s.setSoTimeout(2000);
                writeReply(s, "0", Wire.error(code, message));
                s.shutdownOutput();
                InputStream in = s.getInputStream();
                byte[] sink = new byte[4096];
                for (int total = 0; total < 64 << 10; ) {
                    int n = in.read(sink);
                    if (n < 0) {
                        break;
                    }
                    total += n;
                }
            } catch (IOException e) {
                // the client went away: nothing more to tell it
            } finally {
                refusals.release();
            }
        }, "proftop-refuse").start();
    }

    /** Writes one reply straight to a socket: a few hundred bytes, which a fresh connection's buffer takes without waiting. */
    private static void writeReply(Socket s, String ctxt, String body) throws IOException {
        byte[] reply = Wire.reply("agentController", "proftop", ctxt, body).getBytes(StandardCharsets.UTF_8);
        OutputStream out = s.getOutputStream();
        Wire.write(out, false, reply, 0, reply.length);
        out.flush();
    }

    /** Compares tokens in constant time. */
    private static boolean equal(String a, String b) {
        return MessageDigest.isEqual(a.getBytes(StandardCharsets.UTF_8), b.getBytes(StandardCharsets.UTF_8));
    }

    /** One client's connection. */
    private final class Session {
        private final Socket socket;
        private final long accepted = System.currentTimeMillis();
        private volatile boolean checked; // its authenticate was read: it waits for the check, not for the client
        private volatile boolean authed;
        private String authCtxt = "0"; // of the authenticate that let it in, answered once the outbox runs
        private boolean holdsPlace; // the one place (busy)
        private boolean attached;
        private boolean monitoring;
        private String format = "xml";
        private Outbox outbox;
        // The stream of this attachment: its encoder and the names it has
        // sent live on across stop and start, until detach or a new attach.
        private Collector collector;
        // The application's series and probes the client chose (TelemetryChoice).
        private TelemetryChoice telemetry = TelemetryChoice.NONE;

        Session(Socket socket) {
            this.socket = socket;
        }

        boolean evictable(long now) {
            return !checked && !authed && now - accepted >= EVICTABLE_AFTER_MS;
        }

        void serve() {
            // The deadline covers the whole exchange, not each read: a peer
            // sending a byte now and then is closed all the same.
            ScheduledFuture<?> deadline = timer.schedule(() -> {
                if (!authed) {
                    closeQuietly(socket);
                }
            }, AUTHENTICATE_WITHIN_MS, TimeUnit.MILLISECONDS);
            try {
                socket.setTcpNoDelay(true);
                InputStream in = new BufferedInputStream(socket.getInputStream());
                boolean admitted = authenticate(in);
                deadline.cancel(false);
                leavePending(this);
                if (!admitted) {
                    return;
                }
                outbox = new Outbox(socket, opts.backlogLimit(), timer);
                Collector.daemon(outbox::run, "proftop-send").start();
                send(Wire.reply("agentController", "proftop", authCtxt, "<authenticated></authenticated>"));
                while (true) {
                    // Silence is normal while monitoring (the client only reads);
                    // before, a silent client would hold the one place for nothing.
                    socket.setSoTimeout(monitoring ? 0 : (int) Math.min(Integer.MAX_VALUE, opts.idle().toMillis()));
                    Wire.Frame f = Wire.read(in, Wire.MAX_COMMAND);
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
                // the client is gone, idle too long, too slow to authenticate, or sent a bad frame
            } catch (Throwable t) {
                System.err.println("proftop agent: the client's session failed: " + t);
            } finally {
                deadline.cancel(false);
                leavePending(this);
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
                }
                if (outbox != null) {
                    outbox.close("the session is over");
                }
                closeQuietly(socket);
            }
        }

        /**
         * Reads the first frame, which must be authenticate with the
         * token, and takes the one place. Whatever fails is answered
         * (UNAUTHORIZED, BUSY) and ends the connection: false.
         */
        private boolean authenticate(InputStream in) throws IOException {
            socket.setSoTimeout((int) AUTHENTICATE_WITHIN_MS);
            Wire.Frame f = Wire.read(in, Wire.MAX_UNAUTHENTICATED);
            if (f == null || f.data()) {
                return false;
            }
            Wire.Command c = Wire.parse(f.payload());
            String ctxt = c == null ? "0" : c.ctxt();
            if (c == null || !c.name().equals("authenticate")) {
                writeReply(socket, ctxt, Wire.error("UNAUTHORIZED", "this proftop agent serves only clients with its token: "
                        + "send <authenticate token=\"…\"/> first. " + whereTheTokenIs()));
                return false;
            }
            checked = true;
            boolean right;
            checking.lock();
            try {
                right = equal(token, c.attr("token"));
                if (!right) {
                    Thread.sleep(WRONG_TOKEN_PAUSE_MS);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return false;
            } finally {
                checking.unlock();
            }
            if (!right) {
                writeReply(socket, ctxt, Wire.error("UNAUTHORIZED", "wrong token. " + whereTheTokenIs()));
                return false;
            }
            if (!busy.compareAndSet(false, true)) {
                writeReply(socket, ctxt, Wire.error("BUSY", "this JVM's proftop agent already serves a client; it serves one at a time"));
                return false;
            }
            holdsPlace = true;
            authed = true;
            authCtxt = ctxt;
            return true;
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
                reply(c, "<authenticated></authenticated>"); // in already
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
                }, why -> outbox.end("AGENT_FAILURE", "monitoring failed: " + why));
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

    /** A hint for a client refused: where the token is, for the one who may read it. */
    private String whereTheTokenIs() {
        if (tokenFile == null) {
            return "The JVM's owner has its token.";
        }
        return "This agent admits the JVM's user: proftop run as that user finds the token in " + tokenFile + ".";
    }
}
