package client

import (
	"bufio"
	"encoding/binary"
	"encoding/hex"
	"net"
	"os"
	"strconv"
	"strings"
)

// procNetTCP lists the kernel's TCP sockets of this network namespace,
// each with the user that made it.
var procNetTCP = []string{"/proc/net/tcp", "/proc/net/tcp6"}

// loopbackListenerIsOurs says every socket listening where a connection
// to loopback port could arrive (a loopback or wildcard address) is user
// uid's. A token left by an agent that has since been killed stays in its
// file; whoever listens on that port later must not be handed it. False
// too when the kernel's tables cannot be read or hold no such listener.
func loopbackListenerIsOurs(port, uid int) bool {
	found := false
	for _, table := range procNetTCP {
		f, err := os.Open(table)
		if err != nil {
			continue
		}
		ours, seen := listenersIn(bufio.NewScanner(f), port, uid)
		f.Close()
		if seen && !ours {
			return false
		}
		found = found || seen
	}
	return found
}

// listenersIn reads one /proc/net/tcp table: whether it lists a listener
// that can take loopback connections on port (seen), and whether all
// such listeners are uid's (ours).
func listenersIn(s *bufio.Scanner, port, uid int) (ours, seen bool) {
	ours = true
	s.Scan() // the header
	for s.Scan() {
		// sl local_address rem_address st tx:rx tr:when retrnsmt uid timeout inode …
		fields := strings.Fields(s.Text())
		if len(fields) < 8 || fields[3] != "0A" { // 0A: LISTEN
			continue
		}
		addr, portHex, ok := strings.Cut(fields[1], ":")
		if !ok {
			continue
		}
		if p, err := strconv.ParseUint(portHex, 16, 16); err != nil || int(p) != port {
			continue
		}
		ip := kernelIP(addr)
		if ip == nil || !(ip.IsLoopback() || ip.IsUnspecified()) {
			continue
		}
		seen = true
		if u, err := strconv.Atoi(fields[7]); err != nil || u != uid {
			ours = false
		}
	}
	return ours, seen
}

// kernelIP decodes an address as /proc/net/tcp prints it: 32-bit words in
// hex, each in the machine's byte order.
func kernelIP(s string) net.IP {
	b, err := hex.DecodeString(s)
	if err != nil || (len(b) != net.IPv4len && len(b) != net.IPv6len) {
		return nil
	}
	for i := 0; i < len(b); i += 4 {
		binary.BigEndian.PutUint32(b[i:], binary.NativeEndian.Uint32(b[i:]))
	}
	return net.IP(b)
}
