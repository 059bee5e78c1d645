package io.proftop.agent;

import java.nio.file.Path;

/**
 * Prints the directory the agent hands its token over in, under a given
 * root instead of /tmp, for a given user: "dir: PATH", or "failed: WHY".
 *
 * java -cp proftop-agent.jar:CLASSES io.proftop.agent.HandoverCheck ROOT UID
 */
public class HandoverCheck {
    public static void main(String[] args) {
        try {
            System.out.println("dir: " + Handover.privateDir(Path.of(args[0]), Integer.parseInt(args[1])));
        } catch (Exception e) {
            System.out.println("failed: " + e.getMessage());
        }
    }
}
