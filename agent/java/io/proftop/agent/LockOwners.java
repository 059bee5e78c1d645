package io.proftop.agent;

import java.io.IOException;
import java.io.InputStream;
import java.lang.instrument.Instrumentation;
import java.util.Map;
import java.util.Set;
import java.util.function.BiFunction;

/**
 * Finds who owns the java.util.concurrent locks virtual threads park on
 * (owners.OwnerFinder), which neither the JDK's thread dump nor
 * ThreadMXBean tells. That needs two of the JDK's packages opened
 * (jdk.internal.vm, to walk the thread containers, and
 * java.util.concurrent.locks, to read a lock's owner): the agent's
 * Instrumentation opens them to a class loader of its own, holding that
 * one class, and to nothing else, so that the application, which shares
 * the agent's class loader, gains no access it did not have.
 *
 * Absent (null) without Instrumentation or when the JDK refuses; a finder
 * that fails is not asked again.
 */
final class LockOwners {
    private static final String FINDER = "io.proftop.agent.owners.OwnerFinder";
    /** The longest one search may take, on the listing's thread. */
    static final long BUDGET = 50_000_000L;

    private final BiFunction<Set<Long>, Long, Map<Long, Long>> finder;

    private LockOwners(BiFunction<Set<Long>, Long, Map<Long, Long>> finder) {
        this.finder = finder;
    }

    /** A finder for this JVM, or null when it cannot have one. */
    static LockOwners open(Instrumentation inst) {
        if (inst == null) {
            return null;
        }
        try {
            byte[] code;
            try (InputStream in = LockOwners.class.getClassLoader().getResourceAsStream(FINDER.replace('.', '/') + ".class")) {
                if (in == null) {
                    return null;
                }
                code = in.readAllBytes();
            }
            ClassLoader own = new ClassLoader("proftop-lock-owners", null) {
                @Override
                protected Class<?> findClass(String name) throws ClassNotFoundException {
                    if (!name.equals(FINDER)) {
                        throw new ClassNotFoundException(name);
                    }
                    return defineClass(name, code, 0, code.length);
                }
            };
            Module base = Object.class.getModule();
            Set<Module> to = Set.of(own.getUnnamedModule());
            inst.redefineModule(base, Set.of(), Map.of(), Map.of("jdk.internal.vm", to, "java.util.concurrent.locks", to), Set.of(),
                    Map.of());
            @SuppressWarnings("unchecked")
            BiFunction<Set<Long>, Long, Map<Long, Long>> f = (BiFunction<Set<Long>, Long, Map<Long, Long>>) Class
                    .forName(FINDER, true, own).getConstructor().newInstance();
            return new LockOwners(f);
        } catch (IOException | ReflectiveOperationException | RuntimeException | LinkageError e) {
            return null;
        }
    }

    /** The owners of these locks (identity hashes) by lock, 0 for none now; those not found are left out. */
    Map<Long, Long> owners(Set<Long> locks) {
        if (locks.isEmpty()) {
            return Map.of();
        }
        return finder.apply(locks, BUDGET);
    }

    /** The owners of every lock a thread parks on now, by lock, 0 for none. */
    Map<Long, Long> all() {
        return finder.apply(null, BUDGET);
    }
}
