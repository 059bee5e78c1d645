package io.proftop.agent;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * What the stream has named: classes are defined (classDef) before the
 * first event that refers to them, lock objects announced with their class
 * (objClass: an announcement, not an allocation). Kept across stop and
 * start of one stream; bounded, so that an application with endless
 * classes or locks cannot grow the agent.
 */
final class Names {
    private static final int MAX_NAMES = 1 << 16;

    private final TraceEncoder enc;
    private final Map<String, Long> classIds = bounded(MAX_NAMES);
    private final Map<Long, Boolean> announced = bounded(MAX_NAMES);
    private long lastClassId;

    Names(TraceEncoder enc) {
        this.enc = enc;
    }

    static <K, V> Map<K, V> bounded(int max) {
        return new LinkedHashMap<>(16, 0.75f, false) {
            @Override
            protected boolean removeEldestEntry(Map.Entry<K, V> e) {
                return size() > max;
            }
        };
    }

    /** The id of a class, defined on first use. */
    long classId(String name, long time) {
        Long id = classIds.get(name);
        if (id == null) {
            id = ++lastClassId;
            classIds.put(name, id);
            int dot = name.lastIndexOf('.');
            String simple = name.substring(dot + 1);
            int dollar = simple.indexOf('$');
            enc.classDef(id, time, name, (dollar < 0 ? simple : simple.substring(0, dollar)) + ".java");
        }
        return id;
    }

    /**
     * A class's name as a thread dump (and jstack) gives it. JFR names a
     * hidden class (a lambda's, say) Name+0xADDRESS.HASH where a stack
     * trace element says Name/0xADDRESS: without this one lambda frame
     * would be two methods, one from the samples and one from the polls.
     */
    static String dumpName(String jfrName) {
        int plus = jfrName.lastIndexOf("+0x");
        if (plus < 0) {
            return jfrName;
        }
        int dot = jfrName.indexOf('.', plus);
        return jfrName.substring(0, plus) + "/" + (dot < 0 ? jfrName.substring(plus + 1) : jfrName.substring(plus + 1, dot));
    }

    /** A lock object's id, announced with its class the first time. */
    long object(long id, String className, long time) {
        if (announced.put(id, Boolean.TRUE) == null) {
            enc.objClass(id, classId(className, time), time);
        }
        return id;
    }
}
