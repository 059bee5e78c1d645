package agent

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/proftop/proftop/client"
	"github.com/proftop/proftop/decode"
	"github.com/proftop/proftop/protocol"
)

// The contentions and waits the agent reports are the ones JFR recorded:
// a JFR recording of the same JVM is the ground truth, counted per thread
// (and, for the threads that contend for two locks of one class in turn,
// per line) over the same span of time. No contention ends before it
// began, and each lock is one monitor. On every JDK.
func TestContentionsMatchJFR(t *testing.T) {
	eachJDK(t, testContentionsMatchJFR)
}

func testContentionsMatchJFR(t *testing.T, jdk jdk) {
	dir := t.TempDir()
	settings := filepath.Join(dir, "monitors.jfc")
	os.WriteFile(settings, []byte(`<?xml version="1.0" encoding="UTF-8"?>
<configuration version="2.0">
  <event name="jdk.JavaMonitorEnter"><setting name="enabled">true</setting><setting name="threshold">0 ms</setting><setting name="stackTrace">true</setting></event>
  <event name="jdk.JavaMonitorWait"><setting name="enabled">true</setting><setting name="threshold">0 ms</setting><setting name="stackTrace">false</setting></event>
</configuration>
`), 0o644)
	recording := filepath.Join(dir, "truth.jfr")
	_, jar := workload(t)
	portFile := filepath.Join(dir, "port")
	j := startWorkloadOn(t, jdk.tool("java"), 120, []string{"pairs"},
		"-XX:StartFlightRecording=filename="+recording+",settings="+settings+",dumponexit=true",
		fmt.Sprintf("-javaagent:%s=port=0,portfile=%s", jar, portFile))
	at, err := waitForPort(portFile, 10*time.Second, j.cmd.Process.Pid)
	if err != nil {
		t.Fatalf("%v\n%s", err, j.stderr)
	}
	w, session, cancel := watch(t, at.Port, client.FormatAuto)
	// Compare over six seconds well inside the time watched, once the agent
	// has reported everything of them: JFR reports a contention a second or
	// so after it ends (more on a loaded machine), and the agent may hold
	// it a few polls more until it knows which lock it is about. The span
	// begins a second after the first contention the agent reported: its
	// JFR stream starts some seconds after the client connects on a loaded
	// machine, and what JFR recorded before that is not the agent's.
	from := w.firstContention(t, 60*time.Second).Add(time.Second)
	to := from.Add(6 * time.Second)
	w.caughtUp(t, to, 60*time.Second)
	cancel()
	j.exits(t, 20*time.Second)

	// One lock is one monitor, though JFR and the thread poll name it
	// differently: the contenders all contend for Workload.lock, the waiter
	// waits on Workload.queue, the pair threads take Workload.left at one
	// line and Workload.right at the next. A contention the agent found no
	// evidence for in time (a collection moved the lock and no look came
	// before the next) goes out under its address rather than a guessed
	// name (Contentions: two names for one lock, never one name for two):
	// on a loaded machine a few do, so each lock must have one name, and
	// the contentions under an address must be few.
	leftLine, rightLine := sourceLine(t, "LEFT LINE"), sourceLine(t, "RIGHT LINE")
	objects := map[string]map[int64]int{"contenders": {}, "waiter": {}, "left": {}, "right": {}}
	names := map[int64]string{}
	w.mu.Lock()
	for _, ev := range w.events {
		switch e := ev.(type) {
		case *decode.ThreadStart:
			names[e.ThreadID] = e.ThreadName
		case *decode.MonContendedEnter:
			name := names[e.ThreadIDRef]
			switch {
			case strings.HasPrefix(name, "contender-"):
				objects["contenders"][e.ObjIDRef]++
			case strings.HasPrefix(name, "pair-") && hasFrame(e.Stack, "Workload.pair", leftLine):
				objects["left"][e.ObjIDRef]++
			case strings.HasPrefix(name, "pair-") && hasFrame(e.Stack, "Workload.pair", rightLine):
				objects["right"][e.ObjIDRef]++
			}
		case *decode.MonWait:
			if names[e.ThreadIDRef] == "waiter" {
				objects["waiter"][e.ObjIDRef]++
			}
		}
	}
	w.mu.Unlock()
	named := map[string]int64{}
	for who, objs := range objects {
		var ids []int64
		all, unnamed := 0, 0
		for obj, n := range objs {
			all += n
			if obj >= 0 && obj <= math.MaxInt32 { // an identity hash: the poll's name
				ids = append(ids, obj)
				named[who] = obj
			} else {
				unnamed += n
			}
		}
		if len(ids) != 1 {
			t.Errorf("the %s' monitor is named as %d monitors: %v", who, len(ids), objs)
		}
		if unnamed*10 > all {
			t.Errorf("%d of the %s' %d contentions are under an address, not the lock's name: %v", unnamed, who, all, objs)
		}
	}
	if l, ok := named["left"]; ok && named["right"] == l {
		t.Errorf("Workload.left and Workload.right are reported as one monitor, %d", l)
	}

	truth := jfrCounts(t, jdk.tool("jfr"), recording, from, to)
	reported, negative := agentCounts(w, from, to)
	if len(negative) > 0 {
		t.Errorf("contentions that end before they begin: %s", strings.Join(negative, "; "))
	}
	keys := []string{"contender-0 enter", "contender-1 enter", "contender-2 enter", "contender-3 enter", "waiter wait"}
	for _, pair := range []string{"pair-0", "pair-1"} {
		keys = append(keys, fmt.Sprintf("%s enter:%d", pair, leftLine), fmt.Sprintf("%s enter:%d", pair, rightLine))
	}
	for _, key := range keys {
		want, got := truth[key], reported[key]
		t.Logf("%-18s JFR %4d, agent %4d", key, want, got)
		if want < 10 {
			t.Fatalf("%s: only %d in the JFR recording: the workload did not contend", key, want)
		}
		if ratio := float64(got) / float64(want); ratio < 0.9 || ratio > 1.1 {
			t.Errorf("%s: the agent reported %d, JFR recorded %d", key, got, want)
		}
	}
	if t.Failed() {
		for s := 0; s < 6; s++ {
			key := secondKey(time.Duration(s) * time.Second)
			t.Logf("%-18s JFR %4d, agent %4d", key, truth[key], reported[key])
		}
		t.Logf("streams: %d", session.Status().Streams)
	}
}

// firstContention waits for the first contention the agent reports and
// returns when it began.
func (w *watched) firstContention(t *testing.T, within time.Duration) time.Time {
	t.Helper()
	deadline := time.Now().Add(within)
	for time.Now().Before(deadline) {
		w.mu.Lock()
		for _, ev := range w.events {
			if e, ok := ev.(*decode.MonContendedEnter); ok {
				w.mu.Unlock()
				return time.Unix(0, int64(e.Time))
			}
		}
		w.mu.Unlock()
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatalf("no contention reported within %v", within)
	return time.Time{}
}

// caughtUp waits until the agent has reported what JFR recorded before
// until, and released what it held: a contention of a thread named
// contender… (…-contender… in H2Load, a request thread in Tomcat) that began two seconds after until has
// arrived (JFR delivers in order), then ten more polls (the longest an
// event waits to know its lock).
func (w *watched) caughtUp(t *testing.T, until time.Time, within time.Duration) {
	t.Helper()
	deadline := time.Now().Add(within)
	names := map[int64]string{}
	seen := 0
	for time.Now().Before(deadline) {
		w.mu.Lock()
		var reached time.Time
		polls := 0
		for _, ev := range w.events[seen:] {
			if ts, ok := ev.(*decode.ThreadStart); ok {
				names[ts.ThreadID] = ts.ThreadName
			}
		}
		for _, ev := range w.events {
			switch e := ev.(type) {
			case *decode.MonContendedEnter:
				if at := time.Unix(0, int64(e.Time)); (strings.Contains(names[e.ThreadIDRef], "contender-") || strings.Contains(names[e.ThreadIDRef], "-exec-")) && at.After(until.Add(2*time.Second)) && reached.IsZero() {
					reached = at
				}
			case *decode.ThreadPoll:
				if !reached.IsZero() {
					polls++
				}
			}
		}
		seen = len(w.events)
		w.mu.Unlock()
		if polls >= 10 {
			return
		}
		time.Sleep(200 * time.Millisecond)
	}
	t.Fatalf("the agent did not report the contentions up to %v within %v", until.Format(time.TimeOnly), within)
}

// jfrCounts counts the monitor events of a recording that began within
// [from, to) per thread and kind ("contender-0 enter", "waiter wait"), and
// per thread, kind and line of the Workload frame ("pair-0 enter:171").
func jfrCounts(t *testing.T, tool, recording string, from, to time.Time) map[string]int {
	t.Helper()
	out, err := exec.Command(tool, "print", "--json", "--events", "jdk.JavaMonitorEnter,jdk.JavaMonitorWait", recording).Output()
	if err != nil {
		t.Fatalf("jfr print: %v", err)
	}
	var doc struct {
		Recording struct {
			Events []struct {
				Type   string `json:"type"`
				Values struct {
					StartTime   time.Time `json:"startTime"`
					EventThread struct {
						JavaName string `json:"javaName"`
					} `json:"eventThread"`
					StackTrace struct {
						Frames []struct {
							Method struct {
								Type struct {
									Name string `json:"name"`
								} `json:"type"`
							} `json:"method"`
							LineNumber int `json:"lineNumber"`
						} `json:"frames"`
					} `json:"stackTrace"`
				} `json:"values"`
			} `json:"events"`
		} `json:"recording"`
	}
	if err := json.Unmarshal(out, &doc); err != nil {
		t.Fatalf("jfr print --json: %v", err)
	}
	counts := map[string]int{}
	for _, e := range doc.Recording.Events {
		if s := e.Values.StartTime; s.Before(from) || !s.Before(to) {
			continue
		}
		kind := "enter"
		if e.Type == "jdk.JavaMonitorWait" {
			kind = "wait"
		}
		key := e.Values.EventThread.JavaName + " " + kind
		counts[key]++
		counts[secondKey(e.Values.StartTime.Sub(from))]++
		for _, f := range e.Values.StackTrace.Frames {
			if f.Method.Type.Name == "Workload" {
				counts[fmt.Sprintf("%s:%d", key, f.LineNumber)]++
				break
			}
		}
	}
	return counts
}

// secondKey counts events by the second of the span they began in, to
// show where counts part when they do.
func secondKey(since time.Duration) string {
	return fmt.Sprintf("second %d", since/time.Second)
}

// agentCounts counts what the agent reported the same way, and lists the
// contentions and waits whose end precedes their start.
func agentCounts(w *watched, from, to time.Time) (map[string]int, []string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	names := map[int64]string{}
	type begun struct{ obj, at int64 }
	open := map[int64][]begun{} // thread -> enters and waits not yet over, innermost last
	counts := map[string]int{}
	var negative []string
	begin := func(thread, obj int64, at decode.Ticks, kind string, stack decode.Stack) {
		open[thread] = append(open[thread], begun{obj, int64(at)})
		if ts := time.Unix(0, int64(at)); !ts.Before(from) && ts.Before(to) {
			key := names[thread] + " " + kind
			counts[key]++
			counts[secondKey(ts.Sub(from))]++
			for i, m := range stack.Methods {
				if strings.HasPrefix(m, "Workload.") {
					counts[fmt.Sprintf("%s:%d", key, stack.Lines[i])]++
					break
				}
			}
		}
	}
	end := func(thread, obj int64, at decode.Ticks) {
		s := open[thread]
		for i := len(s) - 1; i >= 0; i-- {
			if s[i].obj == obj {
				if int64(at) < s[i].at {
					negative = append(negative, fmt.Sprintf("%s on %d: %v", names[thread], obj, time.Duration(int64(at)-s[i].at)))
				}
				open[thread] = append(s[:i], s[i+1:]...)
				return
			}
		}
	}
	for _, ev := range w.events {
		switch e := ev.(type) {
		case *decode.ThreadStart:
			names[e.ThreadID] = e.ThreadName
		case *decode.MonContendedEnter:
			begin(e.ThreadIDRef, e.ObjIDRef, e.Time, "enter", e.Stack)
		case *decode.MonContendedEntered:
			end(e.ThreadIDRef, e.ObjIDRef, e.Time)
		case *decode.MonWait:
			begin(e.ThreadIDRef, e.ObjIDRef, e.Time, "wait", e.Stack)
		case *decode.MonWaited:
			end(e.ThreadIDRef, e.ObjIDRef, e.Time)
		}
	}
	return counts, negative
}

// rawConn speaks the protocol by hand, for what proftop's client never does.
type rawConn struct {
	net.Conn
	r    *protocol.FrameReader
	w    *protocol.FrameWriter
	data bytes.Buffer // the trace bytes received
}

// dialRaw connects and authenticates with the token the agent left for
// this user, as proftop does.
func dialRaw(t *testing.T, port int) *rawConn {
	t.Helper()
	c := dialUnauthenticated(t, "127.0.0.1", port)
	token, _ := client.LocalToken(port)
	if token == "" {
		t.Fatalf("no token for port %d in /tmp/proftop-%d", port, os.Geteuid())
	}
	if m := c.command(t, 1000, &protocol.Authenticate{Token: token}); m.Name != "authenticated" {
		t.Fatalf("authenticate: %s %s", m.Name, m.Body)
	}
	return c
}

// dialUnauthenticated connects, and nothing more.
func dialUnauthenticated(t *testing.T, host string, port int) *rawConn {
	t.Helper()
	c, err := net.Dial("tcp", net.JoinHostPort(host, strconv.Itoa(port)))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return &rawConn{Conn: c, r: protocol.NewFrameReader(c, 0), w: protocol.NewFrameWriter(c, 0)}
}

// command sends one command and returns the reply.
func (c *rawConn) command(t *testing.T, ctxt uint64, body any) protocol.Message {
	t.Helper()
	payload, err := protocol.EncodeMessage("proftop", "agentController", ctxt, body)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.w.WriteFrame(false, payload); err != nil {
		t.Fatal(err)
	}
	// Generous: starting or stopping JFR takes seconds on a loaded machine.
	c.SetReadDeadline(time.Now().Add(60 * time.Second))
	for {
		f, err := c.r.Next()
		if err != nil {
			t.Fatalf("reading the reply: %v", err)
		}
		if f.Data {
			c.data.Write(f.Payload)
			continue
		}
		m, err := protocol.ParseMessage(f.Payload)
		if err != nil {
			t.Fatal(err)
		}
		if m.Ctxt != ctxt {
			t.Fatalf("reply ctxt %d to command ctxt %d", m.Ctxt, ctxt)
		}
		return m
	}
}

// receive collects data frames for d; it returns how many came.
func (c *rawConn) receive(t *testing.T, d time.Duration) int {
	t.Helper()
	n := 0
	c.SetReadDeadline(time.Now().Add(d))
	for {
		f, err := c.r.Next()
		if errors.Is(err, os.ErrDeadlineExceeded) {
			return n
		}
		if err != nil {
			t.Fatal(err)
		}
		if !f.Data {
			t.Fatalf("an unasked control frame: %s", f.Payload)
		}
		c.data.Write(f.Payload)
		n++
	}
}

// receiveUntil collects data frames until the stream holds an event of
// the kind, or fails after within.
func (c *rawConn) receiveUntil(t *testing.T, kind string, within time.Duration) {
	t.Helper()
	deadline := time.Now().Add(within)
	for time.Now().Before(deadline) {
		c.receive(t, 500*time.Millisecond)
		d, err := decode.Open(bytes.NewReader(c.data.Bytes()), decode.Options{})
		if err != nil {
			continue // not even the preamble yet
		}
		for {
			ev, err := d.Next()
			if err != nil {
				break // the end of what came so far
			}
			if ev.Kind().String() == kind {
				return
			}
		}
	}
	t.Fatalf("no %s within %v", kind, within)
}

// Stopping and starting monitoring again continues one stream: no data
// after monitoringStopped, no second preamble, and every id keeps naming
// what it named. On every JDK.
func TestAgentStopAndStartContinueOneStream(t *testing.T) {
	eachJDK(t, testAgentStopAndStartContinueOneStream)
}

func testAgentStopAndStartContinueOneStream(t *testing.T, jdk jdk) {
	for _, format := range []string{"binary", "xml"} {
		t.Run(format, func(t *testing.T) {
			j, port := startWithAgentOn(t, jdk.tool("java"), 120, false, "")
			c := dialRaw(t, port)
			c.command(t, 1, &protocol.Attach{AgentID: "1"})
			c.command(t, 2, &protocol.SetOutputFormat{Format: format})
			c.command(t, 3, &protocol.StartMonitoring{})
			// JFR's contentions come seconds after the start on a loaded machine.
			c.receiveUntil(t, "monContendedEnter", 60*time.Second)
			c.command(t, 4, &protocol.StopMonitoring{})
			if n := c.receive(t, 1500*time.Millisecond); n != 0 {
				t.Fatalf("%d data frames after monitoringStopped", n)
			}
			c.command(t, 5, &protocol.StartMonitoring{})
			c.receive(t, 2500*time.Millisecond)
			c.command(t, 6, &protocol.Detach{})
			c.Close()

			d, err := decode.Open(bytes.NewReader(c.data.Bytes()), decode.Options{})
			if err != nil {
				t.Fatal(err)
			}
			preambles, methods, classes := 0, map[int64]string{}, map[int64]string{}
			kinds := map[string]int{}
			for {
				ev, err := d.Next()
				if errors.Is(err, io.EOF) {
					break
				}
				if err != nil {
					t.Fatalf("the stream across stop and start: %v", err)
				}
				kinds[ev.Kind().String()]++
				switch e := ev.(type) {
				case *decode.TraceStart:
					preambles++
				case *decode.MethodDef:
					if old, ok := methods[e.MethodID]; ok && old != e.Name {
						t.Fatalf("method id %d named %s, then %s", e.MethodID, old, e.Name)
					}
					methods[e.MethodID] = e.Name
				case *decode.ClassDef:
					if old, ok := classes[e.ClassID]; ok && old != e.Name {
						t.Fatalf("class id %d named %s, then %s", e.ClassID, old, e.Name)
					}
					classes[e.ClassID] = e.Name
				}
			}
			if preambles != 1 || kinds["monContendedEnter"] == 0 || kinds["sample"] == 0 || kinds["threadPoll"] < 4 {
				t.Fatalf("%d preambles; events %v", preambles, kinds)
			}
			j.exits(t, 20*time.Second)
		})
	}
}

// Agent commands before attach are refused as the protocol says.
func TestAgentCommandsNeedAttach(t *testing.T) {
	j, port := startWithAgent(t, 120, false, "")
	c := dialRaw(t, port)
	for i, cmd := range []any{&protocol.StopMonitoring{}, &protocol.Detach{}, &protocol.StartMonitoring{}, &protocol.SetOutputFormat{Format: "binary"}} {
		m := c.command(t, uint64(i+1), cmd)
		if e := m.AsError(); e == nil || e.Code != protocol.CodeNotAttached {
			t.Fatalf("%T before attach: %s %s", cmd, m.Name, m.Body)
		}
	}
	c.Close()
	j.exits(t, 20*time.Second)
}

// A frame header announcing a large payload makes the agent allocate
// nothing: forty of them at once leave a 64 MiB heap unharmed, and a client
// is served afterwards.
func TestAgentRefusesLargeFramesWithoutAllocating(t *testing.T) {
	_, jar := workload(t)
	portFile := filepath.Join(t.TempDir(), "port")
	j := startWorkload(t, 120, false, "-Xmx64m", fmt.Sprintf("-javaagent:%s=port=0,portfile=%s", jar, portFile))
	at, err := waitForPort(portFile, 10*time.Second, j.cmd.Process.Pid)
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for range 40 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c, err := net.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", at.Port))
			if err != nil {
				return
			}
			defer c.Close()
			head := make([]byte, 12)
			copy(head, "PTAC")
			binary.BigEndian.PutUint32(head[8:], 16<<20)
			c.Write(head)
			c.SetReadDeadline(time.Now().Add(3 * time.Second))
			io.Copy(io.Discard, c)
		}()
	}
	wg.Wait()
	w, _, cancel := watch(t, at.Port, client.FormatAuto)
	await(t, w, expectations(t, false)[:1], 20*time.Second)
	cancel()
	j.exits(t, 20*time.Second)
	if strings.Contains(j.stderr.String(), "OutOfMemoryError") {
		t.Fatalf("the agent ran the application out of memory:\n%s", j.stderr)
	}
}

// A client that says nothing before monitoring is dropped after the idle
// time, so that it cannot hold the agent's one place.
func TestAgentDropsAnIdleClient(t *testing.T) {
	j, port := startWithAgent(t, 120, false, ",idle=1s")
	c := dialRaw(t, port)
	start := time.Now()
	c.SetReadDeadline(time.Now().Add(10 * time.Second))
	if n, err := c.Read(make([]byte, 1)); !errors.Is(err, io.EOF) {
		t.Fatalf("an idle client: read %d, %v", n, err)
	}
	if took := time.Since(start); took > 5*time.Second {
		t.Fatalf("dropped after %v", took)
	}
	w, _, cancel := watch(t, port, client.FormatAuto)
	await(t, w, expectations(t, false)[:1], 20*time.Second)
	cancel()
	j.exits(t, 20*time.Second)
}

// The queue between the agent and a client that stops reading: putting
// never waits for the network, the client is dropped a backlog behind, and
// told why should it read again.
func TestOutboxDropsAStalledClient(t *testing.T) {
	classpath := checkClasspath(t, "OutboxCheck")
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, "java", "-cp", classpath, "io.proftop.agent.OutboxCheck", strconv.Itoa(1<<20)).CombinedOutput()
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	m := regexp.MustCompile(`dropped after (\d+) bytes, slowest put (\d+) ms`).FindSubmatch(out)
	if m == nil {
		t.Fatalf("%s", out)
	}
	// Reading again, the client finds why it was dropped, after what was written before.
	if !regexp.MustCompile(`reason: <Cmd [^>]*ctxt="0"><error code="TOO_SLOW">the client fell more than 1 MiB behind`).Match(out) {
		t.Fatalf("no reason for the drop: %s", out)
	}
	sent, _ := strconv.Atoi(string(m[1]))
	// The backlog plus what the sockets' buffers hold.
	if sent < 1<<20 || sent > 16<<20 {
		t.Fatalf("%s", out)
	}
	t.Logf("%s", bytes.TrimSpace(out))
}

// An agent that cannot start (its port file cannot be written) leaves no
// port bound behind it, and the application runs on.
func TestFailedStartFreesThePort(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	_, jar := workload(t)
	j := startWorkload(t, 120, false, fmt.Sprintf("-javaagent:%s=port=%d,portfile=/nonexistent/dir/port", jar, port))
	if !strings.Contains(j.stderr.String(), "proftop agent: not started") {
		t.Fatalf("stderr: %s", j.stderr)
	}
	if c, err := net.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", port)); err == nil {
		c.Close()
		t.Fatalf("port %d still bound by the agent that did not start", port)
	}
	j.exits(t, 20*time.Second)
}

// A JVM without JDK Flight Recorder: the agent says so in its answer to
// startMonitoring, and the application runs on undisturbed. On every JDK.
func TestAgentWithoutJFRSaysSo(t *testing.T) {
	eachJDK(t, testAgentWithoutJFRSaysSo)
}

func testAgentWithoutJFRSaysSo(t *testing.T, jdk jdk) {
	_, jar := workload(t)
	portFile := filepath.Join(t.TempDir(), "port")
	j := startWorkloadOn(t, jdk.tool("java"), 120, nil, "--limit-modules", "java.base,java.instrument,java.management",
		fmt.Sprintf("-javaagent:%s=port=0,portfile=%s", jar, portFile))
	at, err := waitForPort(portFile, 10*time.Second, j.cmd.Process.Pid)
	if err != nil {
		t.Fatalf("%v\n%s", err, j.stderr)
	}
	err = client.NewSession(client.Config{Host: "127.0.0.1", Port: at.Port}).Run(context.Background())
	if err == nil || !strings.Contains(err.Error(), "AGENT_FAILURE") || !strings.Contains(err.Error(), "jdk.jfr") {
		t.Fatalf("client: %v", err)
	}
	j.exits(t, 20*time.Second)
	if strings.Contains(j.stderr.String(), "Exception in thread") {
		t.Fatalf("an agent error reached the application's handler:\n%s", j.stderr)
	}
}

// With a token, a client that has not authenticated does not hold the
// agent's one place, however busy it keeps the connection.
func TestUnauthenticatedClientsDoNotHoldThePlace(t *testing.T) {
	j, port := startWithAgent(t, 120, false, ",host=127.0.0.2,token=s3cret")
	pest, err := net.Dial("tcp", fmt.Sprintf("127.0.0.2:%d", port))
	if err != nil {
		t.Fatal(err)
	}
	defer pest.Close()
	raw := &rawConn{Conn: pest, r: protocol.NewFrameReader(pest, 0), w: protocol.NewFrameWriter(pest, 0)}
	stop := make(chan struct{})
	pestDone := make(chan struct{})
	go func() {
		defer close(pestDone)
		payload, _ := protocol.EncodeMessage("proftop", "agentController", 1, &protocol.ListAgents{})
		for {
			select {
			case <-stop:
				return
			case <-time.After(300 * time.Millisecond):
			}
			if raw.w.WriteFrame(false, payload) != nil {
				return
			}
			raw.SetReadDeadline(time.Now().Add(2 * time.Second))
			if _, err := raw.r.Next(); err != nil {
				return
			}
		}
	}()
	time.Sleep(time.Second)
	s := client.NewSession(client.Config{Host: "127.0.0.2", Port: port, Token: "s3cret"})
	// Until events come: seconds on a loaded machine (JFR starts).
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	go func() {
		for b := range s.Batches() {
			s.Recycle(b)
			if s.Status().Events > 0 {
				cancel()
			}
		}
	}()
	s.Run(ctx)
	close(stop)
	<-pestDone
	if st := s.Status(); st.Streams != 1 || st.Events == 0 {
		t.Fatalf("the client with the token, beside one without: %+v", st)
	}
	j.exits(t, 20*time.Second)
}
