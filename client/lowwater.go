package client

import (
	"errors"
	"net"
	"syscall"
	"time"

	"github.com/proftop/proftop/protocol"
)

// lowWater has the kernel wake a session's reader only once a good deal of
// the trace has arrived (the socket's receive low-water mark), while the
// stream runs at full speed. A reader woken for every frame the profiler
// writes (16 kB) takes two or three at a time, and each wait costs a
// system call that finds the socket empty, a park and a wake-up of the
// goroutine, and the scheduler's polling in between. With the mark set, a
// wait brings in two to three times as much (BenchmarkEndToEnd's
// events/read), and its cost is shared by as many more events.
//
// The mark matters only when the reader finds the socket empty: a read
// returns whatever has arrived. A trace that slows down must not sit in
// the socket under the mark: a wait with the mark set ends after
// lowWaterWait at the latest, and one that ends so (the stream no longer
// fills the mark in time) takes the mark off. It is set again when a read
// without it brings in much at once, which happens only while the reader
// is behind the stream.
type lowWater struct {
	raw syscall.RawConn
	on  bool // the mark is set
	ok  bool // the last change of the mark succeeded
	// setMark and clearMark are made once: a closure per change would be
	// allocated.
	setMark, clearMark func(fd uintptr)
}

const (
	// lowWaterMark is the bytes the kernel waits for before it wakes the
	// reader, while the mark is set: 950 events of the simulated service.
	lowWaterMark = 128 << 10
	// lowWaterWait is the longest a wait with the mark set lasts; the
	// latency a full-speed stream's last events may gain.
	lowWaterWait = 2 * time.Millisecond
	// lowWaterAfter is what a read without the mark must leave buffered
	// for the mark to be set: the reader is then behind the stream.
	lowWaterAfter = lowWaterMark / 4
)

// newLowWater returns nil where the mark cannot be used: a connection
// without a socket, or a system where it is not known to work with the
// network poller.
func newLowWater(conn net.Conn) *lowWater {
	sc, ok := conn.(syscall.Conn)
	if !ok || !lowWaterSupported {
		return nil
	}
	raw, err := sc.SyscallConn()
	if err != nil {
		return nil
	}
	w := &lowWater{raw: raw}
	w.setMark = func(fd uintptr) { w.ok = setReceiveLowWater(fd, lowWaterMark) }
	w.clearMark = func(fd uintptr) { w.ok = setReceiveLowWater(fd, 1) }
	return w
}

// next reads the next frame of c, which may wait for the network.
func (w *lowWater) next(c *control) (protocol.Frame, error) {
	if w.on {
		if c.conn.SetReadDeadline(time.Now().Add(lowWaterWait)) == nil {
			f, err := c.fr.Next()
			c.conn.SetReadDeadline(time.Time{})
			var ne net.Error
			if !errors.As(err, &ne) || !ne.Timeout() {
				return f, err
			}
			// The frame reader resumes where the deadline left it.
		}
		w.turn(false)
		return c.fr.Next()
	}
	f, err := c.fr.Next()
	if err == nil && c.fr.BufferedBytes() >= lowWaterAfter {
		w.turn(true)
	}
	return f, err
}

// turn sets the mark or takes it off. A mark the kernel refuses is not
// asked for again.
func (w *lowWater) turn(on bool) {
	if w.raw == nil {
		return
	}
	change := w.clearMark
	if on {
		change = w.setMark
	}
	if w.raw.Control(change) != nil || !w.ok {
		w.on = false
		w.raw.Control(w.clearMark)
		w.raw = nil
		return
	}
	w.on = on
}
