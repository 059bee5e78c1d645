package io.proftop.agent;

import java.io.IOException;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * The agent's options, from the -javaagent argument or the attach request:
 * comma-separated key=value pairs.
 *
 * <pre>
 * port=10002        TCP port; 0 picks a free one (see portfile)
 * portfile=PATH     write the port actually bound here (atomically)
 * host=ADDRESS      listen on this address instead of loopback; needs token or tokenfile
 * token=SECRET      the token clients authenticate with (default: a random one, see Handover)
 * tokenfile=PATH    read the token from this file (the command line shows no secret)
 * threshold=0ms     the shortest monitor contention or wait recorded (JFR JavaMonitorEnter, JavaMonitorWait)
 * park=0ms          the shortest park recorded (JFR ThreadPark: java.util.concurrent locks, conditions, queues)
 * sample=20ms       the execution sampling period
 * poll=1s           how often threads are checked for locks held and waited on
 * idle=60s          a client silent this long before it starts monitoring is dropped
 * backlog=16m       a client that falls this many bytes behind the trace is dropped
 *                   (never more than 1/32 of the heap's maximum: see backlogLimit)
 * </pre>
 *
 * Whatever the options, clients authenticate: token and tokenfile choose
 * the token (null when neither was given: the agent makes one up).
 */
record Options(int port, Path portFile, String host, String token, Path tokenFile, Duration threshold, Duration parkThreshold,
        Duration samplePeriod, Duration poll, Duration idle, long backlog) {

    /** The backlog is never more than this share of the heap's maximum, whatever backlog= says. */
    static final int HEAP_SHARE = 32;
    /** The longest token read from a tokenfile. */
    static final int MAX_TOKEN = 1024;

    static Options parse(String args) {
        int port = 10002;
        Path portFile = null;
        String host = null;
        String token = null;
        Path tokenFile = null;
        Duration threshold = Duration.ZERO;
        Duration park = Duration.ZERO;
        Duration sample = Duration.ofMillis(20);
        Duration poll = Duration.ofSeconds(1);
        Duration idle = Duration.ofSeconds(60);
        long backlog = 16L << 20;
        if (args != null && !args.isBlank()) {
            for (String pair : args.split(",")) {
                int eq = pair.indexOf('=');
                if (eq < 0) {
                    throw new IllegalArgumentException("proftop agent: option \"" + pair + "\" is not key=value");
                }
                String k = pair.substring(0, eq).trim();
                String v = pair.substring(eq + 1).trim();
                switch (k) {
                    case "port" -> port = Integer.parseInt(v);
                    case "portfile" -> portFile = Path.of(v);
                    case "host" -> host = v;
                    case "token" -> token = v;
                    case "tokenfile" -> tokenFile = Path.of(v);
                    case "threshold" -> threshold = duration(k, v);
                    case "park" -> park = duration(k, v);
                    case "sample" -> sample = duration(k, v);
                    case "poll" -> poll = duration(k, v);
                    case "idle" -> idle = duration(k, v);
                    case "backlog" -> backlog = bytes(k, v);
                    default -> throw new IllegalArgumentException("proftop agent: unknown option \"" + k
                            + "\" (known: port, portfile, host, token, tokenfile, threshold, park, sample, poll, idle, backlog)");
                }
            }
        }
        if (port < 0 || port > 65535) {
            throw new IllegalArgumentException("proftop agent: port " + port + " is outside 0-65535");
        }
        if (token != null && token.isEmpty()) {
            throw new IllegalArgumentException("proftop agent: token= is empty: every client authenticates; "
                    + "leave token out and the agent makes one up for its user");
        }
        if (token != null && tokenFile != null) {
            throw new IllegalArgumentException("proftop agent: give token= or tokenfile=, not both");
        }
        if (host != null && !isLoopback(host) && token == null && tokenFile == null) {
            throw new IllegalArgumentException("proftop agent: host=" + host
                    + " opens the agent beyond this machine: give tokenfile=PATH (or token=SECRET) too, the token its clients there will present");
        }
        if (sample.isZero() || sample.isNegative() || poll.isZero() || poll.isNegative() || idle.isZero()
                || idle.isNegative() || backlog <= 0) {
            throw new IllegalArgumentException("proftop agent: sample, poll, idle and backlog must be positive");
        }
        return new Options(port, portFile, host, token, tokenFile, threshold, park, sample, poll, idle, backlog);
    }

    /**
     * The most the agent queues for a client before it drops it: backlog,
     * but never more than 1/HEAP_SHARE of the most the heap may grow to,
     * so that a client that stops reading cannot take the application's
     * memory.
     */
    long backlogLimit() {
        return backlogLimit(backlog, Runtime.getRuntime().maxMemory());
    }

    static long backlogLimit(long backlog, long maxHeap) {
        if (maxHeap <= 0 || maxHeap == Long.MAX_VALUE) {
            return backlog;
        }
        return Math.max(1, Math.min(backlog, maxHeap / HEAP_SHARE));
    }

    /**
     * The token clients must present, as given (token=, or the first line
     * of tokenfile=); null when none was given.
     */
    String givenToken() throws IOException {
        if (token != null) {
            return token;
        }
        if (tokenFile == null) {
            return null;
        }
        byte[] head;
        try (var in = Files.newInputStream(tokenFile)) {
            head = in.readNBytes(MAX_TOKEN + 1); // never the whole of whatever the path names
        }
        String t = new String(head, StandardCharsets.UTF_8).strip();
        int nl = t.indexOf('\n');
        if (nl >= 0) {
            t = t.substring(0, nl).strip();
        }
        if (t.isEmpty() || t.length() > MAX_TOKEN) {
            throw new IOException("tokenfile=" + tokenFile + " holds no token of at most " + MAX_TOKEN + " bytes on its first line");
        }
        return t;
    }

    /**
     * Whether the agent listening on host can be reached from this machine
     * only: the address it binds, not the name's spelling, decides
     * (127.evil.example may resolve anywhere).
     */
    static boolean isLoopback(String host) {
        try {
            return InetAddress.getByName(host).isLoopbackAddress();
        } catch (UnknownHostException e) {
            return false;
        }
    }

    /**
     * The options of a later start that differ from these, the ones the
     * running agent keeps: a JVM runs one agent, started once.
     */
    List<String> ignoredIn(Options later) {
        List<String> out = new ArrayList<>();
        if (later.port != 0 && later.port != port) {
            out.add("port");
        }
        if (!Objects.equals(later.host, host)) {
            out.add("host");
        }
        // A later start that names no token leaves the token alone: it is not a different choice.
        if (later.token != null && !Objects.equals(later.token, token)) {
            out.add("token");
        }
        if (later.tokenFile != null && !Objects.equals(later.tokenFile, tokenFile)) {
            out.add("tokenfile");
        }
        if (!later.threshold.equals(threshold)) {
            out.add("threshold");
        }
        if (!later.parkThreshold.equals(parkThreshold)) {
            out.add("park");
        }
        if (!later.samplePeriod.equals(samplePeriod)) {
            out.add("sample");
        }
        if (!later.poll.equals(poll)) {
            out.add("poll");
        }
        if (!later.idle.equals(idle)) {
            out.add("idle");
        }
        if (later.backlog != backlog) {
            out.add("backlog");
        }
        return out;
    }

    /** The options that shape what is recorded, as the stream's agentCreate reports them. */
    String describe() {
        return "threshold=" + threshold.toMillis() + "ms,park=" + parkThreshold.toMillis() + "ms,sample=" + samplePeriod.toMillis() + "ms,poll=" + poll.toMillis() + "ms";
    }

    /** "64m", "512k", or a plain number of bytes. */
    static long bytes(String key, String v) {
        try {
            String s = v.toLowerCase();
            long unit = 1;
            if (s.endsWith("k")) {
                unit = 1L << 10;
            } else if (s.endsWith("m")) {
                unit = 1L << 20;
            } else if (s.endsWith("g")) {
                unit = 1L << 30;
            }
            if (unit != 1) {
                s = s.substring(0, s.length() - 1);
            }
            return Math.multiplyExact(Long.parseLong(s), unit);
        } catch (NumberFormatException | ArithmeticException e) {
            throw new IllegalArgumentException("proftop agent: " + key + "=" + v + " is not a size like 64m or 512k");
        }
    }

    /** "20ms", "1s", "500us", or a plain number of milliseconds. */
    static Duration duration(String key, String v) {
        try {
            if (v.endsWith("ms")) {
                return Duration.ofMillis(Long.parseLong(v.substring(0, v.length() - 2)));
            }
            if (v.endsWith("us")) {
                return Duration.ofNanos(1000 * Long.parseLong(v.substring(0, v.length() - 2)));
            }
            if (v.endsWith("s")) {
                return Duration.ofSeconds(Long.parseLong(v.substring(0, v.length() - 1)));
            }
            return Duration.ofMillis(Long.parseLong(v));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("proftop agent: " + key + "=" + v + " is not a duration like 20ms or 1s");
        }
    }
}
