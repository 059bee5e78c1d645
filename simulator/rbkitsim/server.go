// Package rbkitsim is a fake rbkit server: a Ruby process profiled by
// rbkit, as proftop sees it over ZeroMQ (a PUB socket for the data, a REP
// socket for the commands, protocol "2.1"). It serves a synthetic Ruby
// workload, or frames given to it (real captures, hostile ones), so that
// tests and `proftop demo --rbkit` need no Ruby.
package rbkitsim

import (
	"bytes"
	"context"
	"io"
	"log"
	"net"
	"strconv"
	"sync"
	"time"

	"github.com/go-zeromq/zmq4"
	"github.com/vmihailenco/msgpack/v5"
)

// Config shapes the fake server.
type Config struct {
	// PubAddr and ReqAddr are where to listen (default 127.0.0.1:0: any
	// free port).
	PubAddr, ReqAddr string
	// Protocol is the protocol version the handshake names (default "2.1").
	Protocol string
	PID      int
	// Workload publishes the synthetic Ruby workload while profiling is on.
	Workload bool
	Seed     uint64
	// Flush is how often a frame of the events gathered is published
	// (rbkit: every second, or every 400 events; default 500 ms).
	Flush time.Duration
	// Frames are published as they are, one every FrameEvery, after a
	// client has subscribed (their counters are theirs).
	Frames     [][]byte
	FrameEvery time.Duration
	// Lose makes the frame counter skip this many numbers now and then, as
	// rbkit's does when a signal interrupts a send.
	Lose int
	// Delay, when set, holds the reply to a command this long.
	Delay func(cmd string) time.Duration
	// Reply, when set and not nil for a command, is its reply instead of
	// the usual one (a reply too large for the client, say).
	Reply func(cmd string) []byte
	// Freezable puts a relay in front of both sockets, so that Freeze can
	// stop the server as kill -STOP does a Ruby process (freeze.go).
	Freezable bool
	// Profiling starts with CPU sampling and memory profiling on, as a
	// Ruby application that turns them on itself at boot.
	Profiling bool
}

// Server is a running fake rbkit server.
type Server struct {
	cfg      Config
	pub, rep zmq4.Socket
	gates    []*gate // Freezable: the pub's and the rep's
	ctx      context.Context
	cancel   context.CancelFunc
	wg       sync.WaitGroup

	mu       sync.Mutex
	cpu      bool
	memory   bool
	wall     bool
	counter  int64
	commands []string
	gcNow    bool
	dump     bool
	ruby     *ruby
}

// Start listens and serves until Close.
func Start(cfg Config) (*Server, error) {
	if cfg.PubAddr == "" {
		cfg.PubAddr = "127.0.0.1:0"
	}
	if cfg.ReqAddr == "" {
		cfg.ReqAddr = "127.0.0.1:0"
	}
	if cfg.Protocol == "" {
		cfg.Protocol = "2.1"
	}
	if cfg.PID == 0 {
		cfg.PID = 4242
	}
	if cfg.Flush <= 0 {
		cfg.Flush = 500 * time.Millisecond
	}
	if cfg.FrameEvery <= 0 {
		cfg.FrameEvery = 20 * time.Millisecond
	}
	ctx, cancel := context.WithCancel(context.Background())
	quiet := zmq4.WithLogger(log.New(io.Discard, "", 0))
	s := &Server{cfg: cfg, ctx: ctx, cancel: cancel, pub: zmq4.NewPub(ctx, quiet), rep: zmq4.NewRep(ctx, quiet),
		ruby: newRuby(cfg.Seed), cpu: cfg.Profiling, memory: cfg.Profiling}
	pubAddr, repAddr := cfg.PubAddr, cfg.ReqAddr
	if cfg.Freezable {
		pubAddr, repAddr = "127.0.0.1:0", "127.0.0.1:0" // behind the gates
	}
	if err := s.pub.Listen("tcp://" + pubAddr); err != nil {
		s.Close()
		return nil, err
	}
	if err := s.rep.Listen("tcp://" + repAddr); err != nil {
		s.Close()
		return nil, err
	}
	if cfg.Freezable {
		for _, p := range []struct {
			addr string
			sock zmq4.Socket
		}{{cfg.PubAddr, s.pub}, {cfg.ReqAddr, s.rep}} {
			g, err := newGate(p.addr, p.sock.Addr().String())
			if err != nil {
				s.Close()
				return nil, err
			}
			s.gates = append(s.gates, g)
		}
	}
	s.wg.Add(2)
	go s.serveCommands()
	go s.publish()
	return s, nil
}

// PubPort and ReqPort are the ports listened on.
func (s *Server) PubPort() int {
	if len(s.gates) == 2 {
		return s.gates[0].port()
	}
	return s.pub.Addr().(*net.TCPAddr).Port
}

func (s *Server) ReqPort() int {
	if len(s.gates) == 2 {
		return s.gates[1].port()
	}
	return s.rep.Addr().(*net.TCPAddr).Port
}

// Freeze stops the server as kill -STOP stops a Ruby process: connections
// are still accepted and what clients send is taken, but nothing comes
// back, neither frames, replies, nor a new connection's greeting. Thaw
// lets it go on. Both need Config.Freezable.
func (s *Server) Freeze() {
	for _, g := range s.gates {
		g.freeze()
	}
}

func (s *Server) Thaw() {
	for _, g := range s.gates {
		g.thaw()
	}
}

// Close stops the server: its sockets close, as when the Ruby process exits.
func (s *Server) Close() error {
	for _, g := range s.gates {
		g.close()
	}
	s.cancel()
	s.pub.Close()
	s.rep.Close()
	s.wg.Wait()
	return nil
}

// Commands lists the commands received, in order.
func (s *Server) Commands() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.commands...)
}

// Profiling says whether CPU sampling and memory profiling are on, and
// whether the clock is the wall clock.
func (s *Server) Profiling() (cpu, memory, wall bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.cpu, s.memory, s.wall
}

// serveCommands answers the REP socket: "ok" to every command (unknown
// ones too, as rbkit does), the handshake map to "handshake".
func (s *Server) serveCommands() {
	defer s.wg.Done()
	for {
		msg, err := s.rep.Recv()
		if err != nil {
			return
		}
		cmd := ""
		if len(msg.Frames) > 0 {
			cmd = string(msg.Frames[0])
		}
		if s.cfg.Delay != nil {
			if d := s.cfg.Delay(cmd); d > 0 {
				select {
				case <-time.After(d):
				case <-s.ctx.Done():
					return
				}
			}
		}
		reply := []byte("ok")
		s.mu.Lock()
		s.commands = append(s.commands, cmd)
		switch cmd {
		case "handshake":
			reply = s.handshake()
		case "start_cpu_profiling":
			s.cpu = true
		case "stop_cpu_profiling":
			s.cpu = false
		case "use_wall_time":
			s.wall = true
		case "use_cpu_time":
			s.wall = false
		case "start_memory_profile":
			s.memory = true
		case "stop_memory_profile":
			s.memory = false
		case "trigger_gc":
			s.gcNow = true
		case "objectspace_snapshot":
			s.dump = true
		}
		s.mu.Unlock()
		if s.cfg.Reply != nil {
			if r := s.cfg.Reply(cmd); r != nil {
				reply = r
			}
		}
		// A reply to a client that gave up on it (and closed its REQ
		// socket) goes nowhere; the server goes on, as rbkit's does.
		s.rep.Send(zmq4.NewMsg(reply))
	}
}

// handshake is the reply to "handshake", as rbkit 0.1.10 packs it.
func (s *Server) handshake() []byte {
	flag := func(b bool) int {
		if b {
			return 1
		}
		return 0
	}
	clock := "cpu"
	if s.wall {
		clock = "wall"
	}
	var buf bytes.Buffer
	e := msgpack.NewEncoder(&buf)
	e.EncodeMapLen(3)
	e.EncodeInt(0)
	e.EncodeInt(8)
	e.EncodeInt(1)
	e.EncodeFloat64(nowMS())
	e.EncodeInt(2)
	e.EncodeMapLen(9)
	for _, kv := range []struct {
		k string
		v any
	}{
		{"rbkit_server_version", "0.1.10"}, {"rbkit_protocol_version", s.cfg.Protocol},
		{"process_name", "/srv/ledger/bin/reconcile.rb"}, {"pwd", "/srv/ledger"}, {"pid", s.cfg.PID},
		{"object_trace_enabled", flag(s.memory)}, {"cpu_profiling_enabled", flag(s.cpu)},
		{"clock_type", clock}, {"cpu_profiling_mode", "sampling"},
	} {
		e.EncodeString(kv.k)
		e.Encode(kv.v)
	}
	return buf.Bytes()
}

func nowMS() float64 { return float64(time.Now().UnixNano()) / 1e6 }

// published sends one frame to the subscribers (none: it is dropped, as
// a PUB socket does).
func (s *Server) published(frame []byte) error {
	return s.pub.Send(zmq4.NewMsg(frame))
}

// publish sends the given frames, then the workload's.
func (s *Server) publish() {
	defer s.wg.Done()
	if len(s.cfg.Frames) > 0 {
		if !s.waitForCommands() {
			return
		}
		for _, f := range s.cfg.Frames {
			if s.published(f) != nil {
				return
			}
			select {
			case <-time.After(s.cfg.FrameEvery):
			case <-s.ctx.Done():
				return
			}
		}
	}
	if !s.cfg.Workload {
		return
	}
	tick := time.NewTicker(s.cfg.Flush)
	defer tick.Stop()
	last := time.Now()
	for {
		select {
		case <-s.ctx.Done():
			return
		case now := <-tick.C:
			s.mu.Lock()
			cpu, memory, wall, gcNow, dump := s.cpu, s.memory, s.wall, s.gcNow, s.dump
			s.gcNow, s.dump = false, false
			s.mu.Unlock()
			frames := s.ruby.run(now.Sub(last), cpu, memory, wall, gcNow, dump)
			last = now
			for _, events := range frames {
				if err := s.published(s.collection(events)); err != nil {
					return
				}
			}
		}
	}
}

// waitForCommands holds the given frames until a client has sent its
// first command: by then its SUB socket is connected (it connects first).
func (s *Server) waitForCommands() bool {
	for {
		s.mu.Lock()
		n := len(s.commands)
		s.mu.Unlock()
		if n > 0 {
			return true
		}
		select {
		case <-time.After(10 * time.Millisecond):
		case <-s.ctx.Done():
			return false
		}
	}
}

// collection packs events into an event_collection frame with the next
// counter.
func (s *Server) collection(events []rawEvent) []byte {
	s.mu.Lock()
	counter := s.counter
	s.counter++
	if s.cfg.Lose > 0 && counter%7 == 6 {
		s.counter += int64(s.cfg.Lose)
	}
	s.mu.Unlock()
	var buf bytes.Buffer
	e := msgpack.NewEncoder(&buf)
	e.EncodeMapLen(4)
	e.EncodeInt(0)
	e.EncodeInt(7)
	e.EncodeInt(1)
	e.EncodeFloat64(nowMS())
	e.EncodeInt(9)
	e.EncodeInt(counter)
	e.EncodeInt(2)
	e.EncodeArrayLen(len(events))
	for _, ev := range events {
		buf.Write(ev)
	}
	return buf.Bytes()
}

// Addr is 127.0.0.1:port, to listen on a port again (a restart).
func Addr(port int) string { return net.JoinHostPort("127.0.0.1", strconv.Itoa(port)) }
