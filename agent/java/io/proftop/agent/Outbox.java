package io.proftop.agent;

import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.BiConsumer;

/**
 * The frames going to one client, written in order by a thread of their own.
 * The threads that produce them (the JFR consumer, the poll, the session)
 * only queue: none of them ever waits for the network, so a slow or stalled
 * client cannot stall the agent. A client that falls further behind than
 * the backlog allows is dropped instead of letting the queue grow: what is
 * queued is thrown away at once (the application's heap holds it), and the
 * client is told why in a last frame, should it read again within
 * END_GRACE_MS; then the connection closes whatever it does. A client that
 * reads again only later never gets that frame: whoever made the Outbox
 * hears of the end (onEnd) and tells the client's next connection.
 */
final class Outbox {
    /** How long a client being dropped has to read the reason before the connection closes. */
    static final long END_GRACE_MS = 10_000;

    private record Frame(boolean data, byte[] payload) {}

    private final Socket socket;
    private final OutputStream out;
    private final long maxBacklog;
    private final ScheduledExecutorService timer;
    private final BiConsumer<String, String> onEnd; // code, message
    private final ArrayDeque<Frame> queue = new ArrayDeque<>();
    private long backlog; // bytes queued, not yet written
    private boolean writing;
    private boolean ending; // the last frame (the reason) is queued: nothing more is
    private boolean closed;
    private String closedBecause = "the connection to the client is closed";

    Outbox(Socket socket, long maxBacklog, ScheduledExecutorService timer, BiConsumer<String, String> onEnd) throws IOException {
        this.socket = socket;
        this.out = new BufferedOutputStream(socket.getOutputStream(), 64 << 10);
        this.maxBacklog = maxBacklog;
        this.timer = timer;
        this.onEnd = onEnd;
    }

    /**
     * Queues a frame; throws when the connection is closed or ending, or
     * when the client has fallen too far behind (it is then dropped). A
     * frame larger than the backlog still goes when nothing else waits: it
     * exists already, and the queue holds it, not a copy.
     */
    void put(boolean data, byte[] payload) throws IOException {
        String fellBehind = null;
        synchronized (this) {
            if (closed || ending) {
                throw new IOException(closedBecause);
            }
            if (backlog > 0 && backlog + payload.length > maxBacklog) {
                fellBehind = "the client fell more than " + size(maxBacklog) + " behind the trace, the most this agent queues"
                        + heapNote() + ": it was dropped; the application runs on";
            } else {
                queue.addLast(new Frame(data, payload));
                backlog += payload.length;
                notifyAll();
                return;
            }
        }
        end("TOO_SLOW", fellBehind);
        throw new IOException(fellBehind);
    }

    private String heapNote() {
        long heap = Runtime.getRuntime().maxMemory();
        if (heap <= 0 || heap == Long.MAX_VALUE || heap / Options.HEAP_SHARE > maxBacklog) {
            return "";
        }
        return " in a JVM whose heap may grow to " + size(heap);
    }

    static String size(long bytes) {
        if (bytes >= 1 << 20 && bytes % (1 << 20) == 0) {
            return (bytes >> 20) + " MiB";
        }
        if (bytes >= 1 << 20) {
            return String.format("%.1f MiB", bytes / (double) (1 << 20));
        }
        if (bytes >= 1 << 10) {
            return (bytes >> 10) + " KiB";
        }
        return bytes + " bytes";
    }

    /**
     * Ends the connection with an error the client can show: what is queued
     * is dropped, the error goes after the frame being written, then the
     * connection closes; within END_GRACE_MS whatever the client does.
     */
    void end(String code, String message) {
        byte[] reason = Wire.reply("agent:" + ControllerServer.AGENT_ID, "proftop", "0", Wire.error(code, message))
                .getBytes(StandardCharsets.UTF_8);
        synchronized (this) {
            if (closed || ending) {
                return;
            }
            ending = true;
            closedBecause = message;
            queue.clear();
            queue.addLast(new Frame(false, reason));
            backlog = reason.length;
            notifyAll();
        }
        System.err.println("proftop agent: " + message);
        try {
            onEnd.accept(code, message);
        } catch (RuntimeException e) {
            // the note is a courtesy: the end goes on
        }
        try {
            timer.schedule(() -> close(message), END_GRACE_MS, TimeUnit.MILLISECONDS);
        } catch (RuntimeException e) {
            close(message); // no timer: close now
        }
    }

    /** Waits, at most millis, until everything queued so far is written. */
    synchronized void drain(long millis) throws InterruptedException {
        long deadline = System.currentTimeMillis() + millis;
        while (!closed && (writing || !queue.isEmpty())) {
            long left = deadline - System.currentTimeMillis();
            if (left <= 0) {
                return;
            }
            wait(left);
        }
    }

    /** The writing thread's loop: until the connection closes, or has said its last. */
    void run() {
        try {
            while (true) {
                Frame f = null;
                synchronized (this) {
                    while (queue.isEmpty() && !closed && !ending) {
                        wait();
                    }
                    if (closed) {
                        return;
                    }
                    if (queue.isEmpty()) {
                        writing = false; // ending, and the reason is out (flushed when the queue emptied)
                        notifyAll();
                    } else {
                        f = queue.pollFirst();
                        writing = true;
                    }
                }
                if (f == null) {
                    // Nothing more from this side; the client closes, or the timer does.
                    socket.shutdownOutput();
                    return;
                }
                Wire.writeFrames(out, f.data(), f.payload());
                boolean idle;
                synchronized (this) {
                    backlog -= f.payload().length;
                    idle = queue.isEmpty();
                }
                if (idle) {
                    out.flush();
                }
                synchronized (this) {
                    writing = false;
                    notifyAll();
                }
            }
        } catch (IOException | InterruptedException e) {
            close("the connection to the client failed: " + e.getMessage());
        }
    }

    /** Closes the connection; a write in progress fails at once. */
    void close(String because) {
        synchronized (this) {
            if (!closed) {
                closed = true;
                if (!ending) {
                    closedBecause = because;
                }
            }
            queue.clear();
            backlog = 0;
            notifyAll();
        }
        try {
            socket.close();
        } catch (IOException e) {
            // closed already
        }
    }
}
