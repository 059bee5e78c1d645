package simulator

import (
	"errors"
	"fmt"
	"io"
	"net"
	"strconv"
	"sync"
	"time"

	"github.com/proftop/proftop/decode"
	"github.com/proftop/proftop/protocol"
)

// ServerConfig shapes the simulated agent controller.
type ServerConfig struct {
	// Agents is the number of profiled JVMs the controller offers (default 1).
	Agents int
	// Legacy behaves like a profiler from before the binary format: XML
	// only, and setOutputFormat is an unrecognized command.
	Legacy bool
	// Rate is events per second per client (default 20,000); Saturate
	// sends as fast as the connection takes them instead.
	Rate     int
	Saturate bool
	Seed     uint64
	// Aggregated reports method activity as agMethodEntry.
	Aggregated bool
	// Token, when set, must be presented with authenticate first.
	Token string
	// DeadlockEvery and DeadlockFor tune the deadlocks (see Config).
	DeadlockEvery time.Duration
	DeadlockFor   time.Duration
	// SilentOnSetOutputFormat swallows setOutputFormat without an answer,
	// as a hung or very slow profiler would (used to test client timeouts).
	SilentOnSetOutputFormat bool
	// Logf receives one line per connection event; nil means silence.
	Logf func(format string, args ...any)
}

// Server is a simulated agent controller.
type Server struct {
	cfg    ServerConfig
	agents []protocol.Agent

	mu       sync.Mutex
	listener net.Listener
	conns    map[net.Conn]struct{}
	closed   bool
	wg       sync.WaitGroup
}

var agentNames = []string{"com.acme.shop.Main", "com.acme.billing.SettlementService", "org.example.inventory.InventoryApp", "com.acme.search.Indexer"}

// NewServer returns a server; call Serve or ListenAndServe.
func NewServer(cfg ServerConfig) *Server {
	if cfg.Agents <= 0 {
		cfg.Agents = 1
	}
	s := &Server{cfg: cfg, conns: map[net.Conn]struct{}{}}
	version := "1.0"
	if cfg.Legacy {
		version = "0.9"
	}
	for i := range cfg.Agents {
		s.agents = append(s.agents, protocol.Agent{ID: strconv.Itoa(i + 1), PID: 4242 + 17*i, Name: agentNames[i%len(agentNames)],
			Type: "Profiler", Version: version})
	}
	return s
}

// Agents lists the agents the server offers.
func (s *Server) Agents() []protocol.Agent { return s.agents }

// ListenAndServe listens on addr and serves until Close.
func (s *Server) ListenAndServe(addr string) error {
	l, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	return s.Serve(l)
}

// Listen opens the listening socket and serves in the background; it
// returns the address actually bound (useful with port 0).
func (s *Server) Listen(addr string) (net.Addr, error) {
	l, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, err
	}
	go s.Serve(l)
	return l.Addr(), nil
}

// Serve accepts connections on l until Close.
func (s *Server) Serve(l net.Listener) error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		l.Close()
		return net.ErrClosed
	}
	s.listener = l
	s.mu.Unlock()
	for {
		c, err := l.Accept()
		if err != nil {
			s.mu.Lock()
			closed := s.closed
			s.mu.Unlock()
			if closed {
				return nil
			}
			return err
		}
		s.mu.Lock()
		if s.closed {
			s.mu.Unlock()
			c.Close()
			return nil
		}
		s.conns[c] = struct{}{}
		s.wg.Add(1)
		s.mu.Unlock()
		go func() {
			defer s.wg.Done()
			s.serveConn(c)
			s.mu.Lock()
			delete(s.conns, c)
			s.mu.Unlock()
		}()
	}
}

// Close stops listening, drops every connection and waits for them.
func (s *Server) Close() error {
	s.mu.Lock()
	s.closed = true
	if s.listener != nil {
		s.listener.Close()
	}
	for c := range s.conns {
		c.Close()
	}
	s.mu.Unlock()
	s.wg.Wait()
	return nil
}

func (s *Server) logf(format string, args ...any) {
	if s.cfg.Logf != nil {
		s.cfg.Logf(format, args...)
	}
}

// session is one client connection.
type session struct {
	s      *Server
	conn   net.Conn
	fw     *protocol.FrameWriter
	authed bool
	agent  int // attached agent index, or -1
	format decode.Format
	stream *streamer
}

func (s *Server) serveConn(c net.Conn) {
	s.logf("client %s connected", c.RemoteAddr())
	ss := &session{s: s, conn: c, fw: protocol.NewFrameWriter(c, 0), authed: s.cfg.Token == "", agent: -1, format: decode.FormatXML}
	defer func() {
		ss.stopStream()
		c.Close()
	}()
	fr := protocol.NewFrameReader(c, 0)
	for {
		f, err := fr.Next()
		if err != nil {
			if !errors.Is(err, io.EOF) && !errors.Is(err, net.ErrClosed) {
				s.logf("client %s: %v", c.RemoteAddr(), err)
			} else {
				s.logf("client %s disconnected", c.RemoteAddr())
			}
			return
		}
		if f.Data {
			s.logf("client %s sent a data frame; closing", c.RemoteAddr())
			return
		}
		m, err := protocol.ParseMessage(f.Payload)
		if err != nil {
			ss.reply(protocol.Message{Src: protocol.ClientName}, &protocol.ErrorReply{Code: protocol.CodeBadRequest, Message: err.Error()})
			continue
		}
		if err := ss.handle(m); err != nil {
			s.logf("client %s: %v", c.RemoteAddr(), err)
			return
		}
	}
}

func (ss *session) self() string {
	if ss.agent >= 0 {
		return protocol.AgentEndpoint(ss.s.agents[ss.agent].ID)
	}
	return protocol.ControllerName
}

func (ss *session) reply(to protocol.Message, body any) error {
	payload, err := protocol.EncodeMessage(ss.self(), to.Src, to.Ctxt, body)
	if err != nil {
		return err
	}
	return ss.fw.WriteFrame(false, payload)
}

func (ss *session) fail(to protocol.Message, code, format string, args ...any) error {
	return ss.reply(to, &protocol.ErrorReply{Code: code, Message: fmt.Sprintf(format, args...)})
}

func (ss *session) handle(m protocol.Message) error {
	cfg := &ss.s.cfg
	if m.Name == "authenticate" {
		var a protocol.Authenticate
		// Without a token of its own the controller takes any: a client
		// may present one it found for another profiler on this port.
		if m.Decode(&a) != nil || (cfg.Token != "" && a.Token != cfg.Token) {
			return ss.fail(m, protocol.CodeUnauthorized, "wrong token")
		}
		ss.authed = true
		return ss.reply(m, &protocol.Authenticated{})
	}
	if !ss.authed {
		return ss.fail(m, protocol.CodeUnauthorized, "this controller requires a token: send <authenticate token=\"…\"/> first")
	}
	switch m.Name {
	case "listAgents":
		return ss.reply(m, &protocol.AgentList{Agents: ss.s.agents})
	case "attach":
		var a protocol.Attach
		if err := m.Decode(&a); err != nil {
			return ss.fail(m, protocol.CodeBadRequest, "%v", err)
		}
		for i, ag := range ss.s.agents {
			if ag.ID == a.AgentID {
				ss.stopStream()
				ss.stream = nil
				ss.agent, ss.format = i, decode.FormatXML
				return ss.reply(m, &protocol.Attached{AgentID: ag.ID})
			}
		}
		return ss.fail(m, protocol.CodeNoSuchAgent, "no agent %q on this controller", a.AgentID)
	case "setOutputFormat":
		if cfg.Legacy {
			break
		}
		if cfg.SilentOnSetOutputFormat {
			return nil
		}
		if ss.agent < 0 {
			return ss.fail(m, protocol.CodeNotAttached, "attach to an agent first")
		}
		var so protocol.SetOutputFormat
		if err := m.Decode(&so); err != nil {
			return ss.fail(m, protocol.CodeBadRequest, "%v", err)
		}
		if ss.stream != nil {
			return ss.fail(m, protocol.CodeBadRequest, "the stream has begun in %s", ss.format)
		}
		switch so.Format {
		case "binary":
			ss.format = decode.FormatBinary
		case "xml":
			ss.format = decode.FormatXML
		default:
			return ss.fail(m, protocol.CodeUnsupportedFormat, "format %q: this agent sends binary or xml", so.Format)
		}
		return ss.reply(m, &protocol.EnabledOutputFormat{Format: ss.format.String()})
	case "startMonitoring":
		if ss.agent < 0 {
			return ss.fail(m, protocol.CodeNotAttached, "attach to an agent first")
		}
		if err := ss.reply(m, &protocol.MonitoringStarted{}); err != nil {
			return err
		}
		ss.startStream()
		return nil
	case "stopMonitoring":
		if ss.agent < 0 {
			return ss.fail(m, protocol.CodeNotAttached, "attach to an agent first")
		}
		ss.stopStream()
		return ss.reply(m, &protocol.MonitoringStopped{})
	case "chooseTelemetry":
		if cfg.Legacy {
			break
		}
		return ss.chooseTelemetry(m)
	case "detach":
		if ss.agent < 0 {
			return ss.fail(m, protocol.CodeNotAttached, "not attached")
		}
		ss.stopStream()
		ss.stream, ss.agent = nil, -1
		return ss.reply(m, &protocol.Detached{})
	}
	return ss.fail(m, protocol.CodeUnrecognizedCommand, "unrecognized command <%s>", m.Name)
}

// chooseTelemetry answers a client that asks for the application's own
// series: the simulated JVM has no MBeans or events of its own beyond the
// task runtime's, which it publishes anyway, so it refuses each, saying so.
func (ss *session) chooseTelemetry(m protocol.Message) error {
	if ss.agent < 0 {
		return ss.fail(m, protocol.CodeNotAttached, "attach to an agent first")
	}
	var c protocol.ChooseTelemetry
	if err := m.Decode(&c); err != nil {
		return ss.fail(m, protocol.CodeBadRequest, "%v", err)
	}
	const why = "the simulated profiler has no MBeans or JFR events to read (its task runtime's series come anyway); watch a JVM with proftop's agent"
	out := protocol.TelemetryChosen{}
	for _, s := range c.Series {
		out.Series = append(out.Series, protocol.SpecItem{Spec: s.Spec, Error: why})
	}
	for _, s := range c.Probes {
		out.Probes = append(out.Probes, protocol.SpecItem{Spec: s.Spec, Error: why})
	}
	return ss.reply(m, &out)
}

func (ss *session) startStream() {
	if ss.stream == nil {
		cfg := ss.s.cfg
		ag := ss.s.agents[ss.agent]
		world := NewWorld(Config{Seed: cfg.Seed + uint64(ss.agent), Rate: cfg.Rate, Aggregated: cfg.Aggregated,
			DeadlockEvery: cfg.DeadlockEvery, DeadlockFor: cfg.DeadlockFor, PID: ag.PID, Name: ag.Name})
		ss.stream = newStreamer(world, ss.format, ss.fw, cfg.Saturate)
		ss.s.logf("client %s: streaming agent %s in %s", ss.conn.RemoteAddr(), ag.ID, ss.format)
	}
	ss.stream.start()
}

func (ss *session) stopStream() {
	if ss.stream != nil {
		ss.stream.stop()
	}
}

// streamer encodes a world's events into data frames, paced to the wall
// clock or flat out.
type streamer struct {
	world    *World
	write    func(decode.Event) error
	flush    func() error
	saturate bool

	quit chan struct{}
	done chan struct{}
	// Virtual time runs with the wall clock while streaming; a pause shifts it.
	wallStart    time.Time
	virtualStart time.Time
}

// frameSink turns an encoder's writes into data frames. Frames are cut
// every dataFrameSize bytes, wherever that falls, as a real agent's buffer
// would: inside messages, strings and stacks.
type frameSink struct{ fw *protocol.FrameWriter }

const dataFrameSize = 16000

func (f frameSink) Write(p []byte) (int, error) {
	for rest := p; len(rest) > 0; {
		n := min(len(rest), dataFrameSize)
		if err := f.fw.WriteFrame(true, rest[:n]); err != nil {
			return 0, err
		}
		rest = rest[n:]
	}
	return len(p), nil
}

func newStreamer(w *World, format decode.Format, fw *protocol.FrameWriter, saturate bool) *streamer {
	st := &streamer{world: w, saturate: saturate}
	sink := frameSink{fw}
	if format == decode.FormatBinary {
		enc := decode.NewEncoder(sink, decode.EncoderOptions{})
		st.write, st.flush = enc.Encode, enc.Flush
	} else {
		xw := decode.NewXMLWriter(sink)
		st.write, st.flush = xw.Write, xw.Flush
	}
	return st
}

func (st *streamer) start() {
	if st.quit != nil {
		return // already running
	}
	st.quit, st.done = make(chan struct{}), make(chan struct{})
	st.wallStart, st.virtualStart = time.Now(), st.world.Now()
	go st.run()
}

func (st *streamer) stop() {
	if st.quit == nil {
		return
	}
	close(st.quit)
	<-st.done
	st.quit, st.done = nil, nil
}

func (st *streamer) run() {
	defer close(st.done)
	if st.saturate {
		for {
			select {
			case <-st.quit:
				st.flush()
				return
			default:
			}
			for range 4096 {
				if st.write(st.world.Next()) != nil {
					return
				}
			}
		}
	}
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	for {
		target := st.virtualStart.Add(time.Since(st.wallStart))
		for st.world.Now().Before(target) {
			if st.write(st.world.Next()) != nil {
				return
			}
		}
		if st.flush() != nil {
			return
		}
		select {
		case <-st.quit:
			return
		case <-tick.C:
		}
	}
}
