package rbkitsim

import (
	"io"
	"net"
	"sync"
)

// A Ruby process stopped (kill -STOP) or hung keeps its sockets: the
// kernel still accepts connections and takes what is sent, and nothing
// answers, not even ZeroMQ's greeting. A gate is a TCP relay in front of
// one of the server's sockets that can freeze so.

type gate struct {
	ln     net.Listener
	target string

	mu     sync.Mutex
	thawed chan struct{} // closed while the gate lets bytes through
	conns  []net.Conn
	closed bool

	done chan struct{}
	wg   sync.WaitGroup
}

// newGate listens on addr and relays to target.
func newGate(addr, target string) (*gate, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, err
	}
	g := &gate{ln: ln, target: target, thawed: make(chan struct{}), done: make(chan struct{})}
	close(g.thawed)
	g.wg.Add(1)
	go g.serve()
	return g, nil
}

func (g *gate) port() int { return g.ln.Addr().(*net.TCPAddr).Port }

func (g *gate) serve() {
	defer g.wg.Done()
	for {
		c, err := g.ln.Accept()
		if err != nil {
			return
		}
		if !g.track(c) {
			return
		}
		g.wg.Add(1)
		go g.carry(c)
	}
}

// track remembers a connection, to close it with the gate.
func (g *gate) track(c net.Conn) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.closed {
		c.Close()
		return false
	}
	g.conns = append(g.conns, c)
	return true
}

// carry connects a client to the server once the gate is open, and relays
// both ways.
func (g *gate) carry(client net.Conn) {
	defer g.wg.Done()
	if !g.open() {
		return
	}
	server, err := net.Dial("tcp", g.target)
	if err != nil || !g.track(server) {
		client.Close()
		return
	}
	g.wg.Add(2)
	go g.pass(server, client)
	go g.pass(client, server)
}

// pass copies from src to dst while the gate is open; frozen, what src
// sends is read and held, as a stopped process's kernel buffers it.
func (g *gate) pass(dst, src net.Conn) {
	defer g.wg.Done()
	defer dst.Close()
	buf := make([]byte, 32<<10)
	for {
		n, err := src.Read(buf)
		if n > 0 {
			if !g.open() {
				return
			}
			if _, werr := dst.Write(buf[:n]); werr != nil {
				return
			}
		}
		if err != nil {
			if err != io.EOF {
				src.Close()
			}
			return
		}
	}
}

// open waits for the gate to be open; false when it closed meanwhile.
func (g *gate) open() bool {
	g.mu.Lock()
	thawed := g.thawed
	g.mu.Unlock()
	select {
	case <-thawed:
		return true
	case <-g.done:
		return false
	}
}

func (g *gate) freeze() {
	g.mu.Lock()
	defer g.mu.Unlock()
	select {
	case <-g.thawed:
		g.thawed = make(chan struct{})
	default:
	}
}

func (g *gate) thaw() {
	g.mu.Lock()
	defer g.mu.Unlock()
	select {
	case <-g.thawed:
	default:
		close(g.thawed)
	}
}

func (g *gate) close() {
	g.mu.Lock()
	if g.closed {
		g.mu.Unlock()
		return
	}
	g.closed = true
	close(g.done)
	g.ln.Close()
	for _, c := range g.conns {
		c.Close()
	}
	g.mu.Unlock()
	g.wg.Wait()
}
