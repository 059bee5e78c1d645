package io.proftop.agent;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.lang.management.ThreadMXBean;
import java.util.List;
import java.util.Map;

/**
 * Checks the poller's reading of threads blocked on a monitor in the
 * moment it changes hands (OwnerlessMonitors).
 *
 * "case NAME: true|false": whether inHandover says so of a made-up look.
 * Then 16 threads contend for one monitor, each holding it 2 ms at a time
 * and then pausing 0.1 ms (as a request of the test Tomcat's contend.jsp
 * does, and then the next), and POLLS looks
 * of each kind are taken, 20 ms apart: "raw G/N" counts the looks of
 * ThreadMXBean alone in which none of the 16 read blocked, "poller G/N"
 * the polls of the agent's poller in which none did, and "retries R" the
 * looks the poller took again.
 *
 * java -cp proftop-agent.jar:CLASSES io.proftop.agent.OwnerlessMonitorCheck POLLS
 */
public class OwnerlessMonitorCheck {
    static final int CONTENDERS = 16;
    static final Object monitor = new Object();

    public static void main(String[] args) throws Exception {
        cases();
        int polls = Integer.parseInt(args[0]);
        for (int i = 0; i < CONTENDERS; i++) {
            Thread t = new Thread(OwnerlessMonitorCheck::contend, "contender-" + i);
            t.setDaemon(true);
            t.start();
        }
        Thread.sleep(500);
        ThreadMXBean mx = ManagementFactory.getThreadMXBean();
        int rawGaps = 0;
        for (int i = 0; i < polls; i++) {
            int blocked = 0;
            for (ThreadInfo info : mx.getThreadInfo(mx.getAllThreadIds(), 0)) {
                if (info != null && info.getThreadName().startsWith("contender-") && info.getThreadState() == Thread.State.BLOCKED) {
                    blocked++;
                }
            }
            rawGaps += blocked == 0 ? 1 : 0;
            Thread.sleep(20);
        }
        ThreadPoller poller = new ThreadPoller();
        int pollerGaps = 0;
        for (int i = 0; i < polls; i++) {
            int blocked = 0;
            for (ThreadPoller.Seen s : poller.take(false, false).threads()) {
                if (s.name().startsWith("contender-") && s.state().equals(ThreadPoller.BLOCKED)) {
                    blocked++;
                }
            }
            pollerGaps += blocked == 0 ? 1 : 0;
            Thread.sleep(20);
        }
        System.out.printf("raw %d/%d%npoller %d/%d%nretries %d%n", rawGaps, polls, pollerGaps, polls, poller.handoverRetries());
    }

    static void contend() {
        while (true) {
            synchronized (monitor) {
                long end = System.nanoTime() + 2_000_000L;
                while (System.nanoTime() < end) {
                    Thread.onSpinWait();
                }
            }
            try {
                Thread.sleep(0, 100_000); // answers the request, takes the next
            } catch (InterruptedException e) {
                return;
            }
        }
    }

    static void cases() {
        var R = Thread.State.RUNNABLE;
        var B = Thread.State.BLOCKED;
        var W = Thread.State.WAITING;
        Map<Long, Long> onA = Map.of(1L, 0xaL, 2L, 0xaL, 3L, 0xaL);
        print("all read running", OwnerlessMonitors.inHandover(onA, List.of(brief(1, R, 0), brief(2, R, 0), brief(3, R, 0))));
        print("one still blocked", OwnerlessMonitors.inHandover(onA, List.of(brief(1, R, 0), brief(2, R, 0), brief(3, B, 0xa))));
        print("one took it, the others wait", OwnerlessMonitors.inHandover(onA, List.of(brief(1, R, 0), brief(2, B, 0xa), brief(3, B, 0xa))));
        print("blocked on another monitor", OwnerlessMonitors.inHandover(onA, List.of(brief(1, R, 0), brief(2, R, 0), brief(3, B, 0xb))));
        print("one running, the others wait elsewhere", OwnerlessMonitors.inHandover(onA, List.of(brief(1, R, 0), brief(2, W, 0xc), brief(3, W, 0xc))));
        print("one blocked before", OwnerlessMonitors.inHandover(Map.of(1L, 0xaL), List.of(brief(1, R, 0))));
        print("new threads only", OwnerlessMonitors.inHandover(onA, List.of(brief(7, R, 0), brief(8, R, 0))));
        Map<Long, Long> twoMonitors = Map.of(1L, 0xaL, 2L, 0xaL, 3L, 0xbL, 4L, 0xbL);
        print("one of two monitors changing hands", OwnerlessMonitors.inHandover(twoMonitors,
                List.of(brief(1, B, 0xa), brief(2, B, 0xa), brief(3, R, 0), brief(4, R, 0))));
        // A thread read RUNNABLE in Object.wait takes its monitor again: jstack reads it BLOCKED.
        print("runnable in Object.wait", ThreadPoller.reentering(new StackTraceElement[] {
                frame("java.lang.Object", "wait0"), frame("java.lang.Object", "wait"), frame("org.h2.Pool", "take")}));
        print("runnable in Object.wait (JDK 17)", ThreadPoller.reentering(new StackTraceElement[] {
                frame("java.lang.Object", "wait"), frame("org.h2.Pool", "take")}));
        print("runnable under a wait", ThreadPoller.reentering(new StackTraceElement[] {
                frame("org.h2.Pool", "check"), frame("java.lang.Object", "wait")}));
        print("runnable, no stack", ThreadPoller.reentering(new StackTraceElement[0]));
    }

    static StackTraceElement frame(String cls, String method) {
        return new StackTraceElement(cls, method, null, -1);
    }

    static OwnerlessMonitors.Brief brief(long id, Thread.State state, long lock) {
        return new OwnerlessMonitors.Brief(id, state, lock);
    }

    static void print(String name, boolean got) {
        System.out.println("case " + name + ": " + got);
    }
}
