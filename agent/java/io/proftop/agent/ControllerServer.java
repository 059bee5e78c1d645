package io.proftop.agent;

import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.MessageDigest;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A one-agent agent controller (docs/protocol.md): it lists this JVM as its
 * only agent, negotiates the output format and streams the trace to one
 * client at a time. With no client, nothing is recorded.
 */
final class ControllerServer {
    static final String AGENT_ID = "1";

    private final Options opts;
    private final ServerSocket server;
    private final AtomicBoolean busy = new AtomicBoolean();

    ControllerServer(Options opts) throws IOException {
        this.opts = opts;
        InetAddress bind = opts.host() == null ? InetAddress.getLoopbackAddress() : InetAddress.getByName(opts.host());
        server = new ServerSocket();
        server.setReuseAddress(true);
        server.bind(new InetSocketAddress(bind, opts.port()));
    }

    int port() {
        return server.getLocalPort();
    }

    void start() throws IOException {
        writePortFile(opts.portFile());
        Collector.daemon(this::acceptLoop, "proftop-accept").start();
    }

    /** Writes the port to a file, atomically: a reader sees a whole port or nothing. */
    void writePortFile(Path file) throws IOException {
        if (file == null) {
            return;
        }
        Path tmp = file.resolveSibling(file.getFileName() + ".tmp");
        Files.writeString(tmp, Integer.toString(port()) + "\n", StandardCharsets.UTF_8);
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
            if (busy.compareAndSet(false, true)) {
                Collector.daemon(() -> {
                    try {
                        new Session(s).serve();
                    } finally {
                        busy.set(false);
                    }
                }, "proftop-client").start();
            } else {
                Collector.daemon(() -> refuse(s), "proftop-refuse").start();
            }
        }
    }

    /** A second client gets a clear error to its first command. */
    private static void refuse(Socket s) {
        try (s) {
            s.setSoTimeout(5000);
            Wire.Frame f = Wire.read(s.getInputStream());
            Wire.Command c = f == null || f.data() ? null : Wire.parse(f.payload());
            String body = Wire.error("BUSY", "this JVM's proftop agent already serves a client; it serves one at a time");
            byte[] reply = Wire.reply("agentController", c == null ? "proftop" : c.src(), c == null ? "0" : c.ctxt(), body)
                    .getBytes(StandardCharsets.UTF_8);
            Wire.write(s.getOutputStream(), false, reply, 0, reply.length);
            s.getOutputStream().flush();
        } catch (IOException e) {
            // the client went away: nothing to tell it
        }
    }

    /** One client's connection. */
    private final class Session {
        private final Socket socket;
        private final OutputStream out;
        private boolean authed = opts.token() == null || opts.token().isEmpty();
        private boolean attached;
        private String format = "xml";
        private Collector collector;
        private TraceEncoder encoder; // the stream of this attachment, kept across stop and start

        Session(Socket socket) {
            this.socket = socket;
            OutputStream o;
            try {
                socket.setTcpNoDelay(true);
                o = new BufferedOutputStream(socket.getOutputStream(), 64 << 10);
            } catch (IOException e) {
                o = OutputStream.nullOutputStream();
            }
            this.out = o;
        }

        void serve() {
            try (socket) {
                InputStream in = socket.getInputStream();
                while (true) {
                    Wire.Frame f = Wire.read(in);
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
                // the client is gone
            } finally {
                stopMonitoring();
            }
        }

        private String self() {
            return attached ? "agent:" + AGENT_ID : "agentController";
        }

        private void reply(Wire.Command c, String body) throws IOException {
            send(Wire.reply(self(), c.src(), c.ctxt(), body));
        }

        private void send(String xml) throws IOException {
            byte[] b = xml.getBytes(StandardCharsets.UTF_8);
            synchronized (out) {
                Wire.write(out, false, b, 0, b.length);
                out.flush();
            }
        }

        /** Trace bytes as data frames. */
        private void sendData(byte[] data) throws IOException {
            synchronized (out) {
                for (int off = 0; off < data.length; off += Wire.MAX_PAYLOAD) {
                    Wire.write(out, true, data, off, Math.min(Wire.MAX_PAYLOAD, data.length - off));
                }
                out.flush();
            }
        }

        private void handle(Wire.Command c) throws IOException {
            if (c.name().equals("authenticate")) {
                if (opts.token() == null || opts.token().isEmpty() || equal(opts.token(), c.attr("token"))) {
                    authed = true;
                    reply(c, "<authenticated></authenticated>");
                } else {
                    reply(c, Wire.error("UNAUTHORIZED", "wrong token"));
                }
                return;
            }
            if (!authed) {
                reply(c, Wire.error("UNAUTHORIZED", "this agent requires a token: send <authenticate token=\"…\"/> first"));
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
                    encoder = null;
                    reply(c, "<attached agentId=\"" + AGENT_ID + "\"></attached>");
                }
                case "setOutputFormat" -> {
                    if (!attached) {
                        reply(c, Wire.error("NOT_ATTACHED", "attach to the agent first"));
                    } else if (encoder != null) {
                        reply(c, Wire.error("BAD_REQUEST", "the stream has begun in " + format));
                    } else if (!c.child("format").equals("binary") && !c.child("format").equals("xml")) {
                        reply(c, Wire.error("UNSUPPORTED_FORMAT", "format \"" + c.child("format") + "\": this agent sends binary or xml"));
                    } else {
                        format = c.child("format");
                        reply(c, "<enabledOutputFormat><format>" + format + "</format></enabledOutputFormat>");
                    }
                }
                case "startMonitoring" -> {
                    if (!attached) {
                        reply(c, Wire.error("NOT_ATTACHED", "attach to the agent first"));
                        return;
                    }
                    reply(c, "<monitoringStarted></monitoringStarted>");
                    startMonitoring();
                }
                case "stopMonitoring" -> {
                    stopMonitoring();
                    reply(c, "<monitoringStopped></monitoringStopped>");
                }
                case "detach" -> {
                    stopMonitoring();
                    attached = false;
                    encoder = null;
                    reply(c, "<detached></detached>");
                }
                default -> reply(c, Wire.error("UNRECOGNIZED_COMMAND", "unrecognized command <" + c.name() + ">"));
            }
        }

        private void startMonitoring() {
            if (collector != null) {
                return;
            }
            if (encoder == null) {
                encoder = TraceEncoder.forFormat(format);
            }
            collector = new Collector(opts, encoder, this::sendData);
            collector.start();
        }

        private void stopMonitoring() {
            if (collector != null) {
                collector.stop();
                collector.flush();
                collector = null;
            }
        }
    }

    /** Compares tokens in constant time. */
    private static boolean equal(String a, String b) {
        return MessageDigest.isEqual(a.getBytes(StandardCharsets.UTF_8), b.getBytes(StandardCharsets.UTF_8));
    }
}
