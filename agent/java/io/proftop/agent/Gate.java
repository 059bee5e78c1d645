package io.proftop.agent;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Who may wait to authenticate, and how tokens are checked. Every peer (a
 * user of this machine, or a remote address: see Peer) has places and
 * checks of its own, so that nothing one peer does — connecting in floods,
 * sending nothing, sending wrong tokens as fast as it is answered — takes
 * another peer's places or holds back another's checks: the JVM's user is
 * never kept out by another user's connections.
 *
 * A peer has at most PLACES_PER_PEER connections waiting to authenticate;
 * when all are taken, a newcomer takes the place of its oldest connection
 * still sending its first frame after EVICTABLE_AFTER_MS, or is refused.
 * The peers other than the JVM's user and root share PLACES_FOR_OTHERS
 * places besides, which bounds the agent's threads however many users or
 * addresses connect; the JVM's user and root have theirs beyond those.
 *
 * A peer's tokens are checked one at a time, and a wrong one holds its next
 * check back WRONG_TOKEN_PAUSE_MS: five guesses a second per peer. The
 * right token waits its turn too: how soon an answer comes tells nothing
 * the answers to the guesses before it did not.
 *
 * The gate also remembers why a peer's client was dropped (TOO_SLOW,
 * AGENT_FAILURE), for its next connection: a client that stopped reading
 * may never read the reason sent after the trace it did not read.
 */
final class Gate {
    static final int PLACES_PER_PEER = 8;
    static final int PLACES_FOR_OTHERS = 24;
    static final long EVICTABLE_AFTER_MS = 1_000;
    static final long WRONG_TOKEN_PAUSE_MS = 200;
    /** A drop is told to the peer's next connection within this time. */
    static final long DROP_TOLD_WITHIN_MS = 10 * 60_000;
    /** Peers remembered only for a drop are forgotten, oldest first, beyond this many. */
    static final int MAX_REMEMBERED = 64;

    /** Why a client of a peer was dropped, and when. */
    record Drop(String code, String message, long at) {}

    private static final class PeerState {
        final List<Session> pending = new ArrayList<>();
        final ReentrantLock checking = new ReentrantLock(true);
        Drop drop;
    }

    private final byte[] token;
    private final Map<String, PeerState> peers = new LinkedHashMap<>(); // guarded by itself
    private int othersPending; // pending sessions of peers not reserved; guarded by peers

    Gate(String token) {
        this.token = token.getBytes(StandardCharsets.UTF_8);
    }

    /**
     * Gives a new connection a place to wait in while it authenticates: null
     * when it has one, else why not (a sentence for BUSY). A connection
     * evicted for it is closed.
     */
    String admit(Session s) {
        Session evicted = null;
        try {
            synchronized (peers) {
                long now = System.currentTimeMillis();
                Peer peer = s.peer();
                PeerState ps = peers.get(peer.key());
                if (ps != null && ps.pending.size() >= PLACES_PER_PEER) {
                    evicted = oldestEvictable(ps.pending, now);
                    if (evicted == null) {
                        return PLACES_PER_PEER + " connections of " + peer.who() + " are waiting to authenticate to this JVM's proftop agent"
                                + " already; try again in a moment";
                    }
                } else if (!peer.reserved() && othersPending >= PLACES_FOR_OTHERS) {
                    List<Session> others = new ArrayList<>();
                    peers.values().forEach(p -> p.pending.stream().filter(o -> !o.peer().reserved()).forEach(others::add));
                    evicted = oldestEvictable(others, now);
                    if (evicted == null) {
                        return "the connections of other users fill the " + PLACES_FOR_OTHERS + " places they share at this JVM's proftop agent"
                                + " (its user and root have their own); try again in a moment";
                    }
                }
                if (evicted != null) {
                    remove(evicted);
                }
                if (ps == null || !peers.containsKey(peer.key())) {
                    ps = new PeerState();
                    peers.put(peer.key(), ps);
                    forgetBeyondBound();
                }
                ps.pending.add(s);
                if (!peer.reserved()) {
                    othersPending++;
                }
                return null;
            }
        } finally {
            if (evicted != null) {
                Refusals.closeQuietly(evicted.socket());
            }
        }
    }

    /** The connection leaves the places: authenticated, refused, or gone. */
    void leave(Session s) {
        synchronized (peers) {
            remove(s);
        }
    }

    /**
     * Checks a connection's token, in its peer's turn; false for a wrong
     * one (after the pause) or a connection no longer waiting.
     */
    boolean check(Session s, String given) throws InterruptedException {
        PeerState ps;
        synchronized (peers) {
            ps = peers.get(s.peer().key());
            if (ps == null || !ps.pending.contains(s)) {
                return false; // evicted
            }
            s.markChecked(); // never evicted from now on: it waits for the agent, not for its client
        }
        ps.checking.lockInterruptibly();
        try {
            if (MessageDigest.isEqual(token, given.getBytes(StandardCharsets.UTF_8))) {
                return true;
            }
            Thread.sleep(WRONG_TOKEN_PAUSE_MS);
            return false;
        } finally {
            ps.checking.unlock();
        }
    }

    /** Remembers that a client of peer was dropped, for the peer's next connection. */
    void noteDrop(Peer peer, String code, String message) {
        synchronized (peers) {
            PeerState ps = peers.computeIfAbsent(peer.key(), k -> new PeerState());
            ps.drop = new Drop(code, message, System.currentTimeMillis());
            forgetBeyondBound();
        }
    }

    /** The drop to tell a newly admitted connection of peer, once; null when none recent. */
    Drop takeDrop(Peer peer) {
        synchronized (peers) {
            PeerState ps = peers.get(peer.key());
            if (ps == null || ps.drop == null) {
                return null;
            }
            Drop d = ps.drop;
            ps.drop = null;
            if (ps.pending.isEmpty()) {
                peers.remove(peer.key());
            }
            return System.currentTimeMillis() - d.at() <= DROP_TOLD_WITHIN_MS ? d : null;
        }
    }

    private void remove(Session s) {
        PeerState ps = peers.get(s.peer().key());
        if (ps == null || !ps.pending.remove(s)) {
            return;
        }
        if (!s.peer().reserved()) {
            othersPending--;
        }
        if (ps.pending.isEmpty() && ps.drop == null) {
            peers.remove(s.peer().key());
        }
    }

    /**
     * Forgets peers remembered only for a drop, oldest first, beyond
     * MAX_REMEMBERED: the peers with connections waiting are at most
     * PLACES_FOR_OTHERS of others and two reserved ones, so there is always
     * one to forget.
     */
    private void forgetBeyondBound() {
        Iterator<PeerState> it = peers.values().iterator();
        while (peers.size() > MAX_REMEMBERED && it.hasNext()) {
            PeerState p = it.next();
            if (p.pending.isEmpty()) {
                it.remove();
            }
        }
    }

    private static Session oldestEvictable(List<Session> among, long now) {
        Session oldest = null;
        for (Session p : among) {
            if (p.evictable(now, EVICTABLE_AFTER_MS) && (oldest == null || p.accepted() < oldest.accepted())) {
                oldest = p;
            }
        }
        return oldest;
    }
}
