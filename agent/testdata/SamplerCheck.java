package io.proftop.agent;

import java.io.OutputStream;
import java.util.List;
import java.util.Set;

/**
 * Charges one interval of a thread's CPU (50 ms between two polls) to the
 * samples JFR took of it: nine running the agent's code, one a JDK
 * method's. Writes the samples sent as a binary trace on standard output.
 *
 * java -cp proftop-agent.jar:CLASSES io.proftop.agent.SamplerCheck > TRACE
 */
public class SamplerCheck {
    public static void main(String[] args) throws Exception {
        long ms = 1_000_000L;
        Sampler s = new Sampler(20 * ms);
        List<TraceEncoder.Frame> agents = List.of(new TraceEncoder.Frame("java.util.TreeMap.put", 0),
                new TraceEncoder.Frame("io.proftop.agent.MemoryWatcher.notified", 0));
        List<TraceEncoder.Frame> jdk = List.of(new TraceEncoder.Frame("java.util.HashMap.get", 0),
                new TraceEncoder.Frame("java.lang.Thread.run", 0));
        s.polled(poll(1000 * ms, 0), Set.of());
        for (int i = 1; i <= 9; i++) {
            s.jfrSample(7, 1000 * ms + i * ms, agents, false);
        }
        s.jfrSample(7, 1010 * ms, jdk, false);
        s.polled(poll(1020 * ms, 50 * ms), Set.of());
        BinaryEncoder enc = new BinaryEncoder();
        s.attribute(5000 * ms, enc);
        OutputStream out = System.out;
        out.write(enc.take());
        out.flush();
    }

    private static ThreadPoller.Poll poll(long at, long cpu) {
        ThreadPoller.Seen seen = new ThreadPoller.Seen(7, "Notification Thread", true, ThreadPoller.RUNNING, 0, 0, "", 0, cpu, List.of(), 0, 0, 0);
        return new ThreadPoller.Poll(at, at, at, List.of(seen), List.of());
    }
}
