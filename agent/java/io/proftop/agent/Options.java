package io.proftop.agent;

import java.nio.file.Path;
import java.time.Duration;

/**
 * The agent's options, from the -javaagent argument or the attach request:
 * comma-separated key=value pairs.
 *
 * <pre>
 * port=10002        TCP port; 0 picks a free one (see portfile)
 * portfile=PATH     write the port actually bound here (atomically)
 * host=ADDRESS      listen on this address instead of loopback; needs token
 * token=SECRET      clients must authenticate with it
 * threshold=0ms     the shortest monitor contention recorded (JFR JavaMonitorEnter)
 * sample=20ms       the execution sampling period
 * poll=1s           how often threads are checked for locks held and waited on
 * </pre>
 */
record Options(int port, Path portFile, String host, String token, Duration threshold, Duration samplePeriod,
        Duration poll) {

    static Options parse(String args) {
        int port = 10002;
        Path portFile = null;
        String host = null;
        String token = null;
        Duration threshold = Duration.ZERO;
        Duration sample = Duration.ofMillis(20);
        Duration poll = Duration.ofSeconds(1);
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
                    case "threshold" -> threshold = duration(k, v);
                    case "sample" -> sample = duration(k, v);
                    case "poll" -> poll = duration(k, v);
                    default -> throw new IllegalArgumentException("proftop agent: unknown option \"" + k
                            + "\" (known: port, portfile, host, token, threshold, sample, poll)");
                }
            }
        }
        if (port < 0 || port > 65535) {
            throw new IllegalArgumentException("proftop agent: port " + port + " is outside 0-65535");
        }
        if (host != null && !isLoopback(host) && (token == null || token.isEmpty())) {
            throw new IllegalArgumentException("proftop agent: host=" + host
                    + " opens the agent beyond this machine: give token=SECRET too");
        }
        if (sample.isZero() || sample.isNegative() || poll.isZero() || poll.isNegative()) {
            throw new IllegalArgumentException("proftop agent: sample and poll must be positive");
        }
        return new Options(port, portFile, host, token, threshold, sample, poll);
    }

    static boolean isLoopback(String host) {
        return host.equals("localhost") || host.startsWith("127.") || host.equals("::1");
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
