package io.proftop.agent;

import java.io.BufferedReader;
import java.io.IOException;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.Socket;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The users that own the far ends of connections made to the agent from this
 * machine, as Linux's socket tables say: in /proc/net/tcp (and tcp6), the
 * far end of a connection is a socket of its own, whose local address is
 * the connection's far address, whose remote address is the agent's, and
 * whose uid is the user that made it.
 *
 * Reading a table costs the kernel a walk of its whole connection hash
 * (milliseconds, however few sockets there are), so connections that
 * arrive together are looked up in one reading.
 */
final class SocketOwners {
    private static final Path[] TABLES = {Path.of("/proc/net/tcp"), Path.of("/proc/net/tcp6")};
    private static final boolean LITTLE = ByteOrder.nativeOrder() == ByteOrder.LITTLE_ENDIAN;
    /** A table of more lines than this is not read further: the far ends not found by then stay unknown. */
    private static final int MAX_LINES = 1 << 20;

    private SocketOwners() {}

    /**
     * The uid that owns each connection's far end, -1 where the tables do
     * not say (not Linux, a remote peer, a client already gone).
     */
    static int[] uidsOf(List<Socket> conns) {
        int[] uids = new int[conns.size()];
        java.util.Arrays.fill(uids, -1);
        for (int table = 0; table < TABLES.length; table++) {
            Map<String, Integer> wanted = new HashMap<>();
            for (int i = 0; i < conns.size(); i++) {
                Socket s = conns.get(i);
                if (uids[i] < 0 && isLocal(s)) {
                    String key = key(s.getInetAddress(), s.getPort(), s.getLocalAddress(), s.getLocalPort(), table == 1);
                    if (key != null) {
                        wanted.put(key, i);
                    }
                }
            }
            if (!wanted.isEmpty()) {
                scan(TABLES[table], wanted, uids);
            }
        }
        return uids;
    }

    /** A connection from this machine: loopback, or to one of its own addresses. */
    static boolean isLocal(Socket s) {
        InetAddress far = s.getInetAddress();
        return far != null && (far.isLoopbackAddress() || far.equals(s.getLocalAddress()));
    }

    /**
     * The far end's line as the table names it: "LOCAL:PORT REMOTE:PORT",
     * addresses in the kernel's hex; null when the table cannot hold it
     * (an IPv6 address in the IPv4 table).
     */
    static String key(InetAddress far, int farPort, InetAddress near, int nearPort, boolean v6) {
        String a = hex(far, v6);
        String b = hex(near, v6);
        if (a == null || b == null) {
            return null;
        }
        return a + ":" + String.format("%04X", farPort) + " " + b + ":" + String.format("%04X", nearPort);
    }

    /**
     * An address as the kernel prints it: 32-bit words in hex, each in the
     * machine's byte order. In the IPv6 table an IPv4 address stands mapped
     * (::ffff:a.b.c.d), as a dual-stack socket holds it.
     */
    private static String hex(InetAddress a, boolean v6) {
        byte[] b = a.getAddress();
        if (!v6 && b.length != 4) {
            return null;
        }
        if (v6 && a instanceof Inet4Address) {
            byte[] mapped = new byte[16];
            mapped[10] = (byte) 0xff;
            mapped[11] = (byte) 0xff;
            System.arraycopy(b, 0, mapped, 12, 4);
            b = mapped;
        }
        StringBuilder out = new StringBuilder(b.length * 2);
        for (int w = 0; w < b.length; w += 4) {
            for (int i = 0; i < 4; i++) {
                int at = LITTLE ? w + 3 - i : w + i;
                out.append(String.format("%02X", b[at] & 0xff));
            }
        }
        return out.toString();
    }

    /** Fills in the uids of the wanted lines of one table. */
    private static void scan(Path table, Map<String, Integer> wanted, int[] uids) {
        try (BufferedReader r = Files.newBufferedReader(table, StandardCharsets.US_ASCII)) {
            r.readLine(); // the header
            String line;
            for (int n = 0; n < MAX_LINES && !wanted.isEmpty() && (line = r.readLine()) != null; n++) {
                // sl local_address rem_address st tx:rx tr:when retrnsmt uid …
                String[] f = line.trim().split(" +", 9);
                if (f.length < 8 || f[3].equals("0A") || f[3].equals("06")) {
                    continue; // too short; listening; TIME_WAIT, whose uid is no one's
                }
                Integer i = wanted.remove(f[1] + " " + f[2]);
                if (i != null) {
                    try {
                        uids[i] = Integer.parseInt(f[7]);
                    } catch (NumberFormatException e) {
                        // left unknown
                    }
                }
            }
        } catch (IOException | RuntimeException e) {
            // no such table (not Linux, no IPv6): the owners stay unknown
        }
    }

    /** This JVM's effective uid, from /proc/self/status; -1 when it cannot be read. */
    static int ownUid() {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/self/status"), StandardCharsets.US_ASCII)) {
                if (line.startsWith("Uid:")) {
                    return Integer.parseInt(line.substring(4).trim().split("\\s+")[1]);
                }
            }
        } catch (IOException | RuntimeException e) {
            // not Linux
        }
        return -1;
    }
}
