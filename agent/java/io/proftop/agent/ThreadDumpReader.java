package io.proftop.agent;

import java.io.IOException;
import java.io.Reader;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

/**
 * Reads the JSON thread dump of HotSpotDiagnosticMXBean.dumpThreads (and
 * jcmd Thread.dump_to_file -format=json) one thread at a time: a dump of
 * 100,000 virtual threads is a hundred megabytes, and only what a listing
 * keeps may stay in memory. The format (JDK 21; JDK 25 adds each thread's
 * state, virtual flag, carrier, lock and owned monitors):
 *
 * <pre>
 * {"threadDump": {"processId": "…", "time": "…", "runtimeVersion": "…",
 *   "threadContainers": [{"container": "&lt;root&gt;", "parent": null, "owner": null,
 *     "threads": [{"tid": "22", "time": "…", "virtual": true, "name": "",
 *       "state": "WAITING", "parkBlocker": {"object": "java.util.concurrent.locks.ReentrantLock$NonfairSync@6f496d9f"},
 *       "blockedOn": "java.lang.Object@723279cf", "waitingOn": "…", "carrier": "30",
 *       "stack": ["java.base/java.lang.VirtualThread.park(VirtualThread.java:742)", …],
 *       "monitorsOwned": [{"depth": 5, "locks": ["java.lang.Object@723279cf"]}]}, …],
 *     "threadCount": "19"}, …]}}
 * </pre>
 *
 * Members it does not know are skipped, so that a later JDK's additions
 * change nothing. A hand-written pull parser: the JDK has no public JSON
 * reader, and this is the agent's hottest loop when virtual threads abound.
 */
final class ThreadDumpReader {
    /** Longest string kept (a thread name, a frame); longer ones are cut. */
    static final int MAX_STRING = 4096;
    /** Frames kept of a stack. */
    static final int MAX_FRAMES = ThreadPoller.STACK_DEPTH;
    /** Deepest nesting of values skipped. */
    private static final int MAX_DEPTH = 64;

    /** One thread of the dump, as the dump tells it; absent members are null, -1 or false. */
    static final class DumpedThread {
        String container = "";
        long tid = -1;
        String time; // ISO-8601, JDK 25
        boolean virtual;
        boolean virtualKnown; // the dump says which threads are virtual (JDK 25)
        String name = "";
        String state; // Thread.State's name, JDK 25
        String parkBlocker; // class@hash
        long parkBlockerOwner = -1;
        String blockedOn;
        String waitingOn;
        long carrier = -1;
        final List<String> stack = new ArrayList<>();
        final List<String> monitorsOwned = new ArrayList<>();
    }

    private final Reader in;
    private final char[] buf = new char[1 << 16];
    private int pos;
    private int len;
    private long offset; // chars consumed before buf, for errors
    private final StringBuilder sb = new StringBuilder();

    ThreadDumpReader(Reader in) {
        this.in = in;
    }

    /**
     * Reads the whole dump, handing each thread to the consumer (the same
     * object each time: copy what is kept).
     */
    void read(Consumer<DumpedThread> each) throws IOException {
        DumpedThread t = new DumpedThread();
        expect('{');
        if (!empty('}')) {
            do {
                String key = string();
                expect(':');
                if (key.equals("threadDump")) {
                    threadDump(t, each);
                } else {
                    skip(0);
                }
            } while (more('}'));
        }
    }

    private void threadDump(DumpedThread t, Consumer<DumpedThread> each) throws IOException {
        expect('{');
        if (!empty('}')) {
            do {
                String key = string();
                expect(':');
                if (key.equals("threadContainers")) {
                    expect('[');
                    if (!empty(']')) {
                        do {
                            container(t, each);
                        } while (more(']'));
                    }
                } else {
                    skip(0);
                }
            } while (more('}'));
        }
    }

    private void container(DumpedThread t, Consumer<DumpedThread> each) throws IOException {
        String name = "";
        expect('{');
        if (empty('}')) {
            return;
        }
        do {
            String key = string();
            expect(':');
            switch (key) {
                case "container" -> name = stringOrNull("");
                case "threads" -> {
                    expect('[');
                    if (!empty(']')) {
                        do {
                            thread(t, name);
                            each.accept(t);
                        } while (more(']'));
                    }
                }
                default -> skip(0);
            }
        } while (more('}'));
    }

    private void thread(DumpedThread t, String container) throws IOException {
        t.container = container;
        t.tid = -1;
        t.time = null;
        t.virtual = false;
        t.virtualKnown = false;
        t.name = "";
        t.state = null;
        t.parkBlocker = null;
        t.parkBlockerOwner = -1;
        t.blockedOn = null;
        t.waitingOn = null;
        t.carrier = -1;
        t.stack.clear();
        t.monitorsOwned.clear();
        expect('{');
        if (empty('}')) {
            return;
        }
        do {
            String key = string();
            expect(':');
            switch (key) {
                case "tid" -> t.tid = id();
                case "time" -> t.time = stringOrNull(null);
                case "virtual" -> {
                    t.virtual = bool();
                    t.virtualKnown = true;
                }
                case "name" -> t.name = stringOrNull("");
                case "state" -> t.state = stringOrNull(null);
                case "parkBlocker" -> parkBlocker(t);
                case "blockedOn" -> t.blockedOn = stringOrNull(null);
                case "waitingOn" -> t.waitingOn = stringOrNull(null);
                case "carrier" -> t.carrier = id();
                case "stack" -> strings(t.stack, MAX_FRAMES);
                case "monitorsOwned" -> monitorsOwned(t);
                default -> skip(0);
            }
        } while (more('}'));
    }

    private void parkBlocker(DumpedThread t) throws IOException {
        if (peek() == 'n') {
            literal("null");
            return;
        }
        expect('{');
        if (empty('}')) {
            return;
        }
        do {
            String key = string();
            expect(':');
            switch (key) {
                case "object" -> t.parkBlocker = stringOrNull(null);
                case "owner" -> t.parkBlockerOwner = id();
                default -> skip(0);
            }
        } while (more('}'));
    }

    private void monitorsOwned(DumpedThread t) throws IOException {
        expect('[');
        if (empty(']')) {
            return;
        }
        do {
            expect('{');
            if (empty('}')) {
                continue;
            }
            do {
                String key = string();
                expect(':');
                if (key.equals("locks")) {
                    strings(t.monitorsOwned, 1024);
                } else {
                    skip(0);
                }
            } while (more('}'));
        } while (more(']'));
    }

    /** An array of strings (nulls skipped), at most max kept. */
    private void strings(List<String> out, int max) throws IOException {
        expect('[');
        if (empty(']')) {
            return;
        }
        do {
            String s = stringOrNull(null);
            if (s != null && out.size() < max) {
                out.add(s);
            }
        } while (more(']'));
    }

    /** A thread id: a string of digits in the dump, or a number; -1 for null or nonsense. */
    private long id() throws IOException {
        char c = peek();
        if (c == 'n') {
            literal("null");
            return -1;
        }
        if (c == '"') {
            scan();
        } else {
            number();
        }
        // Digits only, no String: 100,000 threads, 100,000 ids.
        long v = 0;
        for (int i = 0; i < sb.length(); i++) {
            char d = sb.charAt(i);
            if (d < '0' || d > '9' || i >= 18) {
                return -1;
            }
            v = v * 10 + (d - '0');
        }
        return sb.length() == 0 ? -1 : v;
    }

    private boolean bool() throws IOException {
        char c = peek();
        if (c == 't') {
            literal("true");
            return true;
        }
        if (c == 'f') {
            literal("false");
            return false;
        }
        skip(0);
        return false;
    }

    private String stringOrNull(String ifNull) throws IOException {
        char c = peek();
        if (c == 'n') {
            literal("null");
            return ifNull;
        }
        if (c != '"') {
            skip(0);
            return ifNull;
        }
        return string();
    }

    // --- the tokens ----------------------------------------------------------

    /** The next significant character, not consumed; fails at the end. */
    private char peek() throws IOException {
        for (;;) {
            if (pos == len && !fill()) {
                throw error("the dump ends early");
            }
            char c = buf[pos];
            if (c == ' ' || c == '\n' || c == '\r' || c == '\t') {
                pos++;
                continue;
            }
            return c;
        }
    }

    private char next() throws IOException {
        char c = peek();
        pos++;
        return c;
    }

    private boolean fill() throws IOException {
        offset += len;
        pos = 0;
        len = 0;
        int n = in.read(buf, 0, buf.length);
        if (n <= 0) {
            return false;
        }
        len = n;
        return true;
    }

    private void expect(char want) throws IOException {
        char c = next();
        if (c != want) {
            throw error("expected '" + want + "', found '" + c + "'");
        }
    }

    /** Right after an opening character: whether the object or array is empty (its closing character is consumed). */
    private boolean empty(char close) throws IOException {
        if (peek() == close) {
            pos++;
            return true;
        }
        return false;
    }

    /** After a member or element: whether another follows (a comma), or the closing character ends it. */
    private boolean more(char close) throws IOException {
        char c = next();
        if (c == ',') {
            return true;
        }
        if (c == close) {
            return false;
        }
        throw error("expected ',' or '" + close + "', found '" + c + "'");
    }

    /**
     * A string, shared with the earlier ones of the same content: keys,
     * states, containers and frames repeat in every thread, and a dump of
     * 100,000 threads would otherwise allocate a string for each.
     */
    private String string() throws IOException {
        scan();
        int h = 0;
        for (int i = 0; i < sb.length(); i++) {
            h = 31 * h + sb.charAt(i);
        }
        int slot = (h ^ (h >>> 16)) & (cache.length - 1);
        String s = cache[slot];
        if (s != null && s.contentEquals(sb)) {
            return s;
        }
        s = sb.toString();
        cache[slot] = s;
        return s;
    }

    /** The strings read lately, by hash: a small cache, not a table of them all. */
    private final String[] cache = new String[1 << 14];

    /** Reads a string into sb. */
    private void scan() throws IOException {
        char c = next();
        if (c != '"') {
            throw error("expected a string, found '" + c + "'");
        }
        sb.setLength(0);
        for (;;) {
            if (pos == len && !fill()) {
                throw error("a string does not end");
            }
            c = buf[pos++];
            if (c == '"') {
                return;
            }
            if (c == '\\') {
                if (pos == len && !fill()) {
                    throw error("a string does not end");
                }
                char e = buf[pos++];
                switch (e) {
                    case 'n' -> c = '\n';
                    case 't' -> c = '\t';
                    case 'r' -> c = '\r';
                    case 'b' -> c = '\b';
                    case 'f' -> c = '\f';
                    case 'u' -> {
                        int v = 0;
                        for (int i = 0; i < 4; i++) {
                            if (pos == len && !fill()) {
                                throw error("a string does not end");
                            }
                            int d = Character.digit(buf[pos++], 16);
                            if (d < 0) {
                                throw error("a bad \\u escape");
                            }
                            v = v * 16 + d;
                        }
                        c = (char) v;
                    }
                    default -> c = e; // \" \\ \/
                }
            }
            if (sb.length() < MAX_STRING) {
                sb.append(c);
            }
        }
    }

    private String number() throws IOException {
        peek();
        sb.setLength(0);
        for (;;) {
            if (pos == len && !fill()) {
                break;
            }
            char c = buf[pos];
            if ((c >= '0' && c <= '9') || c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E') {
                if (sb.length() < 64) {
                    sb.append(c);
                }
                pos++;
                continue;
            }
            break;
        }
        if (sb.length() == 0) {
            throw error("expected a value, found '" + peek() + "'");
        }
        return sb.toString();
    }

    private void literal(String word) throws IOException {
        for (int i = 0; i < word.length(); i++) {
            if (pos == len && !fill()) {
                throw error("the dump ends early");
            }
            if (buf[pos++] != word.charAt(i)) {
                throw error("expected " + word);
            }
        }
    }

    /** Skips one value of any kind. */
    private void skip(int depth) throws IOException {
        if (depth > MAX_DEPTH) {
            throw error("values nested deeper than " + MAX_DEPTH);
        }
        char c = peek();
        switch (c) {
            case '"' -> string();
            case '{' -> {
                expect('{');
                if (!empty('}')) {
                    do {
                        string();
                        expect(':');
                        skip(depth + 1);
                    } while (more('}'));
                }
            }
            case '[' -> {
                expect('[');
                if (!empty(']')) {
                    do {
                        skip(depth + 1);
                    } while (more(']'));
                }
            }
            case 't' -> literal("true");
            case 'f' -> literal("false");
            case 'n' -> literal("null");
            default -> number();
        }
    }

    private IOException error(String what) {
        return new IOException("thread dump, character " + (offset + pos) + ": " + what);
    }
}
