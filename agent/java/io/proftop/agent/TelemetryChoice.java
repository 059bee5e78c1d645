package io.proftop.agent;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import javax.management.MalformedObjectNameException;
import javax.management.ObjectName;

/**
 * The application's own series and probes a client chose with
 * chooseTelemetry (docs/protocol.md): each spec checked as far as can be
 * before monitoring (its syntax, an object name's), and the reply that
 * says, spec by spec, which were taken. What can only be known while
 * monitoring (an MBean that does not exist yet, an attribute that is not a
 * number) is a telemetryProblem in the trace.
 */
final class TelemetryChoice {
    /** Series and probes together, and the length of one spec: what the protocol allows. */
    static final int MAX_SPECS = 64;
    static final int MAX_SPEC = 512;

    /** jmx:OBJECTNAME:ATTRIBUTE[.KEY]: an MBean attribute, a key of it when it is composite; a pattern matches several. */
    record Jmx(String spec, ObjectName name, String attribute, String key) {}

    /** jfr:EVENT#FIELD: a numeric field of the application's events, summed per second, and its latest value. */
    record JfrField(String spec, String event, String field) {}

    /** jfr:EVENT[#FIELD]: the durations of the application's events, grouped by FIELD. */
    record Probe(String spec, String event, String field) {}

    static final TelemetryChoice NONE = new TelemetryChoice(List.of(), List.of(), List.of(), "<telemetryChosen></telemetryChosen>");

    final List<Jmx> jmx;
    final List<JfrField> jfr;
    final List<Probe> probes;
    /** The chooseTelemetry's answer. */
    final String reply;

    private TelemetryChoice(List<Jmx> jmx, List<JfrField> jfr, List<Probe> probes, String reply) {
        this.jmx = jmx;
        this.jfr = jfr;
        this.probes = probes;
        this.reply = reply;
    }

    boolean isEmpty() {
        return jmx.isEmpty() && jfr.isEmpty() && probes.isEmpty();
    }

    /** The JFR events the choice needs recorded. */
    Set<String> events() {
        Set<String> out = new LinkedHashSet<>();
        jfr.forEach(f -> out.add(f.event()));
        probes.forEach(p -> out.add(p.event()));
        return out;
    }

    private static final Pattern ITEM = Pattern.compile("<(series|probe)\\b[^>]*?\\bspec=\"([^\"]*)\"");
    private static final Pattern JAVA_NAME = Pattern.compile("[A-Za-z_$][A-Za-z0-9_$]*(\\.[A-Za-z_$][A-Za-z0-9_$]*)*");
    private static final Pattern FIELD_NAME = Pattern.compile("[A-Za-z_$][A-Za-z0-9_$]*");

    /** Reads a chooseTelemetry command's body: its series and probes, each taken or refused with the reason. */
    static TelemetryChoice parse(String body) {
        List<Jmx> jmx = new ArrayList<>();
        List<JfrField> jfr = new ArrayList<>();
        List<Probe> probes = new ArrayList<>();
        StringBuilder reply = new StringBuilder("<telemetryChosen>");
        Matcher m = ITEM.matcher(body);
        int n = 0;
        while (m.find()) {
            String kind = m.group(1);
            String spec = unescape(m.group(2));
            String error;
            if (++n > MAX_SPECS) {
                error = "not taken: at most " + MAX_SPECS + " series and probes together";
            } else if (spec.length() > MAX_SPEC) {
                error = spec.length() + " characters, longer than the " + MAX_SPEC + " a spec may have";
            } else if (kind.equals("series")) {
                error = series(spec, jmx, jfr);
            } else {
                error = probe(spec, probes);
            }
            reply.append('<').append(kind).append(" spec=\"").append(Wire.escape(spec)).append("\">");
            if (error != null) {
                reply.append(Wire.escape(error));
            }
            reply.append("</").append(kind).append('>');
        }
        reply.append("</telemetryChosen>");
        return new TelemetryChoice(List.copyOf(jmx), List.copyOf(jfr), List.copyOf(probes), reply.toString());
    }

    /** Takes a series spec, or says what is wrong with it. */
    private static String series(String spec, List<Jmx> jmx, List<JfrField> jfr) {
        if (spec.startsWith("jmx:")) {
            String rest = spec.substring(4);
            int colon = rest.lastIndexOf(':');
            if (colon <= 0 || colon == rest.length() - 1 || rest.indexOf(':') == colon) {
                return "not jmx:OBJECTNAME:ATTRIBUTE[.KEY] (like jmx:java.lang:type=Memory:HeapMemoryUsage.used)";
            }
            String attr = rest.substring(colon + 1);
            String key = null;
            int dot = attr.indexOf('.');
            if (dot >= 0) {
                key = attr.substring(dot + 1);
                attr = attr.substring(0, dot);
                if (attr.isEmpty() || key.isEmpty()) {
                    return "\"" + rest.substring(colon + 1) + "\" is not ATTRIBUTE.KEY";
                }
            }
            try {
                jmx.add(new Jmx(spec, new ObjectName(rest.substring(0, colon)), attr, key));
                return null;
            } catch (MalformedObjectNameException e) {
                return "\"" + rest.substring(0, colon) + "\" is not an object name: " + e.getMessage();
            }
        }
        if (spec.startsWith("jfr:")) {
            String rest = spec.substring(4);
            int hash = rest.indexOf('#');
            if (hash < 0) {
                return "a series needs a field: jfr:EVENT#FIELD (jfr:EVENT without one is a probe)";
            }
            String event = rest.substring(0, hash), field = rest.substring(hash + 1);
            if (!JAVA_NAME.matcher(event).matches() || !FIELD_NAME.matcher(field).matches()) {
                return "not jfr:EVENT#FIELD with an event name and a field name (like jfr:bank.Deposit#amount)";
            }
            jfr.add(new JfrField(spec, event, field));
            return null;
        }
        return "unknown kind of series: jmx:OBJECTNAME:ATTRIBUTE[.KEY] or jfr:EVENT#FIELD";
    }

    private static String probe(String spec, List<Probe> probes) {
        if (!spec.startsWith("jfr:")) {
            return "unknown kind of probe: jfr:EVENT[#FIELD]";
        }
        String rest = spec.substring(4);
        int hash = rest.indexOf('#');
        String event = hash < 0 ? rest : rest.substring(0, hash);
        String field = hash < 0 ? null : rest.substring(hash + 1);
        if (!JAVA_NAME.matcher(event).matches() || field != null && !FIELD_NAME.matcher(field).matches()) {
            return "not jfr:EVENT[#FIELD] with an event name and a field name (like jfr:bank.Transfer#state)";
        }
        probes.add(new Probe(spec, event, field));
        return null;
    }

    /** An XML attribute value's text: the predefined entities and character references. */
    static String unescape(String s) {
        if (s.indexOf('&') < 0) {
            return s;
        }
        StringBuilder b = new StringBuilder(s.length());
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            int semi = c == '&' ? s.indexOf(';', i) : -1;
            if (semi < 0 || semi - i > 10) {
                b.append(c);
                continue;
            }
            String ref = s.substring(i + 1, semi);
            String text = switch (ref) {
                case "lt" -> "<";
                case "gt" -> ">";
                case "amp" -> "&";
                case "quot" -> "\"";
                case "apos" -> "'";
                default -> codePoint(ref);
            };
            if (text == null) {
                b.append(c);
                continue;
            }
            b.append(text);
            i = semi;
        }
        return b.toString();
    }

    private static String codePoint(String ref) {
        try {
            if (ref.startsWith("#x") || ref.startsWith("#X")) {
                return new String(Character.toChars(Integer.parseInt(ref.substring(2), 16)));
            }
            if (ref.startsWith("#")) {
                return new String(Character.toChars(Integer.parseInt(ref.substring(1))));
            }
        } catch (IllegalArgumentException e) {
            // not a character reference: kept as it came
        }
        return null;
    }
}
