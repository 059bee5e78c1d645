package io.proftop.agent;

import java.util.ArrayList;
import java.util.List;
import java.util.WeakHashMap;

import jdk.jfr.consumer.RecordedFrame;
import jdk.jfr.consumer.RecordedMethod;
import jdk.jfr.consumer.RecordedStackTrace;

/**
 * JFR's stacks as trace frames, each distinct stack turned once. JFR's
 * parser hands out one RecordedStackTrace per stack of a chunk, shared by
 * every event recorded at that stack (a busy server parks thousands of
 * times a second at a handful of stacks); turning its frames into names
 * (a string built per frame) cost more than everything else the agent
 * does with an event. The cache holds its stacks weakly (a chunk's stacks
 * go when JFR drops the chunk) and is bounded: it never keeps the
 * application's heap.
 */
final class JfrStacks {
    /** The most stacks remembered; past it the cache starts again. */
    static final int KEPT = 256;

    // RecordedStackTrace keeps Object's identity equality: a weak identity map.
    private final WeakHashMap<RecordedStackTrace, List<TraceEncoder.Frame>> turned = new WeakHashMap<>();

    /** A JFR stack as trace frames, innermost first; the same list for the same stack. */
    synchronized List<TraceEncoder.Frame> frames(RecordedStackTrace st) {
        if (st == null) {
            return List.of();
        }
        List<TraceEncoder.Frame> out = turned.get(st);
        if (out != null) {
            return out;
        }
        List<RecordedFrame> fs = st.getFrames();
        List<TraceEncoder.Frame> made = new ArrayList<>(fs.size());
        for (RecordedFrame f : fs) {
            RecordedMethod m = f.getMethod();
            made.add(new TraceEncoder.Frame(Names.dumpName(m.getType().getName()) + "." + m.getName(), f.getLineNumber()));
        }
        out = List.copyOf(made);
        if (turned.size() >= KEPT) {
            turned.clear();
        }
        turned.put(st, out);
        return out;
    }
}
