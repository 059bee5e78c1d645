package io.proftop.agent;

import java.io.IOException;
import java.nio.ByteOrder;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * Reads one of the JVM's own performance counters (the hsperfdata file
 * jstat reads) live, from inside the JVM: the file is mapped read-only and
 * the counter read where it lives. Used for sun.rt._sync_Deflations, which
 * says whether any monitor was deflated (its address free for another
 * object) between two moments. Absent when the JVM keeps no such file
 * (-XX:-UsePerfData) or no such counter (JDKs after 17): then value() is -1.
 */
final class PerfCounters {
    private static final int MAGIC = 0xcafec0c0;

    private final MappedByteBuffer buf;
    private final int at; // the counter's absolute offset, -1 when absent

    private PerfCounters(MappedByteBuffer buf, int at) {
        this.buf = buf;
        this.at = at;
    }

    /** The counter named name of this JVM; value() says -1 when it cannot be read. */
    static PerfCounters open(String name) {
        Path file = Path.of("/tmp", "hsperfdata_" + System.getProperty("user.name"),
                Long.toString(ProcessHandle.current().pid()));
        try {
            if (!Files.isRegularFile(file, LinkOption.NOFOLLOW_LINKS)) {
                return new PerfCounters(null, -1);
            }
            MappedByteBuffer b;
            try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
                b = ch.map(FileChannel.MapMode.READ_ONLY, 0, Math.min(ch.size(), 1 << 20));
            }
            return new PerfCounters(b, find(b, name));
        } catch (IOException | RuntimeException e) {
            return new PerfCounters(null, -1);
        }
    }

    /** The offset of a long counter's value, or -1. */
    static int find(MappedByteBuffer b, String name) {
        if (b.capacity() < 32 || b.order(ByteOrder.BIG_ENDIAN).getInt(0) != MAGIC) {
            return -1;
        }
        b.order(b.get(4) == 0 ? ByteOrder.BIG_ENDIAN : ByteOrder.LITTLE_ENDIAN);
        int entry = b.getInt(24);
        int entries = b.getInt(28);
        byte[] want = name.getBytes(StandardCharsets.US_ASCII);
        for (int i = 0; i < entries && entry > 0 && entry + 20 <= b.capacity(); i++) {
            int length = b.getInt(entry);
            int nameAt = entry + b.getInt(entry + 4);
            int vector = b.getInt(entry + 8);
            byte type = b.get(entry + 12);
            int dataAt = entry + b.getInt(entry + 16);
            if (length <= 0) {
                return -1;
            }
            if (type == 'J' && vector == 0 && dataAt + 8 <= b.capacity() && nameIs(b, nameAt, want)) {
                return dataAt;
            }
            entry += length;
        }
        return -1;
    }

    private static boolean nameIs(MappedByteBuffer b, int at, byte[] want) {
        if (at + want.length + 1 > b.capacity()) {
            return false;
        }
        for (int i = 0; i < want.length; i++) {
            if (b.get(at + i) != want[i]) {
                return false;
            }
        }
        return b.get(at + want.length) == 0;
    }

    /** The counter now, or -1. */
    long value() {
        return at < 0 ? -1 : buf.getLong(at);
    }
}
