package client

import (
	"bytes"
	"encoding/binary"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/proftop/proftop/simulator/rbkitsim"
)

func zmtpFrame(flags byte, size uint64, body bool) []byte {
	var out []byte
	if size > 255 || flags&zmtpLong != 0 {
		out = append(out, flags|zmtpLong)
		out = binary.BigEndian.AppendUint64(out, size)
	} else {
		out = append(out, flags, byte(size))
	}
	if body {
		out = append(out, make([]byte, size)...)
	}
	return out
}

func TestZMTPBoundRefusesLargeMessages(t *testing.T) {
	greeting := make([]byte, zmtpGreeting)
	cases := []struct {
		name   string
		stream [][]byte
		ok     bool
	}{
		{"small frames", [][]byte{greeting, zmtpFrame(zmtpCommand, 200, true), zmtpFrame(0, 1000, true), zmtpFrame(0, 0, true)}, true},
		{"a frame of 1 TiB announced", [][]byte{greeting, zmtpFrame(0, 1<<40, false)}, false},
		{"a frame one byte over", [][]byte{greeting, zmtpFrame(0, 1025, false)}, false},
		{"a multipart message over in total", [][]byte{greeting, zmtpFrame(zmtpMore, 600, true), zmtpFrame(0, 600, false)}, false},
		{"two messages, each under", [][]byte{greeting, zmtpFrame(0, 600, true), zmtpFrame(0, 600, true)}, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			z := zmtpBound{max: 1024, left: zmtpGreeting, state: stateBody}
			all := bytes.Join(c.stream, nil)
			var err error
			for i := 0; i < len(all) && err == nil; i += 7 { // fed in pieces, as reads come
				err = z.feed(all[i:min(i+7, len(all))])
			}
			var big errMessageTooLarge
			if c.ok != (err == nil) || (err != nil && !errors.As(err, &big)) {
				t.Fatalf("got %v", err)
			}
		})
	}
}

// The handshake is over once the peer's first command (READY) has been
// read whole: the greeting alone, or a command half read, is not enough.
func TestZMTPBoundSeesTheHandshakeEnd(t *testing.T) {
	greeting := make([]byte, zmtpGreeting)
	ready := zmtpFrame(zmtpCommand, 40, true)
	for _, c := range []struct {
		name   string
		stream []byte
		want   bool
	}{
		{"the greeting", greeting, false},
		{"half of READY", append(append([]byte(nil), greeting...), ready[:20]...), false},
		{"READY whole", bytes.Join([][]byte{greeting, ready}, nil), true},
		{"an empty command", bytes.Join([][]byte{greeting, zmtpFrame(zmtpCommand, 0, true)}, nil), true},
	} {
		t.Run(c.name, func(t *testing.T) {
			z := zmtpBound{max: 1024, left: zmtpGreeting, state: stateBody}
			for i := 0; i < len(c.stream); i += 5 {
				if err := z.feed(c.stream[i:min(i+5, len(c.stream))]); err != nil {
					t.Fatal(err)
				}
			}
			if z.ready != c.want {
				t.Fatalf("ready %v, want %v", z.ready, c.want)
			}
		})
	}
}

// A server that publishes a frame over --max-message-size is dropped
// before the frame is taken into memory, and reconnected.
func TestRbkitSourceRefusesAHugeFrame(t *testing.T) {
	srv := startRbkit(t, rbkitsim.Config{Frames: [][]byte{collectionFrame(0), append(collectionFrame(1), make([]byte, 8192)...)}})
	s, _, _ := runRbkit(t, srv, RbkitConfig{MaxMessageSize: 4096, Reconnect: true, ReconnectMin: time.Hour})
	waitFor(t, "the huge frame refused", 20*time.Second, func() bool {
		st := s.Status()
		return st.State == StateReconnecting && strings.Contains(st.Cause, "over the limit of 4096")
	})
}
