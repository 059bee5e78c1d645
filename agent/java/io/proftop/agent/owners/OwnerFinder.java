package io.proftop.agent.owners;

import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.Iterator;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.locks.AbstractOwnableSynchronizer;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BiFunction;
import java.util.stream.Stream;

/**
 * Who owns the java.util.concurrent locks virtual threads park on: the
 * JDK's thread dump (JDK 25) names the lock a virtual thread parks on, not
 * its owner, and ThreadMXBean, which tells the owner for a platform
 * thread's lock, does not see virtual threads. So: every thread of the
 * JDK's thread containers (as its thread dump walks them), the lock it
 * parks on (LockSupport.getBlocker), and, for the locks asked about, the
 * owner the lock itself records (AbstractOwnableSynchronizer's
 * exclusiveOwnerThread), read, never changed.
 *
 * Loaded by LockOwners in a class loader of its own, to which alone the
 * JDK's packages it reads are opened: the application's code sees nothing
 * more than before. It uses the JDK only, so that nothing of the agent's
 * is shared across the two loaders but the BiFunction it is called by.
 */
public final class OwnerFinder implements BiFunction<Set<Long>, Long, Map<Long, Long>> {
    /** Containers walked at most (executors, structured scopes): a walk costs their number squared. */
    private static final int MAX_CONTAINERS = 4096;
    /** Locks whose owners one walk returns, at most. */
    private static final int MAX_LOCKS = 65_536;

    private final Method root;
    private final Method children;
    private final Method threads;
    private final Field owner;

    public OwnerFinder() throws ReflectiveOperationException {
        Class<?> containers = Class.forName("jdk.internal.vm.ThreadContainers");
        Class<?> container = Class.forName("jdk.internal.vm.ThreadContainer");
        root = containers.getMethod("root");
        children = container.getMethod("children");
        threads = container.getMethod("threads");
        owner = AbstractOwnableSynchronizer.class.getDeclaredField("exclusiveOwnerThread");
        root.setAccessible(true);
        children.setAccessible(true);
        threads.setAccessible(true);
        owner.setAccessible(true);
    }

    /**
     * The owners of the locks asked about (identity hashes; null: every
     * lock a thread parks on), by lock: the owner's thread id, 0 for a lock
     * nobody owns now. A lock no thread is found parked on is left out.
     * Stops once every lock asked about is found, or after budget
     * nanoseconds.
     */
    @Override
    public Map<Long, Long> apply(Set<Long> locks, Long budget) {
        int wanted = locks == null ? MAX_LOCKS : locks.size();
        Map<Long, Long> out = new HashMap<>();
        long deadline = System.nanoTime() + budget;
        try {
            ArrayDeque<Object> todo = new ArrayDeque<>();
            todo.add(root.invoke(null));
            int walked = 0;
            long looked = 0;
            while (!todo.isEmpty() && out.size() < wanted && walked++ < MAX_CONTAINERS) {
                Object c = todo.poll();
                try (Stream<?> s = (Stream<?>) children.invoke(c)) {
                    for (Iterator<?> it = s.iterator(); it.hasNext() && todo.size() < MAX_CONTAINERS;) {
                        todo.add(it.next());
                    }
                }
                try (Stream<?> s = (Stream<?>) threads.invoke(c)) {
                    for (Iterator<?> it = s.iterator(); it.hasNext() && out.size() < wanted;) {
                        Object blocker = LockSupport.getBlocker((Thread) it.next());
                        // Only a lock's identity hash is taken (the thread dump has taken it already).
                        if (blocker instanceof AbstractOwnableSynchronizer) {
                            long lock = System.identityHashCode(blocker) & 0xffffffffL;
                            if ((locks == null || locks.contains(lock)) && !out.containsKey(lock)) {
                                Thread t = (Thread) owner.get(blocker);
                                out.put(lock, t == null ? 0L : t.getId());
                            }
                        }
                        if ((++looked & 1023) == 0 && System.nanoTime() > deadline) {
                            return out;
                        }
                    }
                }
                if (System.nanoTime() > deadline) {
                    break;
                }
            }
        } catch (ReflectiveOperationException | RuntimeException e) {
            // The JDK changed its internals: what was found stands.
        }
        return out;
    }
}
