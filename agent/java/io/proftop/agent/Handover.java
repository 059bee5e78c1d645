package io.proftop.agent;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFileAttributes;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.SecureRandom;
import java.util.HexFormat;
import java.util.Set;

/**
 * How the agent hands its token to its user's proftop and to nobody else:
 * in /tmp/proftop-UID, a directory of the JVM's user closed to everyone
 * else (the one proftop attach also uses), as token-PORT, a file only that
 * user may read. proftop, run by that user, looks there for the port it
 * connects to; anyone else finds nothing they may read.
 */
final class Handover {
    private static final Path TMP = Path.of("/tmp");
    private static final Set<PosixFilePermission> OWNER_ONLY = PosixFilePermissions.fromString("rw-------");

    private Handover() {}

    /** A fresh random token: 32 bytes, in hex. */
    static String newToken() {
        byte[] b = new byte[32];
        new SecureRandom().nextBytes(b);
        return HexFormat.of().formatHex(b);
    }

    /** The file proftop reads the token of the agent listening on port from, for this JVM's user. */
    static Path tokenFile(int port) throws IOException {
        return privateDir().resolve("token-" + port);
    }

    /**
     * /tmp/proftop-UID, made if need be (mode 0700), and checked: a
     * directory, not a symbolic link, of this JVM's user, closed to others.
     */
    static Path privateDir() throws IOException {
        int uid = ownUid();
        Path dir = TMP.resolve("proftop-" + uid);
        try {
            Files.createDirectory(dir, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
        } catch (FileAlreadyExistsException e) {
            // made before, by proftop attach or an earlier agent: checked below
        } catch (UnsupportedOperationException e) {
            throw new IOException("this file system has no owners and modes to keep a token private");
        }
        PosixFileAttributes a = Files.readAttributes(dir, PosixFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
        Object owner = Files.getAttribute(dir, "unix:uid", LinkOption.NOFOLLOW_LINKS);
        if (!a.isDirectory()) {
            throw new IOException(dir + " is not a directory");
        }
        if (!(owner instanceof Integer o) || o != uid) {
            throw new IOException(dir + " belongs to user " + owner + ", not to this JVM's user " + uid);
        }
        for (PosixFilePermission p : a.permissions()) {
            if (!p.name().startsWith("OWNER_")) {
                throw new IOException(dir + " is open to other users (" + PosixFilePermissions.toString(a.permissions()) + ")");
            }
        }
        return dir;
    }

    /** This JVM's user id: the owner of a file it makes. */
    private static int ownUid() throws IOException {
        Path probe = Files.createTempFile(TMP, ".proftop-", "");
        try {
            Object uid = Files.getAttribute(probe, "unix:uid", LinkOption.NOFOLLOW_LINKS);
            if (uid instanceof Integer u) {
                return u;
            }
            throw new IOException("no user id for " + probe);
        } catch (UnsupportedOperationException | IllegalArgumentException e) {
            throw new IOException("this system has no user ids to keep a token private");
        } finally {
            Files.deleteIfExists(probe);
        }
    }

    /**
     * Removes file when the JVM exits, unless it no longer holds content:
     * the port may have been another agent's since (this one's server
     * closed, or bound to another loopback address with the same port),
     * and that agent's token must stay where its user's proftop finds it.
     */
    static void removeAtExitIfUnchanged(Path file, String content) {
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            try {
                if (Files.readString(file, StandardCharsets.UTF_8).equals(content)) {
                    Files.deleteIfExists(file);
                }
            } catch (IOException | RuntimeException e) {
                // gone already, or not readable: nothing of ours to remove
            }
        }, "proftop-token-cleanup"));
    }

    /**
     * Writes a file atomically (a reader sees a whole file or none), that
     * only this JVM's user may read where the file system has modes.
     */
    static void writePrivate(Path file, String content) throws IOException {
        Path tmp = file.resolveSibling(file.getFileName() + ".tmp-" + ProcessHandle.current().pid());
        Files.deleteIfExists(tmp);
        try {
            Files.createFile(tmp, PosixFilePermissions.asFileAttribute(OWNER_ONLY));
        } catch (UnsupportedOperationException e) {
            Files.createFile(tmp);
        }
        try {
            Files.writeString(tmp, content, StandardCharsets.UTF_8);
            Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        } catch (IOException e) {
            Files.deleteIfExists(tmp);
            throw e;
        }
    }
}
