package io.proftop.agent;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFileAttributes;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HexFormat;
import java.util.List;
import java.util.Set;

/**
 * How the agent hands its token to its user's proftop and to nobody else:
 * in /tmp/proftop-UID, a directory of the JVM's user closed to everyone
 * else (the one proftop attach also uses; proftop-UID-RANDOM when someone
 * else took that name), as token-PORT, a file only that user may read.
 * proftop, run by that user, looks there for the port it connects to;
 * anyone else finds nothing they may read.
 */
final class Handover {
    private static final Path TMP = Path.of("/tmp");
    private static final Set<PosixFilePermission> OWNER_ONLY = PosixFilePermissions.fromString("rw-------");
    private static final Set<PosixFilePermission> PRIVATE_DIR = PosixFilePermissions.fromString("rwx------");

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
     * Anyone may make that name first, though: then a directory of this
     * user's own beside it (see privateDir(Path, int)).
     */
    static Path privateDir() throws IOException {
        return privateDir(TMP, ownUid());
    }

    /**
     * proftop-UID in tmp; or, when someone else holds that name (another
     * user's directory, one open to others, a symbolic link, a file), a
     * directory proftop-UID-RANDOM of this user's own, closed to others,
     * which proftop finds by its name, owner and mode, as it finds the
     * one proftop attach makes in the same case. A user who makes
     * /tmp/proftop-UID before its owner does cannot keep the agent from
     * starting: the JVM's output names the directory taken.
     */
    static Path privateDir(Path tmp, int uid) throws IOException {
        Path dir = tmp.resolve("proftop-" + uid);
        try {
            Files.createDirectory(dir, PosixFilePermissions.asFileAttribute(PRIVATE_DIR));
        } catch (FileAlreadyExistsException e) {
            // made before, by proftop attach or an earlier agent (or by someone else): checked below
        } catch (UnsupportedOperationException e) {
            throw new IOException("this file system has no owners and modes to keep a token private");
        }
        String taken = whyNotPrivate(dir, uid);
        if (taken == null) {
            return dir;
        }
        Path own = ownBeside(tmp, uid);
        if (own == null) {
            own = Files.createTempDirectory(tmp, "proftop-" + uid + "-", PosixFilePermissions.asFileAttribute(PRIVATE_DIR));
            String wrong = whyNotPrivate(own, uid);
            if (wrong != null) {
                throw new IOException(wrong);
            }
        }
        System.err.println("proftop agent: " + taken + ": someone else may have made it to keep this agent out; "
                + "the token goes to " + own + " instead, where proftop run by this JVM's user finds it");
        return own;
    }

    /** A proftop-UID-* directory of this user's, closed to others, made before (by an earlier agent or proftop attach); null when none. */
    private static Path ownBeside(Path tmp, int uid) throws IOException {
        List<Path> found = new ArrayList<>();
        try (DirectoryStream<Path> ds = Files.newDirectoryStream(tmp, "proftop-" + uid + "-*")) {
            for (Path p : ds) {
                if (whyNotPrivate(p, uid) == null) {
                    found.add(p);
                }
            }
        }
        return found.isEmpty() ? null : Collections.min(found);
    }

    /** Why path is not a directory of user uid closed to everyone else; null when it is. */
    static String whyNotPrivate(Path dir, int uid) throws IOException {
        PosixFileAttributes a = Files.readAttributes(dir, PosixFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
        if (a.isSymbolicLink()) {
            return dir + " is a symbolic link";
        }
        if (!a.isDirectory()) {
            return dir + " is not a directory";
        }
        Object owner = Files.getAttribute(dir, "unix:uid", LinkOption.NOFOLLOW_LINKS);
        if (!(owner instanceof Integer o) || o != uid) {
            return dir + " belongs to user " + owner + ", not to this JVM's user " + uid;
        }
        for (PosixFilePermission p : a.permissions()) {
            if (!p.name().startsWith("OWNER_")) {
                return dir + " is open to other users (" + PosixFilePermissions.toString(a.permissions()) + ")";
            }
        }
        return null;
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
