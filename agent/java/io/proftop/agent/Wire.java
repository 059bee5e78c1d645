package io.proftop.agent;

import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The frames and commands of docs/protocol.md: a 12-byte big-endian
 * envelope (magic "PTAC", flags, length) and XML command fragments in a
 * Cmd envelope.
 */
final class Wire {
    static final int MAGIC = 0x50544143;
    static final int FLAG_DATA = 1;
    static final int MAX_PAYLOAD = 16 << 20;
    /** The largest command the agent reads; commands are a few hundred bytes. */
    static final int MAX_COMMAND = 64 << 10;
    /** The largest frame read from a client that has not authenticated. */
    static final int MAX_UNAUTHENTICATED = 4 << 10;

    private Wire() {}

    /** A control frame's command. */
    record Command(String src, String dest, String ctxt, String name, String body) {
        /** An attribute of the command element, or "" when absent. */
        String attr(String name) {
            Matcher m = Pattern.compile("\\b" + name + "=\"([^\"]*)\"").matcher(body);
            return m.find() ? unescape(m.group(1)) : "";
        }

        /** The text of a child element, e.g. format in setOutputFormat. */
        String child(String name) {
            Matcher m = Pattern.compile("<" + name + "\\s*>([^<]*)</" + name + "\\s*>").matcher(body);
            return m.find() ? unescape(m.group(1)).trim() : "";
        }
    }

    private static final Pattern ENVELOPE = Pattern.compile(
            "^\\s*<Cmd\\b([^>]*)>\\s*(<([A-Za-z][A-Za-z0-9_]*)\\b.*)</Cmd>\\s*$", Pattern.DOTALL);

    static Command parse(byte[] payload) {
        String s = new String(payload, StandardCharsets.UTF_8);
        Matcher m = ENVELOPE.matcher(s);
        if (!m.matches()) {
            return null;
        }
        String head = m.group(1);
        return new Command(headAttr(head, "src"), headAttr(head, "dest"), headAttr(head, "ctxt"), m.group(3), m.group(2));
    }

    private static String headAttr(String head, String name) {
        Matcher m = Pattern.compile("\\b" + name + "=\"([^\"]*)\"").matcher(head);
        return m.find() ? unescape(m.group(1)) : "";
    }

    static String escape(String s) {
        return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("\"", "&quot;");
    }

    static String unescape(String s) {
        return s.replace("&lt;", "<").replace("&gt;", ">").replace("&quot;", "\"").replace("&apos;", "'").replace("&amp;", "&");
    }

    static String reply(String src, String dest, String ctxt, String body) {
        String c = ctxt.matches("[0-9]+") ? ctxt : "0";
        return "<Cmd src=\"" + escape(src) + "\" dest=\"" + escape(dest) + "\" ctxt=\"" + c + "\">" + body + "</Cmd>";
    }

    static String error(String code, String message) {
        return "<error code=\"" + code + "\">" + escape(message) + "</error>";
    }

    /**
     * Writes one reply straight to a socket, outside any Outbox: a few
     * hundred bytes, which a fresh connection's send buffer takes without
     * waiting.
     */
    static void writeReply(Socket s, String src, String ctxt, String body) throws IOException {
        byte[] reply = reply(src, "proftop", ctxt, body).getBytes(StandardCharsets.UTF_8);
        OutputStream out = s.getOutputStream();
        write(out, false, reply, 0, reply.length);
        out.flush();
    }

    /** One frame read from a client. */
    record Frame(boolean data, byte[] payload) {}

    /**
     * Reads one frame of at most max payload bytes: the length is checked
     * before anything is allocated, so a client cannot make the application
     * allocate more than that.
     */
    static Frame read(InputStream in, int max) throws IOException {
        DataInputStream d = new DataInputStream(in);
        int magic;
        try {
            magic = d.readInt();
        } catch (EOFException e) {
            return null;
        }
        int flags = d.readInt();
        int length = d.readInt();
        if (magic != MAGIC) {
            throw new IOException(String.format("bad frame magic 0x%08x, want \"PTAC\"", magic));
        }
        if ((flags & ~FLAG_DATA) != 0) {
            throw new IOException(String.format("reserved frame flag bits set: 0x%08x", flags));
        }
        if (length < 0 || length > max) {
            throw new IOException("frame payload of " + Integer.toUnsignedString(length) + " bytes exceeds the limit of " + max);
        }
        byte[] payload = new byte[length];
        d.readFully(payload);
        return new Frame((flags & FLAG_DATA) != 0, payload);
    }

    /** Writes a payload as frames of at most MAX_PAYLOAD bytes each. */
    static void writeFrames(OutputStream out, boolean data, byte[] payload) throws IOException {
        int off = 0;
        do {
            int len = Math.min(MAX_PAYLOAD, payload.length - off);
            write(out, data, payload, off, len);
            off += len;
        } while (off < payload.length);
    }

    /** Writes one frame; the caller holds the stream's lock. */
    static void write(OutputStream out, boolean data, byte[] payload, int off, int len) throws IOException {
        byte[] head = new byte[12];
        put(head, 0, MAGIC);
        put(head, 4, data ? FLAG_DATA : 0);
        put(head, 8, len);
        out.write(head);
        out.write(payload, off, len);
    }

    private static void put(byte[] b, int at, int v) {
        b[at] = (byte) (v >>> 24);
        b[at + 1] = (byte) (v >>> 16);
        b[at + 2] = (byte) (v >>> 8);
        b[at + 3] = (byte) v;
    }
}
