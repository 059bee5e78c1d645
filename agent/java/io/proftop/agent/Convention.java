package io.proftop.agent;

import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * proftop's convention for custom messages (docs/protocol.md, section 8): the
 * body "proftop:NAME/1?ATTRIBUTE=VALUE&..." carries a telemetry message
 * with its attributes as a URL query, values as in the XML encoding (times
 * in decimal seconds) and percent-encoded exactly as Go's url.QueryEscape
 * does, so that the agent writes the bytes proftop's own encoder writes.
 */
final class Convention {
    private Convention() {}

    // The units of a series.
    static final String PLAIN = "plain";
    static final String PERCENT = "percent";
    static final String BYTES = "bytes";
    static final String MICROSECONDS = "microseconds";

    static String series(long time, long id, String name, String unit, double divisor) {
        StringBuilder b = head("telemetrySeries", time);
        b.append("&series=").append(id).append("&name=");
        escape(b, name);
        b.append("&unit=").append(unit).append("&divisor=").append(number(divisor));
        return b.toString();
    }

    static String value(long time, long id, long value) {
        return head("telemetryValue", time).append("&series=").append(id).append("&value=").append(value).toString();
    }

    /** A problem with a spec the user asked for; an empty problem says it can be read again. */
    static String problem(long time, String spec, String problem) {
        StringBuilder b = head("telemetryProblem", time).append("&spec=");
        escape(b, spec);
        b.append("&problem=");
        escape(b, problem);
        return b.toString();
    }

    static String probe(long time, String probe, String group, long count, long total, long max, List<TraceEncoder.Frame> stack) {
        StringBuilder b = head("probe", time).append("&probe=");
        escape(b, probe);
        b.append("&group=");
        escape(b, group);
        b.append("&count=").append(count).append("&total=");
        seconds(b, total);
        b.append("&max=");
        seconds(b, max);
        for (TraceEncoder.Frame f : stack) {
            b.append("&frame=");
            escape(b, f.method() + ":" + f.line());
        }
        return b.toString();
    }

    private static StringBuilder head(String name, long time) {
        StringBuilder b = new StringBuilder(96).append("proftop:").append(name).append("/1?time=");
        seconds(b, time);
        return b;
    }

    /** Nanoseconds as decimal seconds with nine decimals, as the XML encoding writes times. */
    static void seconds(StringBuilder b, long ns) {
        if (ns < 0) {
            b.append('-');
            ns = -ns;
        }
        String frac = Long.toString(ns % 1_000_000_000L);
        b.append(ns / 1_000_000_000L).append('.');
        for (int i = frac.length(); i < 9; i++) {
            b.append('0');
        }
        b.append(frac);
    }

    /** A divisor: whole numbers without a fraction, as Go's shortest form writes them. */
    static String number(double d) {
        if (d == Math.rint(d) && Math.abs(d) < 1e15) {
            return Long.toString((long) d);
        }
        return Double.toString(d);
    }

    private static final String HEX = "0123456789ABCDEF";

    /** Percent-encodes as url.QueryEscape: letters, digits and -_.~ stay, a space is +, the rest %XX of its UTF-8. */
    static void escape(StringBuilder b, String s) {
        for (byte x : s.getBytes(StandardCharsets.UTF_8)) {
            int c = x & 0xff;
            if (c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c == '.' || c == '~') {
                b.append((char) c);
            } else if (c == ' ') {
                b.append('+');
            } else {
                b.append('%').append(HEX.charAt(c >> 4)).append(HEX.charAt(c & 15));
            }
        }
    }
}
