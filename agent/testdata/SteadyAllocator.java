/**
 * Allocates MIB_PER_SECOND MiB a second, in arrays of 1 MiB made by its
 * main thread a tenth of a second's worth at a time, until killed: a JVM
 * to attach to after it has allocated for a while.
 *
 * java -cp CLASSES SteadyAllocator MIB_PER_SECOND
 */
public class SteadyAllocator {
    static volatile Object sink;

    public static void main(String[] args) throws Exception {
        int perTenth = Integer.parseInt(args[0]) / 10;
        System.out.println("workload started");
        long due = System.nanoTime();
        while (true) {
            for (int i = 0; i < perTenth; i++) {
                sink = new byte[1 << 20];
            }
            due += 100_000_000L;
            long wait = due - System.nanoTime();
            if (wait > 0) {
                Thread.sleep(wait / 1_000_000, (int) (wait % 1_000_000));
            }
        }
    }
}
