package client

import (
	"bytes"
	"net"
	"testing"
	"time"

	"github.com/proftop/proftop/protocol"
)

// A stream at full speed sets the mark; when it slows to a trickle, each
// frame still arrives at once, well within a wait with the mark, which
// comes off.
func TestLowWaterFollowsTheStreamsSpeed(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	sent := make(chan net.Conn, 1)
	go func() {
		c, err := ln.Accept()
		if err != nil {
			close(sent)
			return
		}
		sent <- c
	}()
	conn, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	peer := <-sent
	if peer == nil {
		t.Fatal("no connection")
	}
	defer peer.Close()

	lw := newLowWater(conn)
	if lw == nil {
		t.Skip("the receive low-water mark is not used on this system")
	}
	d := &dataReader{c: newControl(conn, 0, 0), beforeWait: func() {}, onData: func([]byte) error { return nil }, lowWater: lw}
	fw := protocol.NewFrameWriter(peer, 0)

	// Full speed: a megabyte, the reader starting once the socket is full.
	frame := bytes.Repeat([]byte("x"), 16000)
	go func() {
		for range 64 {
			if fw.WriteFrame(true, frame) != nil {
				return
			}
		}
	}()
	time.Sleep(100 * time.Millisecond)
	p := make([]byte, 64<<10)
	for got := 0; got < 64*len(frame); {
		n, err := d.Read(p)
		if err != nil {
			t.Fatal(err)
		}
		got += n
	}
	if !lw.on {
		t.Fatal("a reader behind the stream did not set the mark")
	}

	// A trickle: the reader waits on an empty socket, with the mark set at
	// first; each small frame is read at once, not held under the mark,
	// which comes off.
	for i := range 3 {
		type read struct {
			data string
			err  error
			at   time.Time
		}
		done := make(chan read, 1)
		go func() {
			n, err := d.Read(p)
			done <- read{string(p[:n]), err, time.Now()}
		}()
		time.Sleep(20 * time.Millisecond)
		written := time.Now()
		if err := fw.WriteFrame(true, []byte("tick")); err != nil {
			t.Fatal(err)
		}
		r := <-done
		if r.err != nil || r.data != "tick" {
			t.Fatalf("tick %d: read %q, %v", i, r.data, r.err)
		}
		if waited := r.at.Sub(written); waited > 500*time.Millisecond {
			t.Fatalf("tick %d was read %v after it was written", i, waited)
		}
	}
	if lw.on {
		t.Fatal("the mark stayed set for a trickle")
	}
}
