package io.proftop.agent;

import java.io.IOException;
import java.net.Socket;
import java.util.ArrayDeque;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * Refuses connections with a reason, at once and without a thread of their
 * own: the error (ctxt 0) is written to the fresh connection, whose send
 * buffer takes its few hundred bytes without waiting, and the agent's side
 * is shut. The connection stays open LINGER_MS more before it is closed:
 * closed at once, the client's own first frame, unread, would turn the
 * close into a reset, which may discard the reason before the client reads
 * it. At most MAX_LINGERING connections linger so; beyond, the oldest is
 * closed at once (it has had the longest to read its reason).
 */
final class Refusals {
    static final long LINGER_MS = 2_000;
    static final int MAX_LINGERING = 64;

    private record Lingering(Socket socket, long until) {}

    private final ScheduledExecutorService timer;
    private final ArrayDeque<Lingering> lingering = new ArrayDeque<>(); // oldest first; guarded by itself
    private boolean sweepScheduled; // guarded by lingering

    Refusals(ScheduledExecutorService timer) {
        this.timer = timer;
    }

    void refuse(Socket s, String code, String message) {
        try {
            Wire.writeReply(s, "agentController", "0", Wire.error(code, message));
            s.shutdownOutput();
        } catch (IOException e) {
            closeQuietly(s); // gone already: nothing to tell
            return;
        }
        Socket overflow = null;
        boolean schedule = false;
        synchronized (lingering) {
            if (lingering.size() >= MAX_LINGERING) {
                overflow = lingering.pollFirst().socket();
            }
            lingering.addLast(new Lingering(s, System.currentTimeMillis() + LINGER_MS));
            if (!sweepScheduled) {
                sweepScheduled = schedule = true;
            }
        }
        closeQuietly(overflow);
        if (schedule) {
            scheduleSweep(LINGER_MS);
        }
    }

    /** Closes the connections that have lingered long enough; one sweep is scheduled at a time. */
    private void sweep() {
        long next;
        while (true) {
            Socket done;
            synchronized (lingering) {
                Lingering first = lingering.peekFirst();
                if (first == null) {
                    sweepScheduled = false;
                    return;
                }
                long left = first.until() - System.currentTimeMillis();
                if (left > 0) {
                    next = left;
                    break;
                }
                done = lingering.pollFirst().socket();
            }
            closeQuietly(done);
        }
        scheduleSweep(next);
    }

    private void scheduleSweep(long delay) {
        try {
            timer.schedule(this::sweep, delay, TimeUnit.MILLISECONDS);
        } catch (RejectedExecutionException e) {
            // the agent is closing: close them all now
            synchronized (lingering) {
                for (Lingering l : lingering) {
                    closeQuietly(l.socket());
                }
                lingering.clear();
                sweepScheduled = false;
            }
        }
    }

    static void closeQuietly(Socket s) {
        if (s == null) {
            return;
        }
        try {
            s.close();
        } catch (IOException e) {
            // closed already
        }
    }
}
