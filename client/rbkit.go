package client

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"os"
	"strconv"
	"sync"
	"time"

	"github.com/go-zeromq/zmq4"

	"github.com/proftop/proftop/decode"
	"github.com/proftop/proftop/protocol"
)

// RbkitConfig tells an RbkitSource where the profiled Ruby process is.
type RbkitConfig struct {
	Host    string // default 127.0.0.1 (rbkit binds loopback only: tunnel to it)
	PubPort int    // the PUB socket, data (default 5555)
	ReqPort int    // the REP socket, commands (default 5556)
	// CommandTimeout bounds the wait for a command's reply (default 5 s:
	// rbkit answers from a thread that polls every 150 ms, and can take
	// over a second). After a timeout the REQ socket is made anew.
	CommandTimeout time.Duration
	ConnectTimeout time.Duration // default 5 s
	// Reconnect retries after failures with backoff, like a Session.
	Reconnect    bool
	ReconnectMin time.Duration
	ReconnectMax time.Duration
	// Quiet is how long the PUB socket may stay silent before the server
	// is asked whether it is still there (default 3 s).
	Quiet time.Duration
	// NoStart leaves CPU sampling and memory profiling as they are;
	// otherwise both are started on connecting.
	NoStart bool
	// Record, when set, is the file the frames are written to.
	Record         string
	MaxMessageSize int
}

// Default rbkit ports.
const (
	RbkitPubPort = 5555
	RbkitReqPort = 5556
)

func (c RbkitConfig) withDefaults() RbkitConfig {
	if c.Host == "" {
		c.Host = "127.0.0.1"
	}
	if c.PubPort == 0 {
		c.PubPort = RbkitPubPort
	}
	if c.ReqPort == 0 {
		c.ReqPort = RbkitReqPort
	}
	if c.CommandTimeout <= 0 {
		c.CommandTimeout = 5 * time.Second
	}
	if c.ConnectTimeout <= 0 {
		c.ConnectTimeout = 5 * time.Second
	}
	if c.ReconnectMin <= 0 {
		c.ReconnectMin = 500 * time.Millisecond
	}
	if c.ReconnectMax <= 0 {
		c.ReconnectMax = 30 * time.Second
	}
	if c.Quiet <= 0 {
		c.Quiet = 3 * time.Second
	}
	if c.MaxMessageSize <= 0 {
		c.MaxMessageSize = decode.DefaultMaxMessageSize
	}
	return c
}

// endpoint is a port's ZeroMQ endpoint, its messages bounded by
// MaxMessageSize (see boundedTCP).
func (c RbkitConfig) endpoint(port int) string {
	return boundedEndpoint(c.Host, port, c.MaxMessageSize)
}

// The rbkit commands (protocol 2.1; the seed document's names are wrong).
const (
	rbkitCmdHandshake   = "handshake"
	rbkitCmdStartCPU    = "start_cpu_profiling"
	rbkitCmdStopCPU     = "stop_cpu_profiling"
	rbkitCmdCPUClock    = "use_cpu_time"
	rbkitCmdWallClock   = "use_wall_time"
	rbkitCmdStartMemory = "start_memory_profile"
	rbkitCmdStopMemory  = "stop_memory_profile"
	rbkitCmdGC          = "trigger_gc"
	rbkitCmdSnapshot    = "objectspace_snapshot"
)

// The keys of the rbkit commands.
const (
	RbkitKeyCPU      = "C"
	RbkitKeyMemory   = "M"
	RbkitKeyClock    = "W"
	RbkitKeyGC       = "X"
	RbkitKeySnapshot = "O"
)

// errCommandTimeout is a command whose reply did not come in time.
var errCommandTimeout = errors.New("no reply in time")

// errNoGreeting is a connection that the server took and never greeted.
var errNoGreeting = errors.New("no ZeroMQ greeting")

// errNoREQSocket is a REQ socket that could not be made anew after a
// timeout: the server accepts no connection, or greets none.
var errNoREQSocket = errors.New("no REQ socket")

// ProtocolError is a server that speaks another rbkit protocol.
type ProtocolError struct{ Got string }

func (e *ProtocolError) Error() string {
	return fmt.Sprintf("the rbkit server speaks protocol %q; proftop speaks %q", e.Got, decode.RbkitProtocol)
}

// RbkitSource watches a Ruby process through the rbkit profiler: a SUB
// socket for the data (each frame decoded as it comes, and recorded as
// received) and a REQ socket for commands, kept up by reconnecting.
type RbkitSource struct {
	cfg   RbkitConfig
	track *tracker
	pump  *pump
	rec   *recorder

	// turn lets one command at a time use the REQ socket (REQ/REP is
	// lock-step); waiting for it is bounded, as is all a command does.
	turn chan struct{}

	mu     sync.Mutex
	req    zmq4.Socket     // nil after a timeout: the next command makes one anew
	conn   context.Context // the connection's, which a REQ socket made anew lives in
	hs     decode.RbkitHandshake
	cpu    bool
	memory bool
	clock  string // "cpu" or "wall"
	busy   string // the key of the command awaiting its reply
	resets int    // REQ sockets made anew after a timeout, of this process
	up     bool   // a connection is up: commands may be sent

	// lostBefore is the frames lost by the connections before this one to
	// the same process; counter is the latest frame counter of this
	// process (-1: none), and restarted says its stream ended when the
	// counter went back: a server started again, which the next handshake
	// may not tell (sameProcess). Only the Run goroutine touches them.
	lostBefore int64
	counter    int64
	restarted  bool

	// refused is the SUB connection's frame over --max-message-size
	// (zmtp.go), for the stream to end with; refusal keeps the latest of
	// either connection's for a command whose reply it was (or that a
	// frame's refusal interrupted), which otherwise fails with the closed
	// socket's words.
	refused chan error
	refusal error // under mu
}

// rbkitUnfilled is what rbkit's data never fills, live or replayed.
var rbkitUnfilled = []Unfilled{{Pane: PaneMonitors,
	Why: "rbkit reports no locks: a Ruby process's monitors and mutexes are not traced, so this pane stays empty."}}

// NewRbkitSource returns a source; call Run.
func NewRbkitSource(cfg RbkitConfig) *RbkitSource {
	cfg = cfg.withDefaults()
	name := fmt.Sprintf("rbkit %s:%d/%d", cfg.Host, cfg.PubPort, cfg.ReqPort)
	t := newTracker(name)
	t.st.Unfilled = rbkitUnfilled
	s := &RbkitSource{cfg: cfg, track: t, pump: newPump(t), clock: "cpu", turn: make(chan struct{}, 1), refused: make(chan error, 1), counter: -1}
	if cfg.Record != "" {
		s.rec = &recorder{base: cfg.Record}
	}
	return s
}

func (s *RbkitSource) Batches() <-chan *Batch { return s.pump.out }
func (s *RbkitSource) Recycle(b *Batch)       { s.pump.recycle(b) }
func (s *RbkitSource) Status() Status         { return s.track.snapshot() }

// Run connects, streams and reconnects until ctx ends.
func (s *RbkitSource) Run(ctx context.Context) error {
	defer close(s.pump.out)
	defer func() {
		if s.rec != nil {
			s.rec.stop()
		}
	}()
	attempt := 0
	for {
		streamed, err := s.connectAndStream(ctx)
		if ctx.Err() != nil {
			s.track.setState(StateDisconnected, "stopped")
			return nil
		}
		if streamed {
			attempt = 0
		}
		attempt++
		cause := s.describe(err)
		if !s.cfg.Reconnect {
			s.track.setState(StateDisconnected, cause)
			return errors.New(cause)
		}
		wait := backoff(attempt, s.cfg.ReconnectMin, s.cfg.ReconnectMax)
		s.track.update(func(st *Status) {
			st.State, st.Cause, st.Attempt, st.RetryAt = StateReconnecting, cause, attempt, time.Now().Add(wait)
		})
		select {
		case <-time.After(wait):
		case <-ctx.Done():
			s.track.setState(StateDisconnected, "stopped")
			return nil
		}
	}
}

// describe turns a failure into a sentence for the user.
func (s *RbkitSource) describe(err error) string {
	var pe *ProtocolError
	switch {
	case err == nil:
		return "the rbkit server ended the stream"
	case errors.As(err, &pe):
		return pe.Error()
	case errors.Is(err, errCommandTimeout):
		return err.Error() + ": is the Ruby process busy, or stopped?"
	case errors.Is(err, io.EOF):
		return fmt.Sprintf("the rbkit server at %s went away", s.cfg.Host)
	}
	return err.Error()
}

// quietLogger keeps the ZeroMQ library's complaints off the terminal.
var quietLogger = log.New(io.Discard, "", 0)

// dial opens a socket of rbkit's; zmq4's own retries are off, the
// source's backoff does that.
func (s *RbkitSource) dial(ctx context.Context, open func(context.Context, ...zmq4.Option) zmq4.Socket, port int) (zmq4.Socket, error) {
	sock := open(ctx, zmq4.WithLogger(quietLogger), zmq4.WithDialerTimeout(s.cfg.ConnectTimeout),
		zmq4.WithDialerMaxRetries(0), zmq4.WithTimeout(s.cfg.CommandTimeout))
	if err := sock.Dial(s.cfg.endpoint(port)); err != nil {
		sock.Close()
		where := net.JoinHostPort(s.cfg.Host, strconv.Itoa(port))
		if errors.Is(err, os.ErrDeadlineExceeded) {
			// Connected, and no greeting came (zmtp.go).
			return nil, fmt.Errorf("%s took the connection but did not answer within %v: is the Ruby process stopped (kill -STOP) or hung? (%w)",
				where, s.cfg.ConnectTimeout, errNoGreeting)
		}
		return nil, fmt.Errorf("cannot connect to %s: is the Ruby process running with rbkit, on these ports? (%w)", where, unwrapDial(err))
	}
	return sock, nil
}

// unwrapDial keeps the cause of a dial failure and drops zmq4's wording.
func unwrapDial(err error) error {
	if u := errors.Unwrap(err); u != nil {
		return u
	}
	return err
}

// connectAndStream runs one connection: SUB first (so that nothing the
// handshake provokes is missed), then REQ, the handshake, the start
// commands, and the frames until the server goes away.
func (s *RbkitSource) connectAndStream(ctx context.Context) (streamed bool, err error) {
	s.track.update(func(st *Status) { st.State, st.Cause = StateConnecting, "" })
	conn, cancel := context.WithCancel(ctx)
	defer cancel()
	s.set(func() { s.refusal = nil })
	select {
	case <-s.refused: // a former connection's
	default:
	}
	// A frame too large ends the stream (the SUB socket would receive
	// nothing more); a reply too large fails its command only, whose REQ
	// socket is made anew.
	defer onRefusal(s.refuse, net.JoinHostPort(s.cfg.Host, strconv.Itoa(s.cfg.PubPort)))()
	defer onRefusal(s.refuseReply, net.JoinHostPort(s.cfg.Host, strconv.Itoa(s.cfg.ReqPort)))()
	sub, err := s.dial(conn, zmq4.NewSub, s.cfg.PubPort)
	if err != nil {
		return false, err
	}
	defer sub.Close()
	if err := sub.SetOption(zmq4.OptionSubscribe, ""); err != nil {
		return false, err
	}
	req, err := s.dial(conn, zmq4.NewReq, s.cfg.ReqPort)
	if err != nil {
		return false, err
	}
	s.set(func() { s.req, s.conn = req, conn })
	defer s.set(func() {
		if s.req != nil {
			s.req.Close()
		}
		s.req, s.conn, s.up = nil, nil, false
	})

	s.track.setState(StateNegotiating, "")
	reply, err := s.command(conn, rbkitCmdHandshake)
	if err != nil {
		return false, fmt.Errorf("handshake: %w", err)
	}
	hs, another, err := s.handshake(reply)
	if err != nil {
		return false, err
	}
	s.mu.Lock()
	s.up = true
	s.mu.Unlock()
	if !s.cfg.NoStart {
		if !hs.CPUProfiling {
			if _, err := s.command(conn, rbkitCmdStartCPU); err != nil {
				return false, fmt.Errorf("%s: %w", rbkitCmdStartCPU, err)
			}
			s.set(func() { s.cpu = true })
		}
		if !hs.ObjectTrace {
			if _, err := s.command(conn, rbkitCmdStartMemory); err != nil {
				return false, fmt.Errorf("%s: %w", rbkitCmdStartMemory, err)
			}
			s.set(func() { s.memory = true })
		}
	}
	stream := 0
	s.track.update(func(st *Status) {
		st.Streams++
		st.State, st.Attempt, st.Format, st.Negotiation = StateStreaming, 0, decode.FormatRbkit, OutcomeHandshake
		stream = st.Streams
	})
	if another || s.pump.stream == 0 {
		// Another process: a stream of its own. The same one found again
		// goes on in the stream it was in: its threads, and the objects
		// it made before (whose frees are still to come), are the same.
		s.pump.stream = stream
	}
	if s.rec != nil {
		path, err := s.rec.start(decode.FormatRbkit, stream)
		if err != nil {
			return true, err
		}
		s.track.update(func(st *Status) { st.Recording = path })
		// The handshake reply first: a replay then knows the process.
		if err := s.rec.write(reply); err != nil {
			return true, err
		}
	}
	// The handshake as events too (the process, rbkit's version), as a
	// replay of the recording gives them.
	frames := decode.NewRbkitFrames(decode.Options{MaxMessageSize: s.cfg.MaxMessageSize})
	if evs, err := frames.Decode(reply, 0); err == nil {
		for _, ev := range evs {
			if pc, ok := ev.(*decode.ProcessCreate); ok {
				// Which process this is, for the picture: under the same
				// pid (pid 1 in a container), a process started again is
				// told from the one found again only here (sameProcess).
				pc.ProcessID = pc.ProcessID + "/" + strconv.Itoa(s.pump.stream)
			}
			if err := s.pump.add(conn, ev); err != nil {
				return true, err
			}
		}
		if err := s.pump.flush(conn); err != nil {
			return true, err
		}
	}
	if s.counter >= 0 {
		frames.After(s.counter) // the same process, found again: its counter goes on
	}
	return true, s.stream(conn, sub, hs, frames)
}

// handshake checks the reply and takes the server's state from it; another
// says it is not the process of the connection before (sameProcess).
func (s *RbkitSource) handshake(reply []byte) (hs decode.RbkitHandshake, another bool, err error) {
	hs, err = decode.ParseRbkitHandshake(reply)
	if err != nil {
		return hs, false, err
	}
	if hs.ProtocolVersion != decode.RbkitProtocol {
		return hs, false, &ProtocolError{Got: hs.ProtocolVersion}
	}
	s.mu.Lock()
	another = !sameProcess(s.hs, s.cpu, s.memory, hs) || s.restarted
	s.hs, s.cpu, s.memory, s.clock = hs, hs.CPUProfiling, hs.ObjectTrace, hs.Clock
	s.restarted = false
	if another {
		s.resets, s.counter = 0, -1
	}
	resets := s.resets
	s.mu.Unlock()
	s.track.update(func(st *Status) {
		st.Agent, st.Facts = rbkitProcess(hs)
		if resets > 0 {
			st.Facts = setFact(st.Facts, "REQ resets", strconv.Itoa(resets))
		}
		// Frames lost are counted per process (its counter goes on across
		// clients): another process's count starts again.
		if another {
			st.Lost = 0
		}
		s.lostBefore = st.Lost
	})
	return hs, another, nil
}

// sameProcess says a handshake is of the process the one before was of:
// its pid, name and directory, and the profiling proftop left on (cpu,
// memory) still on. A process started again under the same pid (pid 1 in
// a container) has all off, and must not go on in the dead one's stream,
// its threads running and its objects live for ever.
func sameProcess(before decode.RbkitHandshake, cpu, memory bool, now decode.RbkitHandshake) bool {
	return before.PID != 0 && now.PID == before.PID && now.ProcessName == before.ProcessName && now.Pwd == before.Pwd &&
		(!cpu || now.CPUProfiling) && (!memory || now.ObjectTrace)
}

// rbkitProcess is who a handshake says the process is, for the header:
// its name, pid and rbkit's version, its working directory first of the facts.
func rbkitProcess(hs decode.RbkitHandshake) (protocol.Agent, []Fact) {
	return protocol.Agent{ID: strconv.FormatInt(hs.PID, 10), PID: int(hs.PID), Name: hs.ProcessName, Type: "rbkit", Version: hs.ServerVersion},
		[]Fact{{"pwd", hs.Pwd}, {"rbkit", hs.ServerVersion + ", protocol " + hs.ProtocolVersion}}
}

func (s *RbkitSource) set(f func()) {
	s.mu.Lock()
	f()
	s.mu.Unlock()
}

// received is one PUB frame, or the error that ended the subscription.
type received struct {
	frame []byte
	err   error
}

// stream decodes the frames until the server goes away or ctx ends. When
// the PUB socket is quiet for a while the server is asked for a handshake:
// no answer twice running (no reply, or no REQ socket made anew) means it
// is stopped or hung, and it is said, then reconnected; another pid means
// it restarted.
func (s *RbkitSource) stream(ctx context.Context, sub zmq4.Socket, hs decode.RbkitHandshake, frames *decode.RbkitFrames) error {
	in := make(chan received, 16)
	go func() {
		for {
			msg, err := sub.Recv()
			if err == nil && len(msg.Frames) == 0 {
				continue
			}
			r := received{err: err}
			if err == nil {
				r.frame = msg.Frames[0]
			}
			select {
			case in <- r:
			case <-ctx.Done():
				return
			}
			if err != nil {
				return
			}
		}
	}()
	defer s.pump.flush(context.Background())
	quiet := time.NewTimer(s.cfg.Quiet)
	defer quiet.Stop()
	var offset int64
	unanswered := 0
	heard := time.Now() // the latest frame or reply
	defer s.track.update(func(st *Status) { st.Warning = "" })
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case err := <-s.refused:
			return err
		case r := <-in:
			if r.err != nil {
				if ctx.Err() != nil {
					return ctx.Err()
				}
				return r.err
			}
			quiet.Reset(s.cfg.Quiet)
			heard = time.Now()
			if unanswered > 0 {
				unanswered = 0
				s.track.update(func(st *Status) { st.Warning = "" })
			}
			s.track.addBytes(int64(len(r.frame)))
			if s.rec != nil {
				if err := s.rec.write(r.frame); err != nil {
					return err
				}
			}
			evs, err := frames.Decode(r.frame, offset)
			offset += int64(len(r.frame))
			if err != nil {
				s.track.decodeError(err)
				continue
			}
			for _, ev := range evs {
				if err := s.pump.add(ctx, ev); err != nil {
					return err
				}
			}
			if lost := frames.Lost(); lost > 0 {
				s.track.update(func(st *Status) { st.Lost = s.lostBefore + lost })
			}
			if frames.Restarts() > 0 {
				s.restarted = true
				return errors.New("the rbkit server restarted (its frame counter began again)")
			}
			s.counter = max(s.counter, frames.Counter())
			if len(in) == 0 {
				if err := s.pump.flush(ctx); err != nil {
					return err
				}
			}
		case <-quiet.C:
			reply, err := s.command(ctx, rbkitCmdHandshake)
			switch {
			case err == nil:
				heard = time.Now()
				if unanswered > 0 {
					unanswered = 0
					s.track.update(func(st *Status) { st.Warning = "" })
				}
				now, perr := decode.ParseRbkitHandshake(reply)
				switch {
				case perr != nil:
					s.track.decodeError(perr)
				case now.PID != hs.PID:
					return fmt.Errorf("the rbkit server restarted (pid %d, was %d)", now.PID, hs.PID)
				default:
					s.set(func() { s.cpu, s.memory, s.clock = now.CPUProfiling, now.ObjectTrace, now.Clock })
				}
			case ctx.Err() != nil:
				return ctx.Err()
			case errors.Is(err, errCommandTimeout) || errors.Is(err, errNoREQSocket):
				silent := time.Since(heard).Round(time.Second)
				if unanswered++; unanswered >= 2 {
					return fmt.Errorf("the rbkit server answered neither data nor commands for %v: is the Ruby process stopped or hung?", silent)
				}
				// Since a time of day, not for a span: the warning stays up
				// until the next look, and a span would not grow with it.
				since := heard.Local().Format("15:04:05")
				s.track.update(func(st *Status) {
					st.Warning = fmt.Sprintf("the rbkit server has sent nothing since %s and answers no command: is the Ruby process stopped or hung? Reconnecting if it stays so.", since)
				})
			default:
				return err
			}
			quiet.Reset(s.cfg.Quiet)
		}
	}
}

// refuse takes the SUB connection's refusal of a frame over the bound.
func (s *RbkitSource) refuse(err error) {
	s.refuseReply(err)
	select {
	case s.refused <- err:
	default:
	}
}

// refuseReply takes the REQ connection's refusal of a reply over the
// bound, for the command waiting for it to say.
func (s *RbkitSource) refuseReply(err error) { s.set(func() { s.refusal = err }) }

// command sends one command and waits for its reply, within the command
// timeout (and the connect timeout, when the REQ socket must be made
// anew). A REQ socket whose reply did not come is stuck (it may not send
// again): after a timeout it is closed, and the next command makes one.
func (s *RbkitSource) command(ctx context.Context, cmd string) ([]byte, error) {
	wait := time.NewTimer(s.cfg.CommandTimeout)
	defer wait.Stop()
	select {
	case s.turn <- struct{}{}:
	case <-wait.C:
		return nil, fmt.Errorf("%w: %q waited %v for another command's reply", errCommandTimeout, cmd, s.cfg.CommandTimeout)
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	defer func() { <-s.turn }()
	req, err := s.reqSocket()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", cmd, err)
	}
	type reply struct {
		b   []byte
		err error
	}
	done := make(chan reply, 1)
	go func() {
		if err := req.Send(zmq4.NewMsgString(cmd)); err != nil {
			done <- reply{err: err}
			return
		}
		msg, err := req.Recv()
		if err == nil && len(msg.Frames) == 0 {
			err = errors.New("an empty reply")
		}
		if err != nil {
			done <- reply{err: err}
			return
		}
		done <- reply{b: msg.Frames[0]}
	}()
	timer := time.NewTimer(s.cfg.CommandTimeout)
	defer timer.Stop()
	select {
	case r := <-done:
		if r.err != nil {
			s.mu.Lock()
			refusal := s.refusal
			s.mu.Unlock()
			if refusal != nil {
				return nil, fmt.Errorf("%s: %w", cmd, refusal) // its reply, or a frame meanwhile, was too large
			}
			return nil, fmt.Errorf("%s: %w", cmd, r.err)
		}
		return r.b, nil
	case <-timer.C:
	case <-ctx.Done():
	}
	req.Close() // ends the goroutine's wait
	resets := 0
	s.set(func() {
		if s.req == req {
			s.req = nil
		}
		s.resets++
		resets = s.resets
	})
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	s.track.update(func(st *Status) { st.Facts = setFact(st.Facts, "REQ resets", strconv.Itoa(resets)) })
	return nil, fmt.Errorf("%w: %q got no reply within %v; the REQ socket is made anew for the next command", errCommandTimeout, cmd, s.cfg.CommandTimeout)
}

// reqSocket is the REQ socket to send on: the connection's, or one made
// anew after a timeout. The dial holds no lock and is bounded (by the
// connect timeout, the ZMTP handshake too: zmtp.go), for a process that
// is stopped accepts the connection and never greets.
func (s *RbkitSource) reqSocket() (zmq4.Socket, error) {
	s.mu.Lock()
	req, conn := s.req, s.conn
	s.mu.Unlock()
	if req != nil {
		return req, nil
	}
	if conn == nil || conn.Err() != nil {
		return nil, errors.New("not connected to the rbkit server")
	}
	fresh, err := s.dial(conn, zmq4.NewReq, s.cfg.ReqPort)
	if err != nil {
		return nil, fmt.Errorf("%w: the REQ socket could not be made anew: %v", errNoREQSocket, err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.conn != conn || conn.Err() != nil {
		fresh.Close() // the connection ended meanwhile
		return nil, errors.New("not connected to the rbkit server")
	}
	s.req = fresh
	return fresh, nil
}

// setFact sets or adds one fact.
func setFact(facts []Fact, key, value string) []Fact {
	for i := range facts {
		if facts[i].Key == key {
			out := append([]Fact(nil), facts...)
			out[i].Value = value
			return out
		}
	}
	return append(append([]Fact(nil), facts...), Fact{key, value})
}

// Commands lists what the interface may ask of rbkit.
func (s *RbkitSource) Commands() []Command {
	s.mu.Lock()
	defer s.mu.Unlock()
	clock := "CPU clock"
	if s.clock == "wall" {
		clock = "wall clock"
	}
	// The toggles' states are the server's, known while connected to it:
	// never connected, or gone, they would be guesses.
	unknown := !s.up
	return []Command{
		{Key: RbkitKeyCPU, Label: "CPU sampling", Short: "CPU", Toggle: true, On: s.cpu, Unknown: unknown, Busy: s.busy == RbkitKeyCPU},
		{Key: RbkitKeyMemory, Label: "memory profiling", Short: "memory", Toggle: true, On: s.memory, Unknown: unknown, Busy: s.busy == RbkitKeyMemory},
		{Key: RbkitKeyClock, Label: "wall/CPU clock", Short: "clock", Toggle: true, On: s.clock == "wall", State: clock, Unknown: unknown,
			Busy: s.busy == RbkitKeyClock},
		{Key: RbkitKeyGC, Label: "force a GC", Short: "GC", Busy: s.busy == RbkitKeyGC},
		{Key: RbkitKeySnapshot, Label: "object-space snapshot", Short: "snapshot", Busy: s.busy == RbkitKeySnapshot, Census: true},
	}
}

// Do runs the command of a key. The clock applies to the next start of
// sampling, so switching it while sampling restarts the sampling.
func (s *RbkitSource) Do(ctx context.Context, key string) (string, error) {
	s.mu.Lock()
	if !s.up {
		s.mu.Unlock()
		return "", errors.New("not connected to the rbkit server")
	}
	if s.busy != "" {
		s.mu.Unlock()
		return "", errors.New("a command is already waiting for its reply")
	}
	s.busy = key
	cpu, memory, wall := s.cpu, s.memory, s.clock == "wall"
	s.mu.Unlock()
	defer s.set(func() { s.busy = "" })
	run := func(cmds ...string) error {
		for _, c := range cmds {
			if _, err := s.command(ctx, c); err != nil {
				return err
			}
		}
		return nil
	}
	switch key {
	case RbkitKeyCPU:
		if cpu {
			if err := run(rbkitCmdStopCPU); err != nil {
				return "", err
			}
			s.set(func() { s.cpu = false })
			return "CPU sampling stopped", nil
		}
		if err := run(rbkitCmdStartCPU); err != nil {
			return "", err
		}
		s.set(func() { s.cpu = true })
		return "CPU sampling started", nil
	case RbkitKeyMemory:
		if memory {
			if err := run(rbkitCmdStopMemory); err != nil {
				return "", err
			}
			s.set(func() { s.memory = false })
			return "memory profiling stopped", nil
		}
		if err := run(rbkitCmdStartMemory); err != nil {
			return "", err
		}
		s.set(func() { s.memory = true })
		return "memory profiling started", nil
	case RbkitKeyClock:
		use, clock := rbkitCmdWallClock, "wall"
		if wall {
			use, clock = rbkitCmdCPUClock, "cpu"
		}
		cmds := []string{use}
		if cpu {
			cmds = []string{rbkitCmdStopCPU, use, rbkitCmdStartCPU}
		}
		if err := run(cmds...); err != nil {
			return "", err
		}
		s.set(func() { s.clock = clock })
		return "sampling on the " + clock + " clock", nil
	case RbkitKeyGC:
		if err := run(rbkitCmdGC); err != nil {
			return "", err
		}
		return "garbage collection triggered", nil
	case RbkitKeySnapshot:
		if err := run(rbkitCmdSnapshot); err != nil {
			return "", err
		}
		return "object-space snapshot asked for: the census shows in the Objects pane when it has arrived", nil
	}
	return "", fmt.Errorf("no rbkit command on key %q", key)
}
