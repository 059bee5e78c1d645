package io.proftop.agent;

import java.net.InetAddress;

/**
 * Who is on the other end of a connection, as far as the agent can tell: a
 * user of this machine (the kernel's socket table names the owner of a
 * local connection's far end, see SocketOwners), or else an address. Each
 * peer has places and token checks of its own (Gate). The JVM's own user
 * and root are reserved peers: their places are never shared with others.
 *
 * @param key      what budgets are kept by: "uid 1000" or "address 10.0.0.7"
 * @param who      the peer in a sentence ("user 1000", "10.0.0.7")
 * @param reserved the JVM's user or root
 */
record Peer(String key, String who, boolean reserved) {

    /** A user of this machine, by uid; ownUid is the JVM's (-1 when unknown). */
    static Peer user(int uid, int ownUid) {
        return new Peer("uid " + uid, "user " + uid, uid == ownUid || uid == 0);
    }

    /**
     * A peer known by its address alone: a remote one, or a local one the
     * socket tables did not name (not Linux; the client already gone).
     */
    static Peer address(InetAddress a) {
        String text = a.getHostAddress();
        return new Peer("address " + text, text, false);
    }
}
