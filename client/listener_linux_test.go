package client

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"strings"
	"testing"
)

// kernelAddr writes a 4-byte address as /proc/net/tcp does: in the machine's byte order.
func kernelAddr(a, b, c, d byte) string {
	return fmt.Sprintf("%08X", binary.NativeEndian.Uint32([]byte{a, b, c, d}))
}

// Who listens where a loopback connection arrives, as the kernel's table says.
func TestListenersIn(t *testing.T) {
	const header = "  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode\n"
	line := func(addr string, port int, state string, uid int) string {
		return fmt.Sprintf("   0: %s:%04X 00000000:0000 %s 00000000:00000000 00:00000000 00000000 %5d        0 4242 1\n", addr, port, state, uid)
	}
	loopback, any, lan := kernelAddr(127, 0, 0, 1), kernelAddr(0, 0, 0, 0), kernelAddr(192, 168, 1, 5)
	mapped := strings.Repeat("0", 16) + kernelAddr(0, 0, 0xff, 0xff) + loopback // ::ffff:127.0.0.1, as Java binds
	for _, tc := range []struct {
		name       string
		table      string
		ours, seen bool
	}{
		{"ours on loopback", line(loopback, 4000, "0A", 1000), true, true},
		{"ours, v4-mapped", line(mapped, 4000, "0A", 1000), true, true},
		{"another user's on loopback", line(loopback, 4000, "0A", 65534), false, true},
		{"another user's on every address", line(any, 4000, "0A", 65534), false, true},
		{"another user's on another address only", line(lan, 4000, "0A", 65534), true, false},
		{"another port", line(loopback, 4001, "0A", 65534), true, false},
		{"a connection, not a listener", line(loopback, 4000, "01", 65534), true, false},
		{"ours and another user's", line(loopback, 4000, "0A", 1000) + line(any, 4000, "0A", 0), false, true},
		{"garbage", "nonsense line\n:::: 0A\n", true, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ours, seen := listenersIn(bufio.NewScanner(strings.NewReader(header+tc.table)), 4000, 1000)
			if ours != tc.ours || seen != tc.seen {
				t.Fatalf("ours %v seen %v, want %v %v", ours, seen, tc.ours, tc.seen)
			}
		})
	}
}
