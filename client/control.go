package client

import (
	"errors"
	"fmt"
	"net"
	"time"

	"github.com/proftop/proftop/protocol"
)

// errNoReply is returned when a command's answer does not come in time.
var errNoReply = errors.New("no reply in time")

// EndedError is the error a profiler ends a connection with, unasked
// (ctxt 0): it serves no one now, it dropped a client that fell behind.
type EndedError struct{ Reply *protocol.ErrorReply }

func (e *EndedError) Error() string { return e.Reply.Error() }
func (e *EndedError) Unwrap() error { return e.Reply }

// endedBy returns the error of a message that ends the connection, nil
// for any other: an error reply with ctxt 0 answers no command.
func endedBy(m protocol.Message) error {
	if m.Ctxt != 0 {
		return nil
	}
	if e := m.AsError(); e != nil {
		return &EndedError{Reply: e}
	}
	return nil
}

// control is the command channel of one connection.
type control struct {
	conn net.Conn
	fr   *protocol.FrameReader
	fw   *protocol.FrameWriter
	ctxt uint64
	dest string
	// early holds data frames that arrived while a reply was awaited, at
	// most maxEarly bytes of them: a profiler sends its trace after
	// monitoringStarted, so more is a peer filling proftop's memory.
	early      [][]byte
	earlyBytes int
	maxEarly   int
}

// readBufferSize is the buffer under the frame reader. At full speed a read
// from the socket returns a few kilobytes; with room for many frames, one
// read takes whatever has arrived, and the decoder goes on through the
// buffered frames without a system call or a hand-over to the consumer in
// between (see dataReader).
const readBufferSize = 256 << 10

// newControl reads through a buffer of readBuffer bytes (readBufferSize
// when 0).
func newControl(conn net.Conn, maxPayload, readBuffer int) *control {
	if maxPayload <= 0 {
		maxPayload = protocol.DefaultMaxPayload
	}
	if readBuffer <= 0 {
		readBuffer = readBufferSize
	}
	return &control{
		conn:     conn,
		fr:       protocol.NewBufferedFrameReader(conn, maxPayload, readBuffer),
		fw:       protocol.NewFrameWriter(conn, maxPayload),
		dest:     protocol.ControllerName,
		maxEarly: maxPayload,
	}
}

// call sends a command and waits up to timeout for the reply that carries
// its ctxt. Replies to earlier commands that timed out are skipped.
func (c *control) call(body any, timeout time.Duration) (protocol.Message, error) {
	c.ctxt++
	payload, err := protocol.EncodeMessage(protocol.ClientName, c.dest, c.ctxt, body)
	if err != nil {
		return protocol.Message{}, err
	}
	if err := c.fw.WriteFrame(false, payload); err != nil {
		return protocol.Message{}, err
	}
	if err := c.conn.SetReadDeadline(time.Now().Add(timeout)); err != nil {
		return protocol.Message{}, err
	}
	defer c.conn.SetReadDeadline(time.Time{})
	for {
		f, err := c.fr.Next()
		if err != nil {
			var ne net.Error
			if errors.As(err, &ne) && ne.Timeout() {
				return protocol.Message{}, errNoReply
			}
			return protocol.Message{}, err
		}
		if f.Data {
			if len(f.Payload) == 0 {
				continue
			}
			if c.earlyBytes+len(f.Payload) > c.maxEarly {
				return protocol.Message{}, fmt.Errorf("the profiler sent more than %d bytes of trace data before its reply, which proftop does not hold", c.maxEarly)
			}
			c.early = append(c.early, append([]byte(nil), f.Payload...))
			c.earlyBytes += len(f.Payload)
			continue
		}
		m, err := protocol.ParseMessage(f.Payload)
		if err != nil {
			return protocol.Message{}, err
		}
		if err := endedBy(m); err != nil {
			return protocol.Message{}, err
		}
		if m.Ctxt != c.ctxt {
			continue
		}
		return m, nil
	}
}

// takeEarly hands over the oldest data frame received before the stream began.
func (c *control) takeEarly() ([]byte, bool) {
	if len(c.early) == 0 {
		return nil, false
	}
	p := c.early[0]
	c.early[0] = nil
	c.early = c.early[1:]
	c.earlyBytes -= len(p)
	return p, true
}

// expect sends a command and decodes the expected reply into out, turning
// an error reply into a Go error.
func (c *control) expect(body any, timeout time.Duration, out any) error {
	m, err := c.call(body, timeout)
	if err != nil {
		return err
	}
	if e := m.AsError(); e != nil {
		return e
	}
	return m.Decode(out)
}
