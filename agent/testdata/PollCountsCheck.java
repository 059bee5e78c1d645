package io.proftop.agent;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.concurrent.CountDownLatch;

/**
 * Polls a JVM of more threads than a poll looks at again with their
 * stacks (ThreadPoller.REFRESH_PER_POLL), one of which blocks on a lock
 * again and again, and prints, for each poll, the waiter's count of blocks
 * the poll sent and the JVM's own count right after: "sent real".
 */
public class PollCountsCheck {
    static final Object lock = new Object();

    public static void main(String[] args) throws Exception {
        CountDownLatch never = new CountDownLatch(1);
        for (int i = 0; i < 300; i++) {
            Thread t = new Thread(() -> {
                try {
                    never.await();
                } catch (InterruptedException e) {
                    // ends
                }
            }, "idle-" + i);
            t.setDaemon(true);
            t.start();
        }
        Thread holder = new Thread(() -> {
            while (true) {
                synchronized (lock) {
                    sleep(300);
                }
                sleep(5);
            }
        }, "holder");
        holder.setDaemon(true);
        holder.start();
        Thread waiter = new Thread(() -> {
            while (true) {
                synchronized (lock) {
                    sleep(1);
                }
                sleep(5);
            }
        }, "waiter");
        waiter.setDaemon(true);
        waiter.start();
        ThreadMXBean mx = ManagementFactory.getThreadMXBean();
        ThreadPoller poller = new ThreadPoller();
        for (int poll = 0; poll < 8; poll++) {
            Thread.sleep(700);
            for (ThreadPoller.Seen s : poller.take(true, false).threads()) {
                if (s.id() == waiter.getId()) {
                    System.out.println(s.blockedCount() + " " + mx.getThreadInfo(waiter.getId()).getBlockedCount());
                }
            }
        }
    }

    static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
