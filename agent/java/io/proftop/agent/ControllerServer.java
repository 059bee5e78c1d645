package io.proftop.agent;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A one-agent agent controller (docs/protocol.md): it lists this JVM as its
 * only agent, negotiates the output format and streams the trace to one
 * client at a time. With no client, nothing is recorded.
 *
 * Only clients with the token get in: a connection's first frame must be
 * authenticate (Session), and who may wait to authenticate, and how long
 * a wrong token holds the next back, is the Gate's business, peer by peer.
 * The token is given (token=, tokenfile=) or made up, and handed to the
 * JVM's user alone (Handover).
 *
 * Two threads take connections in: one accepts them as fast as they come,
 * the other learns who made them (SocketOwners, a batch at a time) and
 * gives each a place to authenticate in or refuses it, saying why
 * (Refusals). Neither waits for a client.
 */
final class ControllerServer {
    static final String AGENT_ID = "1";

    /** Connections the kernel holds for the agent before it accepts them. */
    private static final int LISTEN_BACKLOG = 512;
    /** Connections accepted, waiting to be told apart; beyond, refused at once. */
    private static final int MAX_ARRIVALS = 256;
    /** The most connections told apart by one reading of the socket tables. */
    private static final int MAX_BATCH = 64;
    /**
     * Readings of the socket tables are this far apart at least: each costs
     * the kernel milliseconds, and a flood of connections must not cost the
     * application more than a small share of a core.
     */
    private static final long MIN_READING_GAP_MS = 25;

    private final Options opts;
    private final ServerSocket server;
    private final String token;
    private final Gate gate;
    private final int ownUid = SocketOwners.ownUid();
    private Path tokenFile; // where its user's proftop finds the token; null when it could not be written
    private final AtomicBoolean busy = new AtomicBoolean();
    private final BlockingQueue<Socket> arrivals = new ArrayBlockingQueue<>(MAX_ARRIVALS);
    private final ScheduledExecutorService timer;
    private final Refusals refusals;
    private Thread admitter;

    ControllerServer(Options opts) throws IOException {
        this.opts = opts;
        String given = opts.givenToken();
        this.token = given != null ? given : Handover.newToken();
        this.gate = new Gate(token);
        InetAddress bind = opts.host() == null ? InetAddress.getLoopbackAddress() : InetAddress.getByName(opts.host());
        server = new ServerSocket();
        try {
            server.setReuseAddress(true);
            server.bind(new InetSocketAddress(bind, opts.port()), LISTEN_BACKLOG);
        } catch (IOException e) {
            server.close();
            throw e;
        }
        ScheduledThreadPoolExecutor t = new ScheduledThreadPoolExecutor(1, r -> Collector.daemon(r, "proftop-timer"));
        t.setRemoveOnCancelPolicy(true);
        timer = t;
        refusals = new Refusals(timer);
    }

    Options options() {
        return opts;
    }

    Gate gate() {
        return gate;
    }

    ScheduledExecutorService timer() {
        return timer;
    }

    /** Takes the agent's one place (one client at a time); false when a client holds it. */
    boolean takePlace() {
        return busy.compareAndSet(false, true);
    }

    void freePlace() {
        busy.set(false);
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
        admitter = Collector.daemon(this::admitLoop, "proftop-gate");
        admitter.start();
    }

    void close() {
        try {
            server.close();
        } catch (IOException e) {
            // closed already
        }
        if (admitter != null) {
            admitter.interrupt();
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
            if (!arrivals.offer(s)) {
                refusals.refuse(s, "BUSY", "connections arrive at this JVM's proftop agent faster than it can tell who makes them; try again in a moment");
            }
        }
    }

    /**
     * Learns who made each connection accepted, a batch at a time, and
     * gives it a place to authenticate in, or refuses it with the reason.
     */
    private void admitLoop() {
        List<Socket> batch = new ArrayList<>(MAX_BATCH);
        while (true) {
            try {
                batch.add(arrivals.take());
            } catch (InterruptedException e) {
                return;
            }
            arrivals.drainTo(batch, MAX_BATCH - 1);
            int[] uids = SocketOwners.uidsOf(batch);
            boolean read = false;
            for (int i = 0; i < batch.size(); i++) {
                Socket s = batch.get(i);
                read |= SocketOwners.isLocal(s);
                Peer peer = uids[i] >= 0 ? Peer.user(uids[i], ownUid) : Peer.address(s.getInetAddress());
                Session session = new Session(this, s, peer);
                String why = gate.admit(session);
                if (why == null) {
                    try {
                        Collector.daemon(session::serve, "proftop-client").start();
                    } catch (OutOfMemoryError | RuntimeException e) {
                        // No thread to be had (the process's limit): this
                        // connection is refused, the next ones are still heard.
                        gate.leave(session);
                        why = "this JVM cannot start a thread for the connection now: " + e;
                    }
                }
                if (why != null) {
                    refusals.refuse(s, "BUSY", why);
                }
            }
            batch.clear();
            if (read) {
                try {
                    Thread.sleep(MIN_READING_GAP_MS);
                } catch (InterruptedException e) {
                    return;
                }
            }
        }
    }

    /** A hint for a client refused: where the token is, for the one who may read it. */
    String whereTheTokenIs() {
        if (tokenFile == null) {
            return "The JVM's owner has its token.";
        }
        return "This agent admits the JVM's user: proftop run as that user finds the token in " + tokenFile + ".";
    }
}
