package client

import (
	"context"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/proftop/proftop/decode"
	"github.com/proftop/proftop/protocol"
	"github.com/proftop/proftop/simulator"
)

// startSim runs a simulated controller on a loopback port.
func startSim(t *testing.T, cfg simulator.ServerConfig, addr string) (*simulator.Server, int) {
	t.Helper()
	if addr == "" {
		addr = "127.0.0.1:0"
	}
	srv := simulator.NewServer(cfg)
	a, err := srv.Listen(addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	return srv, a.(*net.TCPAddr).Port
}

// consumer drains a source, counting events per kind and stream.
type consumer struct {
	mu      sync.Mutex
	kinds   map[decode.Kind]int
	streams map[int]int
	events  []string // JSON of the first keep events
	keep    int
	done    chan struct{}
	// starts are the processes' start times, as each ProcessCreate says,
	// and processes their ids.
	starts    []decode.Ticks
	processes []string
}

func consume(src Source, keep int) *consumer {
	c := &consumer{kinds: map[decode.Kind]int{}, streams: map[int]int{}, keep: keep, done: make(chan struct{})}
	go func() {
		defer close(c.done)
		for b := range src.Batches() {
			c.mu.Lock()
			for _, ev := range b.Events() {
				c.kinds[ev.Kind()]++
				c.streams[b.Stream]++
				if pc, ok := ev.(*decode.ProcessCreate); ok {
					c.starts = append(c.starts, pc.Time)
					c.processes = append(c.processes, pc.ProcessID)
				}
				if len(c.events) < c.keep {
					c.events = append(c.events, string(decode.AppendJSON(nil, ev, b.Clock, nil)))
				}
			}
			c.mu.Unlock()
			src.Recycle(b)
		}
	}()
	return c
}

func (c *consumer) count(k decode.Kind) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.kinds[k]
}

func (c *consumer) total() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := 0
	for _, v := range c.kinds {
		n += v
	}
	return n
}

// waitFor polls cond until it holds or the deadline passes.
func waitFor(t *testing.T, what string, d time.Duration, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(d)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func run(t *testing.T, cfg Config) (*Session, *consumer, context.CancelFunc) {
	t.Helper()
	cfg.Host = "127.0.0.1"
	s := NewSession(cfg)
	ctx, cancel := context.WithCancel(context.Background())
	c := consume(s, 2000)
	done := make(chan struct{})
	go func() { s.Run(ctx); close(done) }()
	t.Cleanup(func() {
		cancel()
		<-done
		<-c.done
	})
	return s, c, cancel
}

// The three client/profiler combinations of the proposal's table.
func TestNegotiationCombinations(t *testing.T) {
	for _, tc := range []struct {
		name    string
		legacy  bool
		format  FormatChoice
		want    decode.Format
		outcome Outcome
	}{
		{"old client, new profiler", false, FormatXML, decode.FormatXML, OutcomeNotAsked},
		{"new client, old profiler", true, FormatAuto, decode.FormatXML, OutcomeUnrecognized},
		{"new client, new profiler", false, FormatAuto, decode.FormatBinary, OutcomeNegotiated},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, port := startSim(t, simulator.ServerConfig{Legacy: tc.legacy, Seed: 1}, "")
			s, c, _ := run(t, Config{Port: port, Format: tc.format})
			waitFor(t, "method events", 10*time.Second, func() bool { return c.count(decode.KindMethodExit) > 100 })
			st := s.Status()
			if st.State != StateStreaming || st.Format != tc.want || st.Negotiation != tc.outcome || st.Mismatch != "" {
				t.Fatalf("state %v format %v outcome %v mismatch %q", st.State, st.Format, st.Negotiation, st.Mismatch)
			}
			if st.DecodeErrors != 0 || st.Events == 0 || st.Bytes == 0 {
				t.Fatalf("%+v", st)
			}
			if c.count(decode.KindThreadStart) < 40 || c.count(decode.KindNode) != 1 {
				t.Fatalf("kinds %v", c.kinds)
			}
		})
	}
}

func TestForcedBinaryAgainstAnOldProfilerIsReported(t *testing.T) {
	_, port := startSim(t, simulator.ServerConfig{Legacy: true}, "")
	s, _, _ := run(t, Config{Port: port, Format: FormatBinary, Reconnect: true, ReconnectMin: time.Hour})
	waitFor(t, "a refusal", 5*time.Second, func() bool { return s.Status().State == StateReconnecting })
	st := s.Status()
	if st.Negotiation != OutcomeRefused || !strings.Contains(st.Cause, "cannot send the binary format: it answered setOutputFormat with UNRECOGNIZED_COMMAND") {
		t.Fatalf("%v: %q", st.Negotiation, st.Cause)
	}
}

func TestNegotiationTimeoutFallsBackToXML(t *testing.T) {
	_, port := startSim(t, simulator.ServerConfig{SilentOnSetOutputFormat: true}, "")
	start := time.Now()
	s, c, _ := run(t, Config{Port: port, NegotiationTimeout: 300 * time.Millisecond})
	waitFor(t, "events", 10*time.Second, func() bool { return c.count(decode.KindMethodEntry) > 10 })
	st := s.Status()
	if st.Negotiation != OutcomeTimeout || st.Format != decode.FormatXML || st.DecodeErrors != 0 {
		t.Fatalf("%v %v %d", st.Negotiation, st.Format, st.DecodeErrors)
	}
	if time.Since(start) < 300*time.Millisecond {
		t.Fatal("did not wait for the answer")
	}
}

func TestAgentSelection(t *testing.T) {
	srv, port := startSim(t, simulator.ServerConfig{Agents: 3}, "")
	agents := srv.Agents()
	// None chosen: the session lists them and waits for a choice.
	s, c, _ := run(t, Config{Port: port})
	waitFor(t, "the agent choice", 5*time.Second, func() bool { return s.Status().State == StateChoosingAgent })
	if st := s.Status(); len(st.Agents) != 3 || !strings.Contains(st.Cause, "--agent") {
		t.Fatalf("%+v", st)
	}
	s.SelectAgent(agents[1].Name)
	waitFor(t, "streaming", 5*time.Second, func() bool { return s.Status().State == StateStreaming && c.total() > 0 })
	if st := s.Status(); st.Agent != agents[1] {
		t.Fatalf("attached to %v, want %v", st.Agent, agents[1])
	}
	// By pid, and by part of a name.
	for spec, want := range map[string]protocol.Agent{strconv.Itoa(agents[2].PID): agents[2], "billing": agents[1], "1": agents[0]} {
		s, _, _ := run(t, Config{Port: port, Agent: spec})
		waitFor(t, "streaming agent "+spec, 5*time.Second, func() bool { return s.Status().State == StateStreaming })
		if got := s.Status().Agent; got != want {
			t.Fatalf("--agent %s attached to %v, want %v", spec, got, want)
		}
	}
}

// The simulator is killed and restarted: the session reports the loss,
// retries with backoff, resumes, and the events of the first stream stay.
func TestReconnectsAfterTheProfilerRestarts(t *testing.T) {
	srv, port := startSim(t, simulator.ServerConfig{Seed: 4}, "")
	s, c, _ := run(t, Config{Port: port, Reconnect: true, ReconnectMin: 100 * time.Millisecond, ReconnectMax: 400 * time.Millisecond})
	waitFor(t, "the first stream", 10*time.Second, func() bool { return c.total() > 1000 })
	srv.Close()
	waitFor(t, "the loss to be noticed", 5*time.Second, func() bool { return s.Status().State == StateReconnecting })
	first := c.total()
	waitFor(t, "a few failed attempts", 5*time.Second, func() bool { return s.Status().Attempt >= 2 })
	st := s.Status()
	if !strings.Contains(st.Cause, "refused") && !strings.Contains(st.Cause, "closed") {
		t.Fatalf("cause %q", st.Cause)
	}
	startSim(t, simulator.ServerConfig{Seed: 5}, fmt.Sprintf("127.0.0.1:%d", port))
	waitFor(t, "the second stream", 10*time.Second, func() bool {
		c.mu.Lock()
		defer c.mu.Unlock()
		return c.streams[2] > 1000
	})
	st = s.Status()
	if st.Streams != 2 || st.State != StateStreaming || st.Attempt != 0 {
		t.Fatalf("%+v", st)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.streams[1] < first {
		t.Fatalf("events of the first stream lost: %d < %d", c.streams[1], first)
	}
}

// fakeController accepts one connection and runs script on it.
func fakeController(t *testing.T, script func(net.Conn)) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				script(c)
			}()
		}
	}()
	return l.Addr().(*net.TCPAddr).Port
}

func TestMalformedFrameIsReportedAndRetried(t *testing.T) {
	port := fakeController(t, func(c net.Conn) {
		c.Write([]byte("SSH-2.0-OpenSSH_9.6\r\n"))
		time.Sleep(time.Second)
	})
	s, _, _ := run(t, Config{Port: port, Reconnect: true, ReconnectMin: time.Hour})
	waitFor(t, "the protocol error", 5*time.Second, func() bool { return s.Status().State == StateReconnecting })
	if cause := s.Status().Cause; !strings.Contains(cause, `bad frame magic "SSH-"`) || !strings.Contains(cause, "broke the protocol") {
		t.Fatalf("cause %q", cause)
	}
}

// A controller that negotiates binary but sends XML: the mismatch is
// reported and the stream is decoded for what it is.
func TestFormatMismatchIsReported(t *testing.T) {
	port := scriptedController(t, func(c net.Conn, fw *protocol.FrameWriter) {
		fw.WriteData([]byte(decode.XMLPrologue + `<threadStart threadId="1" threadName="main"/>` + "\n"))
		time.Sleep(time.Second)
	})
	s, c, _ := run(t, Config{Port: port})
	waitFor(t, "the event", 5*time.Second, func() bool { return c.count(decode.KindThreadStart) == 1 })
	if st := s.Status(); st.Format != decode.FormatXML || !strings.Contains(st.Mismatch, "negotiated binary but the stream is xml") {
		t.Fatalf("format %v mismatch %q", st.Format, st.Mismatch)
	}
}

func TestTokenIsRequiredWhenConfigured(t *testing.T) {
	_, port := startSim(t, simulator.ServerConfig{Token: "s3cret"}, "")
	s, _, _ := run(t, Config{Port: port, Reconnect: true, ReconnectMin: time.Hour})
	waitFor(t, "a refusal", 5*time.Second, func() bool { return s.Status().State == StateReconnecting })
	if cause := s.Status().Cause; !strings.Contains(cause, "UNAUTHORIZED") {
		t.Fatalf("cause %q", cause)
	}
	// A token given, and wrong: the cause says it was the one given, not
	// the agent's file, which the agent's own hint points at.
	w, _, _ := run(t, Config{Port: port, Token: "wrong", Reconnect: true, ReconnectMin: time.Hour})
	waitFor(t, "a refusal of the token given", 5*time.Second, func() bool { return w.Status().State == StateReconnecting })
	if cause := w.Status().Cause; !strings.Contains(cause, "UNAUTHORIZED") || !strings.Contains(cause, "the token given (--token") || !strings.Contains(cause, "instead of the agent's file") {
		t.Fatalf("cause %q", cause)
	}
	_, c, _ := run(t, Config{Port: port, Token: "s3cret"})
	waitFor(t, "events", 5*time.Second, func() bool { return c.total() > 100 })
}

func TestUnreachableHostsAreDescribed(t *testing.T) {
	l, _ := net.Listen("tcp", "127.0.0.1:0")
	closedPort := l.Addr().(*net.TCPAddr).Port
	l.Close()
	for _, tc := range []struct {
		host string
		port int
		want string
	}{
		{"127.0.0.1", closedPort, "connection refused by 127.0.0.1:"},
		{"no-such-host.invalid", 10002, `cannot resolve host "no-such-host.invalid"`},
	} {
		s := NewSession(Config{Host: tc.host, Port: tc.port})
		err := s.Run(context.Background())
		if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(s.Status().Cause, tc.want) {
			t.Errorf("%s:%d: %v", tc.host, tc.port, err)
		}
		// A refusal is told apart from the rest, not by its words.
		if refused := strings.HasPrefix(tc.want, "connection refused"); s.Status().Refused != refused {
			t.Errorf("%s:%d: refused %v, want %v", tc.host, tc.port, s.Status().Refused, refused)
		}
	}
}

// What a session records replays as the same events.
func TestRecordThenReplay(t *testing.T) {
	for _, format := range []FormatChoice{FormatAuto, FormatXML} {
		t.Run(string(format), func(t *testing.T) {
			_, port := startSim(t, simulator.ServerConfig{Seed: 9}, "")
			dir := t.TempDir()
			base := filepath.Join(dir, "capture.trcbin")
			s, c, cancel := run(t, Config{Port: port, Format: format, Record: base})
			waitFor(t, "events", 10*time.Second, func() bool { return c.total() > 3000 })
			cancel()
			<-c.done
			want := recordPath(base, map[FormatChoice]decode.Format{FormatAuto: decode.FormatBinary, FormatXML: decode.FormatXML}[format], 1)
			if st := s.Status(); st.Recording != want {
				t.Fatalf("recording to %q, want %q", st.Recording, want)
			}
			fs := NewFileSource(want, 0, decode.Options{})
			r := consume(fs, 2000)
			if err := fs.Run(context.Background()); err != nil {
				// The last message may have been cut when the session stopped.
				if !strings.Contains(err.Error(), "stream ends inside a message") {
					t.Fatal(err)
				}
			}
			<-r.done
			if len(r.events) != 2000 || len(c.events) != 2000 {
				t.Fatalf("%d replayed, %d live", len(r.events), len(c.events))
			}
			for i := range r.events {
				if r.events[i] != c.events[i] {
					t.Fatalf("event %d differs:\nlive   %s\nreplay %s", i, c.events[i], r.events[i])
				}
			}
			if st := fs.Status(); st.State != StateEnded || st.Negotiation != OutcomeFile {
				t.Fatalf("%+v", st)
			}
		})
	}
}

func TestRecordPathFollowsTheFormat(t *testing.T) {
	for _, tc := range []struct {
		base string
		f    decode.Format
		n    int
		want string
	}{
		{"run", decode.FormatBinary, 1, "run.trcbin"},
		{"run.trcbin", decode.FormatXML, 1, "run.trcxml"},
		{"run.TRCXML", decode.FormatBinary, 3, "run-3.trcbin"},
		{"dir/run.log", decode.FormatXML, 2, "dir/run.log-2.trcxml"},
	} {
		if got := recordPath(tc.base, tc.f, tc.n); got != tc.want {
			t.Errorf("%s %v %d: %s, want %s", tc.base, tc.f, tc.n, got, tc.want)
		}
	}
}

func TestPacedReplayFollowsTimestamps(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "paced.trcbin")
	f, _ := os.Create(path)
	enc := decode.NewEncoder(f, decode.EncoderOptions{})
	base := decode.Ticks(1_700_000_000_000_000_000)
	for i := range 5 { // events, not the definitions a trace begins with, which are not paced
		enc.Encode(&decode.ThreadCPU{ThreadIDRef: int64(i + 1), Time: base + decode.Ticks(i)*200_000_000}) // 200 ms apart
	}
	enc.Flush()
	f.Close()
	fs := NewFileSource(path, 4, decode.Options{}) // ×4: 50 ms apart
	c := consume(fs, 10)
	start := time.Now()
	fs.Run(context.Background())
	<-c.done
	if elapsed := time.Since(start); elapsed < 190*time.Millisecond || elapsed > 2*time.Second {
		t.Fatalf("800 ms of trace at ×4 took %v", elapsed)
	}
	if c.total() != 5 {
		t.Fatalf("%d events", c.total())
	}
}

// scriptedController negotiates like a good profiler, then runs stream.
func scriptedController(t *testing.T, stream func(c net.Conn, fw *protocol.FrameWriter)) int {
	return fakeController(t, func(c net.Conn) {
		fr, fw := protocol.NewFrameReader(c, 0), protocol.NewFrameWriter(c, 0)
		for {
			f, err := fr.Next()
			if err != nil {
				return
			}
			m, _ := protocol.ParseMessage(f.Payload)
			var body any
			switch m.Name {
			case "listAgents":
				body = &protocol.AgentList{Agents: []protocol.Agent{{ID: "1", PID: 7, Name: "scripted"}}}
			case "attach":
				body = &protocol.Attached{AgentID: "1"}
			case "setOutputFormat":
				body = &protocol.EnabledOutputFormat{Format: "binary"}
			case "startMonitoring":
				body = &protocol.MonitoringStarted{}
			}
			p, _ := protocol.EncodeMessage("agent:1", "proftop", m.Ctxt, body)
			fw.WriteFrame(false, p)
			if m.Name == "startMonitoring" {
				stream(c, fw)
				return
			}
		}
	})
}

// The profiler resets the connection in the middle of a message: the
// events before it are delivered, the loss is described and retried.
func TestResetInTheMiddleOfAMessage(t *testing.T) {
	port := scriptedController(t, func(c net.Conn, fw *protocol.FrameWriter) {
		var buf strings.Builder
		enc := decode.NewEncoder(&buf, decode.EncoderOptions{})
		for i := range 10 {
			enc.Encode(&decode.ThreadStart{ThreadID: int64(i + 1), ThreadName: "worker"})
		}
		enc.Flush()
		data := []byte(buf.String())
		fw.WriteData(data[:len(data)-20]) // the last message is cut
		time.Sleep(100 * time.Millisecond)
		c.(*net.TCPConn).SetLinger(0) // close with a reset
	})
	s, c, _ := run(t, Config{Port: port, Reconnect: true, ReconnectMin: time.Hour})
	waitFor(t, "the reset", 5*time.Second, func() bool { return s.Status().State == StateReconnecting })
	if got := c.count(decode.KindThreadStart); got != 9 {
		t.Fatalf("%d of the 9 complete events delivered", got)
	}
	if cause := s.Status().Cause; !strings.Contains(cause, "reset") && !strings.Contains(cause, "in the middle of a message") {
		t.Fatalf("cause %q", cause)
	}
}

// A profiler that closes the connection in the middle of a message cut
// the stream: proftop says so, not that the data is malformed. Told at
// the next connection that it had dropped the previous one, proftop shows
// when and why.
func TestCutStreamAndTheDropToldNext(t *testing.T) {
	var conns atomic.Int32
	port := fakeController(t, func(c net.Conn) {
		n := conns.Add(1)
		fr, fw := protocol.NewFrameReader(c, 0), protocol.NewFrameWriter(c, 0)
		for {
			f, err := fr.Next()
			if err != nil {
				return
			}
			m, _ := protocol.ParseMessage(f.Payload)
			var body any
			switch m.Name {
			case "authenticate":
				in := &protocol.Authenticated{}
				if n == 2 {
					in.LastDrop = &protocol.Drop{Code: protocol.CodeTooSlow, MsAgo: 61_000, Message: "the client fell more than 16 MiB behind the trace"}
				}
				body = in
			case "listAgents":
				body = &protocol.AgentList{Agents: []protocol.Agent{{ID: "1", PID: 7, Name: "cut"}}}
			case "attach":
				body = &protocol.Attached{AgentID: "1"}
			case "setOutputFormat":
				body = &protocol.EnabledOutputFormat{Format: "binary"}
			case "startMonitoring":
				body = &protocol.MonitoringStarted{}
			}
			p, _ := protocol.EncodeMessage("agent:1", "proftop", m.Ctxt, body)
			fw.WriteFrame(false, p)
			if m.Name == "startMonitoring" {
				var buf strings.Builder
				enc := decode.NewEncoder(&buf, decode.EncoderOptions{})
				enc.Encode(&decode.ThreadStart{ThreadID: 1, ThreadName: "worker"})
				enc.Flush()
				if n == 1 {
					fw.WriteData([]byte(buf.String()[:len(buf.String())-5])) // then a close: FIN, not a reset
					return
				}
				fw.WriteData([]byte(buf.String()))
				time.Sleep(time.Minute)
				return
			}
		}
	})
	s, c, _ := run(t, Config{Port: port, Token: "t", Reconnect: true, ReconnectMin: time.Hour})
	waitFor(t, "the cut", 5*time.Second, func() bool { return s.Status().State == StateReconnecting })
	st := s.Status()
	if !strings.Contains(st.Cause, "closed the connection in the middle of a message (trace offset 12)") || strings.Contains(st.Cause, "is malformed") ||
		st.DecodeErrors != 0 || st.Dropped != "" {
		t.Fatalf("cause %q, %d decode errors, dropped %q", st.Cause, st.DecodeErrors, st.Dropped)
	}

	s, c, _ = run(t, Config{Port: port, Token: "t"})
	waitFor(t, "the second stream", 5*time.Second, func() bool { return c.count(decode.KindThreadStart) == 1 })
	want := "the profiler dropped the previous connection at " + time.Now().Add(-61*time.Second).Format("15:04:05")
	if d := s.Status().Dropped; !strings.HasPrefix(d, want[:len(want)-2]) ||
		!strings.HasSuffix(d, "(TOO_SLOW: the client fell more than 16 MiB behind the trace)") {
		t.Fatalf("dropped %q, want %q…", d, want)
	}
}

// A profiler that closes connections before answering (too many of them
// at once) is described so, not as a connection merely closed.
func TestClosedBeforeAnsweringIsDescribed(t *testing.T) {
	port := fakeController(t, func(c net.Conn) {})
	for _, token := range []string{"", "t"} {
		err := NewSession(Config{Host: "127.0.0.1", Port: port, Token: token}).Run(context.Background())
		if err == nil || !strings.Contains(err.Error(), "closed the connection without answering") {
			t.Fatalf("token %q: %v", token, err)
		}
	}
}

func TestTimeoutsAreDescribed(t *testing.T) {
	err := &net.OpError{Op: "dial", Net: "tcp", Err: timeoutErr{}}
	if got := describe(err, "prod-1:10002"); got != "no answer from prod-1:10002 (timed out)" {
		t.Fatal(got)
	}
}

type timeoutErr struct{}

func (timeoutErr) Error() string   { return "i/o timeout" }
func (timeoutErr) Timeout() bool   { return true }
func (timeoutErr) Temporary() bool { return true }

// A zipped trace on a live stream is refused with a reason, not decoded as garbage.
func TestZippedLiveStreamIsRefused(t *testing.T) {
	port := scriptedController(t, func(c net.Conn, fw *protocol.FrameWriter) {
		fw.WriteData([]byte("PK\x03\x04 and the rest of an archive"))
		time.Sleep(time.Second)
	})
	s, c, _ := run(t, Config{Port: port, Reconnect: true, ReconnectMin: time.Hour})
	waitFor(t, "the refusal", 5*time.Second, func() bool { return s.Status().State == StateReconnecting })
	if cause := s.Status().Cause; !strings.Contains(cause, "zip archive, which cannot be decoded live") || c.total() != 0 {
		t.Fatalf("cause %q, %d events", cause, c.total())
	}
}

// A process that dies before its agent says so (the connection simply
// drops) still ends in a picture that says it exited: the session tells
// the runtime's shutdown for it, once, after the stream's last events.
func TestGoneProcessEndsWithAShutdown(t *testing.T) {
	srv, port := startSim(t, simulator.ServerConfig{Seed: 6}, "")
	var gone atomic.Bool
	s, c, _ := run(t, Config{Port: port, Reconnect: true, ReconnectMin: 50 * time.Millisecond, ReconnectMax: 100 * time.Millisecond,
		Gone: func() (bool, string) { return gone.Load(), "JVM 4242 exited" }})
	waitFor(t, "the stream", 10*time.Second, func() bool { return c.total() > 1000 })
	if n := c.count(decode.KindRuntimeShutdown); n != 0 {
		t.Fatalf("%d shutdowns while the process runs", n)
	}
	gone.Store(true)
	srv.Close()
	waitFor(t, "the end", 5*time.Second, func() bool { return s.Status().State == StateEnded })
	waitFor(t, "the shutdown told", 5*time.Second, func() bool { return c.count(decode.KindRuntimeShutdown) == 1 })
	if st := s.Status(); st.Cause != "JVM 4242 exited" {
		t.Fatalf("%+v", st)
	}
}
