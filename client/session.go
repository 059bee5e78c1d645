package client

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/proftop/proftop/decode"
	"github.com/proftop/proftop/protocol"
)

// FormatChoice is what the user asked for.
type FormatChoice string

const (
	FormatAuto   FormatChoice = "auto"   // ask for binary, accept XML
	FormatBinary FormatChoice = "binary" // binary or nothing
	FormatXML    FormatChoice = "xml"    // do not ask: XML, as an old client gets
)

// Config tells a Session where to connect and how.
type Config struct {
	Host string
	Port int
	// Agent picks one of several agents by id, pid or name.
	Agent string
	// Token authenticates to a controller that requires it.
	Token  string
	Format FormatChoice
	// ConnectTimeout bounds dialing (default 5 s); NegotiationTimeout bounds
	// the wait for each command's reply (default 3 s).
	ConnectTimeout     time.Duration
	NegotiationTimeout time.Duration
	// Reconnect makes Run retry forever after failures, with exponential
	// backoff from ReconnectMin (0.5 s) to ReconnectMax (30 s).
	Reconnect    bool
	ReconnectMin time.Duration
	ReconnectMax time.Duration
	// Record, when set, is the file the data stream is written to.
	Record string
	// MaxMessageSize bounds a decoded message; MaxPayload a frame.
	MaxMessageSize int
	MaxPayload     int
	// ReadBuffer is the bytes buffered under the frame reader (default
	// 256 KiB) and BatchEvents the events a batch holds at most (default
	// 4,096): with the dozen batches a session keeps in flight and for
	// reuse, what one connection holds at most.
	ReadBuffer  int
	BatchEvents int
	// Gone, when set, says whether the watched process has exited (proftop
	// attach knows its pid): a session whose connection ends with the
	// process gone ends too, instead of reconnecting to nothing.
	Gone func() (bool, string)
	// Telemetry and Probes are the application's own series and probes the
	// user asks the agent for (telemetry.go).
	Telemetry []string
	Probes    []string
}

func (c Config) withDefaults() Config {
	if c.Port == 0 {
		c.Port = protocol.DefaultPort
	}
	if c.Format == "" {
		c.Format = FormatAuto
	}
	if c.ConnectTimeout <= 0 {
		c.ConnectTimeout = 5 * time.Second
	}
	if c.NegotiationTimeout <= 0 {
		c.NegotiationTimeout = 3 * time.Second
	}
	if c.ReconnectMin <= 0 {
		c.ReconnectMin = 500 * time.Millisecond
	}
	if c.ReconnectMax <= 0 {
		c.ReconnectMax = 30 * time.Second
	}
	return c
}

// Address is host:port.
func (c Config) Address() string {
	return net.JoinHostPort(c.Host, strconv.Itoa(c.Port))
}

// Session is a live connection to a profiler, kept up by reconnecting.
type Session struct {
	cfg   Config
	track *tracker
	pump  *pump
	rec   *recorder

	mu     sync.Mutex
	choice string        // the agent the user picked while choosing
	chosen chan struct{} // signalled when choice changes
}

// NewSession returns a session; call Run.
func NewSession(cfg Config) *Session {
	cfg = cfg.withDefaults()
	t := newTracker(cfg.Address())
	s := &Session{cfg: cfg, track: t, pump: newPump(t), choice: cfg.Agent, chosen: make(chan struct{}, 1)}
	if cfg.BatchEvents > 0 {
		s.pump.size = cfg.BatchEvents
	}
	if cfg.Record != "" {
		s.rec = &recorder{base: cfg.Record}
	}
	return s
}

func (s *Session) Batches() <-chan *Batch { return s.pump.out }
func (s *Session) Recycle(b *Batch)       { s.pump.recycle(b) }
func (s *Session) Status() Status         { return s.track.snapshot() }

// SelectAgent picks an agent (id, pid or name) when the controller offers
// several; the session then connects to it.
func (s *Session) SelectAgent(spec string) {
	s.mu.Lock()
	s.choice = spec
	s.mu.Unlock()
	select {
	case s.chosen <- struct{}{}:
	default:
	}
}

// errChoose means the controller has several agents and none was picked.
var errChoose = errors.New("several agents: choose one")

// Run connects, streams and reconnects until ctx ends.
func (s *Session) Run(ctx context.Context) error {
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
		if errors.Is(err, errChoose) {
			select {
			case <-s.chosen:
				continue
			case <-ctx.Done():
				return nil
			}
		}
		if streamed {
			attempt = 0
		}
		attempt++
		cause := describe(err, s.cfg.Address())
		if s.cfg.Gone != nil {
			if gone, why := s.cfg.Gone(); gone {
				// The JVM may die before its agent says it shuts down: say
				// it for it, so that the last picture shows the process
				// exited and its threads ended (a second telling changes
				// nothing).
				shutdown := &decode.RuntimeShutdown{ThreadMoment: decode.ThreadMoment{Time: s.pump.clock.FromTime(time.Now())}}
				if s.pump.add(ctx, shutdown) == nil {
					s.pump.flush(ctx)
				}
				s.track.setState(StateEnded, why)
				return &ExitedError{Why: why}
			}
		}
		refused := errors.Is(err, syscall.ECONNREFUSED)
		if !s.cfg.Reconnect {
			s.track.setState(StateDisconnected, cause)
			s.track.update(func(st *Status) { st.Refused = refused })
			return errors.New(cause)
		}
		wait := backoff(attempt, s.cfg.ReconnectMin, s.cfg.ReconnectMax)
		s.track.update(func(st *Status) {
			st.State, st.Cause, st.Refused, st.Attempt, st.RetryAt = StateReconnecting, cause, refused, attempt, time.Now().Add(wait)
		})
		select {
		case <-time.After(wait):
		case <-ctx.Done():
			s.track.setState(StateDisconnected, "stopped")
			return nil
		}
	}
}

// ExitedError ends a session whose process exited.
type ExitedError struct{ Why string }

func (e *ExitedError) Error() string { return e.Why }

// backoff doubles from lo to hi with ±20% jitter, so that many clients of
// one restarted profiler do not reconnect in lockstep.
func backoff(attempt int, lo, hi time.Duration) time.Duration {
	d := lo
	for i := 1; i < attempt && d < hi; i++ {
		d *= 2
	}
	d = min(d, hi)
	return d*8/10 + time.Duration(rand.Int64N(int64(d)*4/10+1))
}

// connectAndStream runs one connection from dial to its end. streamed says
// whether events flowed, which resets the backoff.
func (s *Session) connectAndStream(ctx context.Context) (streamed bool, err error) {
	s.track.update(func(st *Status) { st.State, st.Cause, st.Mismatch = StateConnecting, "", "" })
	dialer := net.Dialer{Timeout: s.cfg.ConnectTimeout, KeepAlive: 15 * time.Second}
	conn, err := dialer.DialContext(ctx, "tcp", s.cfg.Address())
	if err != nil {
		return false, err
	}
	defer conn.Close()
	stop := context.AfterFunc(ctx, func() { conn.Close() })
	defer stop()

	c := newControl(conn, s.cfg.MaxPayload, s.cfg.ReadBuffer)
	s.track.setState(StateNegotiating, "")
	agent, err := s.attach(c)
	if err != nil {
		return false, err
	}
	format, err := s.negotiate(c)
	if err != nil {
		return false, err
	}
	refused, err := s.chooseTelemetry(c)
	if err != nil {
		return false, err
	}
	if err := c.expect(&protocol.StartMonitoring{}, s.cfg.NegotiationTimeout, &protocol.MonitoringStarted{}); err != nil {
		return false, fmt.Errorf("startMonitoring: %w", err)
	}
	s.track.update(func(st *Status) {
		st.Agent, st.Agents, st.Format, st.State = agent, nil, format, StateStreaming
		st.Streams++
		st.Attempt = 0
	})
	err = s.stream(ctx, c, format, refused)
	return true, err
}

// attach authenticates, lists the agents, picks one and attaches to it.
func (s *Session) attach(c *control) (protocol.Agent, error) {
	timeout := s.cfg.NegotiationTimeout
	token, from := s.cfg.Token, ""
	if token == "" && isLoopback(s.cfg.Host) {
		// proftop's agent left its token for its user: the owner types nothing.
		token, from = LocalToken(s.cfg.Port)
	}
	if token != "" {
		var in protocol.Authenticated
		if err := c.expect(&protocol.Authenticate{Token: token}, timeout, &in); err != nil {
			err = unanswered(err)
			if busy := (*protocol.ErrorReply)(nil); errors.As(err, &busy) && busy.Code == protocol.CodeBusy {
				// Refused for another client, not for the token: said as it is.
				return protocol.Agent{}, fmt.Errorf("%w (quit the other proftop watching it, or watch it there)", err)
			}
			if from != "" {
				return protocol.Agent{}, fmt.Errorf("authenticate with the token in %s: %w", from, err)
			}
			// Given (--token, PROFTOP_TOKEN or the config file): on this
			// machine, the agent's hint of where its file is says what to
			// give instead, which proftop would have read by itself.
			given := "the token given (--token, PROFTOP_TOKEN or the config file's)"
			if isLoopback(s.cfg.Host) {
				given += ", read instead of the agent's file"
			}
			return protocol.Agent{}, fmt.Errorf("authenticate with %s: %w", given, err)
		}
		if in.LastDrop != nil {
			dropped := describeDrop(in.LastDrop, time.Now())
			s.track.update(func(st *Status) { st.Dropped = dropped })
		}
	}
	var list protocol.AgentList
	if err := c.expect(&protocol.ListAgents{}, timeout, &list); err != nil {
		if token == "" {
			err = unanswered(err)
		}
		return protocol.Agent{}, fmt.Errorf("listAgents: %w", err)
	}
	s.mu.Lock()
	choice := s.choice
	s.mu.Unlock()
	agent, err := pickAgent(list.Agents, choice)
	if err != nil {
		s.track.update(func(st *Status) {
			st.Agents = list.Agents
			if errors.Is(err, errChoose) {
				st.State, st.Cause = StateChoosingAgent, err.Error()
			}
		})
		return protocol.Agent{}, err
	}
	if err := c.expect(&protocol.Attach{AgentID: agent.ID}, timeout, &protocol.Attached{}); err != nil {
		return protocol.Agent{}, fmt.Errorf("attach to agent %s: %w", agent.ID, err)
	}
	c.dest = protocol.AgentEndpoint(agent.ID)
	s.track.update(func(st *Status) { st.Agent, st.Probing, st.ProbeSpecs = agent, true, s.cfg.Probes })
	return agent, nil
}

// isLoopback says host names this machine's loopback interface, where an
// agent of this user may have left its token.
func isLoopback(host string) bool {
	if strings.EqualFold(strings.TrimSuffix(host, "."), "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// pickAgent chooses by id, pid or name; a lone agent needs no choice.
func pickAgent(agents []protocol.Agent, spec string) (protocol.Agent, error) {
	if len(agents) == 0 {
		return protocol.Agent{}, errors.New("the agent controller has no agent: is the JVM running with the profiler?")
	}
	if spec == "" {
		if len(agents) == 1 {
			return agents[0], nil
		}
		return protocol.Agent{}, fmt.Errorf("%w with --agent: %s", errChoose, agentNames(agents))
	}
	var found []protocol.Agent
	for _, a := range agents {
		if a.ID == spec || strconv.Itoa(a.PID) == spec || a.Name == spec {
			found = append(found, a)
		}
	}
	if len(found) == 0 {
		for _, a := range agents {
			if strings.Contains(strings.ToLower(a.Name), strings.ToLower(spec)) {
				found = append(found, a)
			}
		}
	}
	switch len(found) {
	case 1:
		return found[0], nil
	case 0:
		return protocol.Agent{}, fmt.Errorf("%w: no agent matches %q; there are %s", errChoose, spec, agentNames(agents))
	}
	return protocol.Agent{}, fmt.Errorf("%w: %q matches several agents: %s", errChoose, spec, agentNames(found))
}

func agentNames(agents []protocol.Agent) string {
	var parts []string
	for _, a := range agents {
		parts = append(parts, a.String())
	}
	return strings.Join(parts, "; ")
}

// errBinaryRefused is returned when --format binary meets an XML-only profiler.
var errBinaryRefused = errors.New("the profiler cannot send the binary format")

// negotiate settles the output format as the binary format proposal says.
func (s *Session) negotiate(c *control) (decode.Format, error) {
	outcome := func(o Outcome, f decode.Format) (decode.Format, error) {
		s.track.update(func(st *Status) { st.Negotiation, st.Format = o, f })
		return f, nil
	}
	if s.cfg.Format == FormatXML {
		return outcome(OutcomeNotAsked, decode.FormatXML)
	}
	m, err := c.call(&protocol.SetOutputFormat{Format: "binary"}, s.cfg.NegotiationTimeout)
	switch {
	case errors.Is(err, errNoReply):
		if s.cfg.Format == FormatBinary {
			s.track.update(func(st *Status) { st.Negotiation = OutcomeRefused })
			return 0, fmt.Errorf("%w: it did not answer setOutputFormat within %v", errBinaryRefused, s.cfg.NegotiationTimeout)
		}
		return outcome(OutcomeTimeout, decode.FormatXML)
	case err != nil:
		return 0, fmt.Errorf("setOutputFormat: %w", err)
	}
	if e := m.AsError(); e != nil {
		if s.cfg.Format == FormatBinary {
			s.track.update(func(st *Status) { st.Negotiation = OutcomeRefused })
			return 0, fmt.Errorf("%w: it answered setOutputFormat with %s", errBinaryRefused, e)
		}
		if e.Code == protocol.CodeUnrecognizedCommand {
			return outcome(OutcomeUnrecognized, decode.FormatXML)
		}
		return 0, fmt.Errorf("setOutputFormat: %w", e)
	}
	var enabled protocol.EnabledOutputFormat
	if err := m.Decode(&enabled); err != nil {
		return 0, fmt.Errorf("setOutputFormat: %w", err)
	}
	switch enabled.Format {
	case "binary":
		return outcome(OutcomeNegotiated, decode.FormatBinary)
	case "xml":
		if s.cfg.Format == FormatBinary {
			s.track.update(func(st *Status) { st.Negotiation = OutcomeRefused })
			return 0, fmt.Errorf("%w: it enabled xml instead", errBinaryRefused)
		}
		return outcome(OutcomeNegotiated, decode.FormatXML)
	}
	return 0, fmt.Errorf("setOutputFormat: the profiler enabled an unknown format %q", enabled.Format)
}

// stream decodes the data frames until the connection ends.
func (s *Session) stream(ctx context.Context, c *control, negotiated decode.Format, refused []decode.Event) error {
	streamNo := s.track.snapshot().Streams
	s.pump.stream = streamNo
	for _, ev := range refused {
		if err := s.pump.add(ctx, ev); err != nil {
			return err
		}
	}
	var pending [][]byte // received before the recording file could be named
	recording := false
	dr := &dataReader{
		c: c,
		beforeWait: func() {
			s.pump.flush(ctx)
		},
		onData: func(p []byte) error {
			s.track.addBytes(int64(len(p)))
			if s.rec == nil || len(p) == 0 {
				return nil
			}
			if !recording {
				pending = append(pending, append([]byte(nil), p...))
				return nil
			}
			return s.rec.write(p)
		},
	}
	dr.lowWater = newLowWater(c.conn)
	format, zipped, whole, err := decode.SniffStream(dr)
	if err != nil {
		if de := (*decode.Error)(nil); errors.As(err, &de) {
			return fmt.Errorf("the data stream is neither binary nor XML: %s", de.Detail)
		}
		return err
	}
	if zipped {
		// A zip's directory is at its end: it cannot be decoded as it arrives.
		return errors.New("the data stream is a zip archive, which cannot be decoded live (record it with --record and replay the file)")
	}
	if format != negotiated {
		mismatch := fmt.Sprintf("negotiated %s but the stream is %s; decoding it as %s", negotiated, format, format)
		s.track.update(func(st *Status) { st.Mismatch, st.Format = mismatch, format })
	}
	if s.rec != nil {
		path, err := s.rec.start(format, streamNo)
		if err != nil {
			return err
		}
		s.track.update(func(st *Status) { st.Recording = path })
		for _, p := range pending {
			if err := s.rec.write(p); err != nil {
				return err
			}
		}
		pending, recording = nil, true
	}
	dec := decode.NewDecoder(format, whole, decode.Options{MaxMessageSize: s.cfg.MaxMessageSize})
	defer s.pump.flush(context.Background())
	appender, _ := dec.(batchAppender)
	batch := s.pump.decodeBatch // made once: a method value in the loop would be allocated per event
	for {
		var err error
		if appender != nil {
			err = appender.AppendNext(batch)
		} else {
			var ev decode.Event
			if ev, err = dec.Next(); err == nil {
				s.pump.batch().Add(ev)
			}
		}
		if err != nil {
			var de *decode.Error
			if errors.As(err, &de) && !de.Fatal {
				s.track.decodeError(err)
				continue
			}
			s.pump.clock = dec.Clock()
			if ferr := s.pump.flush(ctx); ferr != nil {
				return ferr
			}
			if errors.Is(err, decode.ErrTruncated) && errors.As(err, &de) {
				// A live stream ends inside a message only when its
				// connection does: the data was cut, not malformed.
				return &CutError{Offset: de.Offset}
			}
			if errors.As(err, &de) {
				s.track.decodeError(err)
			}
			return err
		}
		s.pump.clock = dec.Clock()
		if err := s.pump.added(ctx); err != nil {
			return err
		}
	}
}

// batchAppender is a decoder that adds each event to a batch itself,
// decoding most of them straight into the batch's storage.
type batchAppender interface {
	AppendNext(batch func() *decode.Batch) error
}

// CutError says the connection ended in the middle of a message of the
// trace, at stream offset Offset (that message's start).
type CutError struct{ Offset int64 }

func (e *CutError) Error() string {
	return fmt.Sprintf("the connection ended in the middle of a message (trace offset %d)", e.Offset)
}

// UnansweredError says the profiler closed the connection (or reset it)
// before it answered the first command.
type UnansweredError struct{ Err error }

func (e *UnansweredError) Error() string { return "closed before answering: " + e.Err.Error() }
func (e *UnansweredError) Unwrap() error { return e.Err }

// unanswered marks the end of a connection before the first answer.
func unanswered(err error) error {
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, syscall.ECONNRESET) {
		return &UnansweredError{Err: err}
	}
	return err
}

// maxDropText bounds the reason a profiler gives for an earlier drop, as
// proftop keeps and shows it.
const maxDropText = 512

// describeDrop says when and why the profiler ended this user's previous
// connection, as it told this one.
func describeDrop(d *protocol.Drop, now time.Time) string {
	why := d.Code
	if msg := strings.TrimSpace(d.Message); msg != "" {
		if len(msg) > maxDropText {
			msg = strings.ToValidUTF8(msg[:maxDropText], "") + "…"
		}
		why += ": " + msg
	}
	at := now.Add(-time.Duration(max(d.MsAgo, 0)) * time.Millisecond)
	return fmt.Sprintf("the profiler dropped the previous connection at %s (%s)", at.Local().Format("15:04:05"), why)
}

// describe turns a connection failure into a sentence for the user.
func describe(err error, addr string) string {
	if err == nil {
		return "the profiler ended the stream"
	}
	var dnsErr *net.DNSError
	var pe *protocol.Error
	var de *decode.Error
	var er *protocol.ErrorReply
	var ended *EndedError
	var cut *CutError
	var unans *UnansweredError
	switch {
	case errors.As(err, &unans):
		return fmt.Sprintf("%s closed the connection without answering: a profiler flooded with connections closes some unanswered"+
			" (is another user flooding it?)", addr)
	case errors.As(err, &cut):
		return fmt.Sprintf("%s closed the connection in the middle of a message (trace offset %d): the stream was cut, not malformed"+
			" (proftop's agent cuts a client that stops reading for long, and tells its next connection why)", addr, cut.Offset)
	case errors.As(err, &dnsErr):
		return fmt.Sprintf("cannot resolve host %q: %v", dnsErr.Name, dnsErr.Err)
	case errors.Is(err, syscall.ECONNREFUSED):
		return fmt.Sprintf("connection refused by %s: is the profiler's agent controller running there?", addr)
	case errors.Is(err, syscall.ECONNRESET):
		return fmt.Sprintf("connection reset by %s", addr)
	case errors.Is(err, errNoReply):
		return fmt.Sprintf("%s did not answer in time", addr)
	case errors.Is(err, io.ErrUnexpectedEOF):
		return fmt.Sprintf("%s closed the connection in the middle of a frame", addr)
	case errors.Is(err, io.EOF):
		return fmt.Sprintf("%s closed the connection", addr)
	case errors.As(err, &pe):
		return fmt.Sprintf("%s broke the protocol: %v", addr, pe)
	case errors.As(err, &de):
		return fmt.Sprintf("the trace stream from %s is malformed: %v", addr, de)
	case errors.As(err, &ended):
		return fmt.Sprintf("%s ended the connection: %v", addr, ended)
	case errors.As(err, &er):
		return fmt.Sprintf("%s refused: %v", addr, err)
	}
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return fmt.Sprintf("no answer from %s (timed out)", addr)
	}
	return err.Error()
}
