package io.proftop.agent;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;

/**
 * Checks the agent's Outbox against a client that never reads: queuing
 * never waits for the network, and the client is dropped once it is a
 * backlog behind, and told why when it reads again. Prints "dropped after
 * N bytes, slowest put M ms", then "reason: " and the last control frame.
 *
 * java -cp proftop-agent.jar:CLASSES io.proftop.agent.OutboxCheck BACKLOG_BYTES
 */
public class OutboxCheck {
    public static void main(String[] args) throws Exception {
        long backlog = Long.parseLong(args[0]);
        try (ServerSocket server = new ServerSocket()) {
            server.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
            Socket stalled = new Socket();
            stalled.setReceiveBufferSize(4096);
            stalled.connect(server.getLocalSocketAddress());
            Socket s = server.accept();
            s.setSendBufferSize(4096);
            java.util.concurrent.ScheduledExecutorService timer = java.util.concurrent.Executors.newSingleThreadScheduledExecutor(r -> {
                Thread t = new Thread(r, "timer");
                t.setDaemon(true);
                return t;
            });
            Outbox out = new Outbox(s, backlog, timer, (code, message) -> System.out.println("ended: " + code));
            Thread writer = new Thread(out::run, "writer");
            writer.setDaemon(true);
            writer.start();
            byte[] chunk = new byte[64 << 10];
            long put = 0;
            long slowest = 0;
            try {
                while (put < 1L << 30) {
                    long t0 = System.nanoTime();
                    out.put(true, chunk);
                    slowest = Math.max(slowest, System.nanoTime() - t0);
                    put += chunk.length;
                }
                System.out.println("never dropped after " + put + " bytes");
                System.exit(1);
            } catch (IOException e) {
                System.out.println("dropped after " + put + " bytes, slowest put " + slowest / 1_000_000 + " ms: " + e.getMessage());
            }
            // The client reads again: what was written before the drop, then the reason, then the end.
            java.io.DataInputStream in = new java.io.DataInputStream(stalled.getInputStream());
            String last = null;
            try {
                while (true) {
                    in.readInt();
                    int flags = in.readInt();
                    byte[] payload = new byte[in.readInt()];
                    in.readFully(payload);
                    if ((flags & 1) == 0) {
                        last = new String(payload, java.nio.charset.StandardCharsets.UTF_8);
                    }
                }
            } catch (java.io.EOFException e) {
                // the agent's side is done
            }
            System.out.println("reason: " + last);
            writer.join(Outbox.END_GRACE_MS + 5000);
            if (writer.isAlive()) {
                System.out.println("the writing thread is still blocked after the drop");
                System.exit(1);
            }
            stalled.close();
        }
    }
}
