package io.proftop.agent;

import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.Socket;
import java.util.ArrayDeque;

/**
 * The frames going to one client, written in order by a thread of their own.
 * The threads that produce them (the JFR consumer, the poll, the session)
 * only queue: none of them ever waits for the network, so a slow or stalled
 * client cannot stall the agent. A client that falls further behind than
 * the backlog allows is dropped instead of letting the queue grow.
 */
final class Outbox {
    private record Frame(boolean data, byte[] payload) {}

    private final Socket socket;
    private final OutputStream out;
    private final long maxBacklog;
    private final ArrayDeque<Frame> queue = new ArrayDeque<>();
    private long backlog; // bytes queued, not yet written
    private boolean writing;
    private boolean closed;
    private String closedBecause = "the connection to the client is closed";

    Outbox(Socket socket, long maxBacklog) throws IOException {
        this.socket = socket;
        this.out = new BufferedOutputStream(socket.getOutputStream(), 64 << 10);
        this.maxBacklog = maxBacklog;
    }

    /** Queues a frame; throws when the connection is closed or the client has fallen too far behind. */
    synchronized void put(boolean data, byte[] payload) throws IOException {
        if (closed) {
            throw new IOException(closedBecause);
        }
        if (backlog + payload.length > maxBacklog) {
            close("the client fell more than " + maxBacklog + " bytes behind the trace: dropped it");
            throw new IOException(closedBecause);
        }
        queue.addLast(new Frame(data, payload));
        backlog += payload.length;
        notifyAll();
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

    /** The writing thread's loop: until the connection closes. */
    void run() {
        try {
            while (true) {
                Frame f;
                synchronized (this) {
                    while (queue.isEmpty() && !closed) {
                        wait();
                    }
                    if (closed) {
                        return;
                    }
                    f = queue.pollFirst();
                    writing = true;
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
                closedBecause = because;
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
