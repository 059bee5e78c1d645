package io.proftop.agent;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Tells a look at the threads that fell in a monitor's handover.
 *
 * ThreadMXBean reports a thread blocked on a monitor that has no owner at
 * that instant as RUNNABLE, with no lock: HotSpot's thread snapshot does so
 * on purpose ("ownership information of the monitor is not available").
 * Between one owner's exit and the next one's entry every thread waiting
 * for that monitor therefore reads as running, all at once, though none of
 * them runs; jstack, which prints the threads' own status, reads them
 * blocked. On a contended monitor under load that moment is not rare: the
 * thread woken to take the lock must first get a core. A look at 16
 * request threads contending for one monitor fell in it once in 10 to 20
 * (0 blocked, 14 to 16 "running", where jstack a moment later read 11 to
 * 15 blocked).
 *
 * The sign of it: two or more threads the last poll saw blocked on one
 * monitor now all read RUNNABLE, and none reads blocked on it. Threads
 * that stopped contending look the same, so the poller only looks again,
 * a moment later, a bounded number of times, and keeps the last look.
 */
final class OwnerlessMonitors {
    /** One thread in a look without a stack: its state and the lock it waits for (0: none). */
    record Brief(long id, Thread.State state, long lock) {}

    /** Looks a poll takes again at most, when they fall in a handover. */
    static final int RETRIES = 3;

    /** How long to wait before looking again: about what a woken thread needs to get a core and take the lock. */
    static final long RETRY_NANOS = 1_000_000;

    /** Threads that, all read running at once, tell a handover from one thread that took the lock. */
    static final int MIN_WAITERS = 2;

    private OwnerlessMonitors() {}

    /**
     * Whether look falls in a handover of a monitor that the threads of
     * blockedBefore (thread id to the monitor the last poll saw it blocked
     * on) waited for.
     */
    static boolean inHandover(Map<Long, Long> blockedBefore, List<Brief> look) {
        if (blockedBefore.size() < MIN_WAITERS) {
            return false;
        }
        Map<Long, int[]> byMonitor = new HashMap<>(); // monitor -> {blocked on it now, running now}
        for (Brief b : look) {
            Long monitor = blockedBefore.get(b.id());
            if (monitor == null) {
                continue;
            }
            int[] n = byMonitor.computeIfAbsent(monitor, k -> new int[2]);
            if (b.state() == Thread.State.BLOCKED && b.lock() == monitor) {
                n[0]++;
            } else if (b.state() == Thread.State.RUNNABLE) {
                n[1]++;
            }
        }
        for (int[] n : byMonitor.values()) {
            if (n[0] == 0 && n[1] >= MIN_WAITERS) {
                return true;
            }
        }
        return false;
    }
}
