package client

import (
	"context"
	"encoding/binary"
	"fmt"
	"net"
	"strconv"
	"sync"
	"time"

	"github.com/go-zeromq/zmq4"
	"github.com/go-zeromq/zmq4/transport"
)

// zmq4 allocates a ZeroMQ frame's body at the size its header announces,
// and joins the frames of a multipart message without limit: a peer could
// make proftop allocate what it likes. boundedTCP is the tcp transport
// with a reader that follows ZMTP 3's framing (a 64-byte greeting, then
// frames: a flags byte, a 1- or 8-byte size, the body) and refuses a
// message larger than the configured bound before zmq4 sees its header.
//
// zmq4 also waits for the peer's greeting and READY without end: a Ruby
// process that is stopped (kill -STOP) accepts the connection in its
// kernel and never answers, and zmq4's Dial never returns. The connection
// has a deadline, the dialer's timeout, until the peer's READY (its first
// command) has been read, and its context's end ends the wait too.

const zmtpGreeting = 64

// ZMTP frame flags.
const (
	zmtpMore    = 1
	zmtpLong    = 2
	zmtpCommand = 4
)

// errMessageTooLarge is a peer's message over the bound.
type errMessageTooLarge struct{ size, max uint64 }

func (e errMessageTooLarge) Error() string {
	return fmt.Sprintf("the rbkit server sent a ZeroMQ message of %d bytes or more, over the limit of %d (--max-message-size raises it; an object-space snapshot of a large heap needs more)", e.size, e.max)
}

type boundedTCP struct{ max uint64 }

var registered sync.Map // bound -> transport name

// refusals tells the source that dialed an address that a message from it
// went over the bound: zmq4 drops a connection whose read fails and says
// nothing of why, and a SUB socket then just receives nothing more.
var refusals sync.Map // dial address ("host:port") -> *refusalSink

// refusalSink is who is told of a refusal (a pointer: it is compared).
type refusalSink struct{ tell func(error) }

// onRefusal has tell called with the refusals of the connections to these
// addresses, until the returned function is called.
func onRefusal(tell func(error), addrs ...string) (stop func()) {
	sink := &refusalSink{tell}
	for _, a := range addrs {
		refusals.Store(a, sink)
	}
	return func() {
		for _, a := range addrs {
			refusals.CompareAndDelete(a, sink)
		}
	}
}

// boundedEndpoint is a tcp endpoint whose messages are bounded to max bytes.
func boundedEndpoint(host string, port int, max int) string {
	name, ok := registered.Load(max)
	if !ok {
		n := "tcp-max" + strconv.Itoa(max)
		if err := zmq4.RegisterTransport(n, boundedTCP{max: uint64(max)}); err == nil {
			registered.Store(max, n)
		}
		name, _ = registered.LoadOrStore(max, n)
	}
	return name.(string) + "://" + net.JoinHostPort(host, strconv.Itoa(port))
}

func (b boundedTCP) Dial(ctx context.Context, d transport.Dialer, addr string) (net.Conn, error) {
	c, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return nil, err
	}
	timeout := defaultHandshakeTimeout
	if nd, ok := d.(*net.Dialer); ok && nd.Timeout > 0 {
		timeout = nd.Timeout
	}
	bc := &boundedConn{Conn: c, addr: addr, z: zmtpBound{max: b.max, left: zmtpGreeting, state: stateBody}}
	c.SetDeadline(time.Now().Add(timeout))
	bc.stop = context.AfterFunc(ctx, func() { c.SetDeadline(time.Unix(1, 0)) }) // a past deadline: the wait ends now
	return bc, nil
}

// defaultHandshakeTimeout bounds the ZMTP handshake when the dialer has no
// timeout of its own.
const defaultHandshakeTimeout = 5 * time.Second

func (b boundedTCP) Listen(ctx context.Context, addr string) (net.Listener, error) {
	return net.Listen("tcp", addr)
}

func (b boundedTCP) Addr(ep string) (string, error) {
	if _, _, err := net.SplitHostPort(ep); err != nil {
		return "", err
	}
	return ep, nil
}

// boundedConn checks what it reads against the bound, and lifts the
// handshake's deadline once it is over.
type boundedConn struct {
	net.Conn
	addr    string // as dialed: whom to tell of a refusal (refusals)
	z       zmtpBound
	stop    func() bool // stops the context's watch over the handshake
	settled bool        // the handshake is over: no deadline
}

func (c *boundedConn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	if berr := c.z.feed(p[:n]); berr != nil {
		c.Conn.Close()
		if sink, ok := refusals.Load(c.addr); ok {
			sink.(*refusalSink).tell(berr)
		}
		return 0, berr
	}
	if c.z.ready && !c.settled {
		c.settled = true
		if c.stop() { // not ended meanwhile: the connection lives on, without a deadline
			c.Conn.SetDeadline(time.Time{})
		}
	}
	return n, err
}

// zmtpBound follows the framing of the bytes fed to it.
type zmtpBound struct {
	max     uint64
	state   int
	left    uint64 // bytes left in the body (or greeting), or size bytes left
	flags   byte
	size    [8]byte
	message uint64 // bytes of the message so far (its frames)
	// ready: the peer's first command (its READY, which ends the
	// handshake) has been read whole.
	ready bool
}

const (
	stateFlags = iota
	stateSize
	stateBody
)

func (z *zmtpBound) feed(b []byte) error {
	for len(b) > 0 {
		switch z.state {
		case stateBody:
			n := min(uint64(len(b)), z.left)
			z.left -= n
			b = b[n:]
			if z.left == 0 {
				z.state = stateFlags
				z.ready = z.ready || z.flags&zmtpCommand != 0 // the greeting has no flags
			}
		case stateFlags:
			z.flags = b[0]
			b = b[1:]
			z.state, z.left = stateSize, 1
			if z.flags&zmtpLong != 0 {
				z.left = 8
			}
		case stateSize:
			width := 1
			if z.flags&zmtpLong != 0 {
				width = 8
			}
			z.size[uint64(width)-z.left] = b[0]
			b = b[1:]
			if z.left--; z.left > 0 {
				continue
			}
			size := uint64(z.size[0])
			if width == 8 {
				size = binary.BigEndian.Uint64(z.size[:])
			}
			total := size
			if z.flags&zmtpCommand == 0 {
				total += z.message
			}
			if size > z.max || total > z.max {
				return errMessageTooLarge{size: total, max: z.max}
			}
			if z.flags&zmtpCommand == 0 {
				z.message = total
				if z.flags&zmtpMore == 0 {
					z.message = 0
				}
			}
			z.state, z.left = stateBody, size
			if size == 0 {
				z.state = stateFlags
				z.ready = z.ready || z.flags&zmtpCommand != 0
			}
		}
	}
	return nil
}
