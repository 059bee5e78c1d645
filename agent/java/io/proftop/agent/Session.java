package io.proftop.agent;

import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * One client's connection, on a thread of its own: it authenticates (within
 * AUTHENTICATE_WITHIN_MS of connecting, in a place the Gate gave it), then
 * takes the agent's one place and serves the client's commands, the trace
 * going out through an Outbox.
 */
final class Session {
    /** The whole exchange, from connecting to an authenticate read, must fit in this. */
    static final long AUTHENTICATE_WITHIN_MS = 10_000;

    private final ControllerServer server;
    private final Socket socket;
    private final Peer peer;
    private final long accepted = System.currentTimeMillis();
    private volatile boolean checked; // its authenticate was read: it waits for the check, not for the client
    private volatile boolean authed;
    private String authCtxt = "0"; // of the authenticate that let it in, answered once the outbox runs
    private boolean holdsPlace; // the agent's one place
    private boolean attached;
    private boolean monitoring;
    private String format = "xml";
    private Outbox outbox;
    // The stream of this attachment: its encoder and the names it has
    // sent live on across stop and start, until detach or a new attach.
    private Collector collector;
    // The application's series and probes the client chose (TelemetryChoice).
    private TelemetryChoice telemetry = TelemetryChoice.NONE;

    Session(ControllerServer server, Socket socket, Peer peer) {
        this.server = server;
        this.socket = socket;
        this.peer = peer;
    }

    Socket socket() {
        return socket;
    }

    Peer peer() {
        return peer;
    }

    long accepted() {
        return accepted;
    }

    void markChecked() {
        checked = true;
    }

    /** Still sending its first frame after after ms: slow or stalled, since a client with its token authenticates in milliseconds. */
    boolean evictable(long now, long after) {
        return !checked && !authed && now - accepted >= after;
    }

    void serve() {
        Gate gate = server.gate();
        // The deadline covers the whole exchange, not each read: a peer
        // sending a byte now and then is closed all the same.
        ScheduledFuture<?> deadline = server.timer().schedule(() -> {
            if (!authed) {
                Refusals.closeQuietly(socket);
            }
        }, AUTHENTICATE_WITHIN_MS, TimeUnit.MILLISECONDS);
        try {
            socket.setTcpNoDelay(true);
            InputStream in = new BufferedInputStream(socket.getInputStream());
            boolean admitted = authenticate(in);
            deadline.cancel(false);
            gate.leave(this);
            if (!admitted) {
                return;
            }
            outbox = new Outbox(socket, server.options().backlogLimit(), server.timer(), (code, message) -> gate.noteDrop(peer, code, message));
            Collector.daemon(outbox::run, "proftop-send").start();
            send(Wire.reply("agentController", "proftop", authCtxt, authenticated(gate.takeDrop(peer))));
            while (true) {
                // Silence is normal while monitoring (the client only reads);
                // before, a silent client would hold the one place for nothing.
                socket.setSoTimeout(monitoring ? 0 : (int) Math.min(Integer.MAX_VALUE, server.options().idle().toMillis()));
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
            gate.leave(this);
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
                server.freePlace();
            }
            if (outbox != null) {
                outbox.close("the session is over");
            }
            Refusals.closeQuietly(socket);
        }
    }

    /** The answer to a good authenticate, telling why this peer's previous client was dropped, if it was of late. */
    private static String authenticated(Gate.Drop drop) {
        if (drop == null) {
            return "<authenticated></authenticated>";
        }
        long ago = Math.max(0, System.currentTimeMillis() - drop.at());
        return "<authenticated><lastDrop code=\"" + Wire.escape(drop.code()) + "\" msAgo=\"" + ago + "\">" + Wire.escape(drop.message())
                + "</lastDrop></authenticated>";
    }

    /**
     * Reads the first frame, which must be authenticate with the token,
     * and takes the one place. Whatever fails is answered (UNAUTHORIZED,
     * BUSY) and ends the connection: false.
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
            Wire.writeReply(socket, "agentController", ctxt, Wire.error("UNAUTHORIZED", "this proftop agent serves only clients with its token: "
                    + "send <authenticate token=\"…\"/> first. " + server.whereTheTokenIs()));
            return false;
        }
        boolean right;
        try {
            right = server.gate().check(this, c.attr("token"));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
        if (!right) {
            Wire.writeReply(socket, "agentController", ctxt, Wire.error("UNAUTHORIZED", "wrong token. " + server.whereTheTokenIs()));
            return false;
        }
        if (!server.takePlace()) {
            Wire.writeReply(socket, "agentController", ctxt,
                    Wire.error("BUSY", "this JVM's proftop agent already serves a client; it serves one at a time"));
            return false;
        }
        holdsPlace = true;
        authed = true;
        authCtxt = ctxt;
        return true;
    }

    private String self() {
        return attached ? "agent:" + ControllerServer.AGENT_ID : "agentController";
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
            case "listAgents" -> reply(c, "<agentList><agent id=\"" + ControllerServer.AGENT_ID + "\" pid=\"" + ProcessHandle.current().pid()
                    + "\" name=\"" + Wire.escape(Collector.mainClass()) + "\" type=\"Profiler\" version=\"" + Collector.VERSION
                    + "\"></agent></agentList>");
            case "attach" -> {
                if (!ControllerServer.AGENT_ID.equals(c.attr("agentId"))) {
                    reply(c, Wire.error("NO_SUCH_AGENT", "no agent \"" + c.attr("agentId") + "\": this JVM is agent " + ControllerServer.AGENT_ID));
                    return;
                }
                stopMonitoring();
                attached = true;
                format = "xml";
                collector = null;
                telemetry = TelemetryChoice.NONE;
                reply(c, "<attached agentId=\"" + ControllerServer.AGENT_ID + "\"></attached>");
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
            collector = new Collector(server.options(), TraceEncoder.forFormat(format), new Collector.Sink() {
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
