import java.util.ArrayList;
import java.util.List;

/**
 * An application for the agent's heap test: it keeps LIVE_MIB of data
 * alive and replaces it steadily (a new 256 KiB block every few
 * milliseconds), while THREADS threads work DEPTH frames deep, so that a
 * watching agent has plenty to report. It runs SECONDS, prints "done:" and
 * its figures, and exits 0; an OutOfMemoryError anywhere ends it with
 * status 3.
 *
 * java -Xmx64m Allocator SECONDS LIVE_MIB THREADS DEPTH
 */
public class Allocator {
    static volatile boolean running = true;
    static volatile long sink;

    public static void main(String[] args) throws Exception {
        int seconds = Integer.parseInt(args[0]);
        int liveMiB = Integer.parseInt(args[1]);
        int threads = Integer.parseInt(args[2]);
        int depth = Integer.parseInt(args[3]);
        Thread.setDefaultUncaughtExceptionHandler((t, e) -> {
            System.err.println("Allocator: " + t.getName() + " died: " + e);
            if (e instanceof OutOfMemoryError) {
                Runtime.getRuntime().halt(3);
            }
        });
        for (int i = 0; i < threads; i++) {
            Thread w = new Thread(() -> work(depth), "worker-" + i);
            w.setDaemon(true);
            w.start();
        }
        System.out.println("allocator started");
        System.out.flush();
        int blocks = liveMiB * 4;
        List<byte[]> live = new ArrayList<>(blocks);
        long allocated = 0;
        long end = System.nanoTime() + seconds * 1_000_000_000L;
        try {
            for (int i = 0; System.nanoTime() < end; i++) {
                byte[] b = new byte[256 << 10];
                b[i % b.length] = (byte) i;
                if (live.size() < blocks) {
                    live.add(b);
                } else {
                    live.set(i % blocks, b);
                }
                allocated += b.length;
                if (i % 8 == 0) {
                    Thread.sleep(5);
                }
            }
        } catch (OutOfMemoryError e) {
            System.err.println("Allocator: main died: " + e);
            Runtime.getRuntime().halt(3);
        }
        running = false;
        System.out.println("done: " + (allocated >> 20) + " MiB allocated in " + seconds + " s, " + live.size() / 4 + " MiB live");
    }

    /**
     * Works and waits about depth frames deep, at a depth that changes from
     * one pass to the next: every poll finds every worker's stack changed,
     * so the agent reports it whole.
     */
    static void work(int depth) {
        long x = Thread.currentThread().getId();
        for (int pass = 0; running; pass++) {
            x = recurse(depth + pass % 7, x);
        }
        sink += x;
    }

    static long recurse(int depth, long x) {
        if (depth > 0) {
            return recurse(depth - 1, x) + 1;
        }
        for (int i = 0; i < 2_000; i++) {
            x = x * 6364136223846793005L + 1442695040888963407L;
        }
        try {
            Thread.sleep(10);
        } catch (InterruptedException e) {
            running = false;
        }
        return x + new long[16].length;
    }
}
