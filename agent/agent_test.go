package agent

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/proftop/proftop/client"
	"github.com/proftop/proftop/decode"
	"github.com/proftop/proftop/internal/syncbuf"
	"github.com/proftop/proftop/protocol"
	"github.com/proftop/proftop/state"
)

// The tests run real JVMs: a JDK 17 or later must be installed (.ci/run
// installs one).
func requireJDK(t testing.TB) {
	t.Helper()
	for _, tool := range []string{"java", "javac"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Fatalf("%s is needed for the agent tests: apt-get install openjdk-17-jdk-headless (.ci/run installs it)", tool)
		}
	}
}

var (
	workloadOnce sync.Once
	workloadDir  string
	workloadErr  error
	jarPath      string
)

// workload compiles testdata/Workload.java once, and writes the embedded
// agent jar next to it.
func workload(t testing.TB) (classes, jar string) {
	t.Helper()
	requireJDK(t)
	workloadOnce.Do(func() {
		workloadDir, workloadErr = os.MkdirTemp("", "proftop-workload")
		if workloadErr != nil {
			return
		}
		// Bank.java (the telemetry tests') compiles with it: one javac, not two, on a busy machine.
		out, err := exec.Command("javac", "--release", "17", "-d", workloadDir, "testdata/Workload.java", "testdata/bank/Bank.java").CombinedOutput()
		if err != nil {
			workloadErr = fmt.Errorf("javac: %v\n%s", err, out)
			return
		}
		jarPath = filepath.Join(workloadDir, "proftop-agent.jar")
		workloadErr = os.WriteFile(jarPath, Jar, 0o644)
	})
	if workloadErr != nil {
		t.Fatal(workloadErr)
	}
	return workloadDir, jarPath
}

// sourceLine finds the line of Workload.java holding a marker comment.
func sourceLine(t testing.TB, marker string) int64 {
	data, err := os.ReadFile("testdata/Workload.java")
	if err != nil {
		t.Fatal(err)
	}
	for i, l := range strings.Split(string(data), "\n") {
		if strings.Contains(l, marker) {
			return int64(i + 1)
		}
	}
	t.Fatalf("no %q in Workload.java", marker)
	return 0
}

// jvm is a running workload.
type jvm struct {
	cmd    *exec.Cmd
	done   chan error
	stderr *syncbuf.Buffer
	stdin  io.WriteCloser
}

// startWorkload runs the workload for seconds, with the agent when
// agentArgs is not empty.
func startWorkload(t testing.TB, seconds int, deadlock bool, jvmArgs ...string) *jvm {
	t.Helper()
	var flags []string
	if deadlock {
		flags = append(flags, "deadlock")
	}
	return startWorkloadWith(t, seconds, flags, jvmArgs...)
}

// startWorkloadWith runs the workload in run mode with flags ("deadlock",
// "pairs").
func startWorkloadWith(t testing.TB, seconds int, flags []string, jvmArgs ...string) *jvm {
	t.Helper()
	return startWorkloadOn(t, "java", seconds, flags, jvmArgs...)
}

// startWorkloadOn runs the workload with this java.
func startWorkloadOn(t testing.TB, java string, seconds int, flags []string, jvmArgs ...string) *jvm {
	t.Helper()
	classes, _ := workload(t)
	args := append(jvmArgs, "-cp", classes, "Workload", "run", strconv.Itoa(seconds))
	args = append(args, flags...)
	return startJava(t, java, args...)
}

// startJava runs a JVM and waits until it says "workload started".
func startJava(t testing.TB, java string, args ...string) *jvm {
	t.Helper()
	cmd := exec.Command(java, args...)
	j := &jvm{cmd: cmd, done: make(chan error, 1), stderr: &syncbuf.Buffer{}}
	cmd.Stderr = j.stderr
	j.stdin, _ = cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	started := make(chan struct{})
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			if sc.Text() == "workload started" {
				close(started)
			}
		}
		j.done <- cmd.Wait()
	}()
	select {
	case <-started:
	case <-time.After(20 * time.Second):
		cmd.Process.Kill()
		t.Fatalf("the workload did not start:\n%s", j.stderr)
	}
	t.Cleanup(func() { cmd.Process.Kill() })
	return j
}

// exits lets the workload's main return and checks that the JVM then ends
// by itself, agent threads and all.
func (j *jvm) exits(t testing.TB, within time.Duration) {
	t.Helper()
	j.stdin.Close()
	select {
	case err := <-j.done:
		if err != nil {
			t.Fatalf("the JVM ended with %v:\n%s", err, j.stderr)
		}
	case <-time.After(within):
		t.Fatalf("the JVM did not exit by itself within %v: a non-daemon agent thread keeps it alive?\n%s", within, j.stderr)
	}
}

// startWithAgent runs the workload with -javaagent on an ephemeral port.
func startWithAgent(t testing.TB, seconds int, deadlock bool, options string) (*jvm, int) {
	return startWithAgentOn(t, "java", seconds, deadlock, options)
}

// startWithAgentOn runs the workload with -javaagent on this java.
func startWithAgentOn(t testing.TB, java string, seconds int, deadlock bool, options string) (*jvm, int) {
	_, jar := workload(t)
	portFile := filepath.Join(t.TempDir(), "port")
	var flags []string
	if deadlock {
		flags = append(flags, "deadlock")
	}
	j := startWorkloadOn(t, java, seconds, flags, fmt.Sprintf("-javaagent:%s=port=0,portfile=%s%s", jar, portFile, options))
	at, err := waitForPort(portFile, 10*time.Second, j.cmd.Process.Pid)
	if err != nil {
		t.Fatalf("%v\n%s", err, j.stderr)
	}
	return j, at.Port
}

// watched is what a proftop session received from the agent.
type watched struct {
	mu      sync.Mutex
	events  []decode.Event
	methods map[int64]string
	agg     *state.Aggregator
	polls   int        // threadPoll events received
	t       *testing.T // the test watching, for helpers that need it
}

func watch(t testing.TB, port int, format client.FormatChoice) (*watched, *client.Session, context.CancelFunc) {
	t.Helper()
	return watchWith(t, client.Config{Host: "127.0.0.1", Port: port, Format: format})
}

// watchWith watches with a session configured so (to reconnect, say).
func watchWith(t testing.TB, cfg client.Config) (*watched, *client.Session, context.CancelFunc) {
	t.Helper()
	s := client.NewSession(cfg)
	ctx, cancel := context.WithCancel(context.Background())
	w := &watched{methods: map[int64]string{}, agg: state.New(state.Options{})}
	done := make(chan struct{})
	go func() {
		for b := range s.Batches() {
			w.agg.Apply(b.Events(), b.Stream, b.Clock, time.Now())
			w.mu.Lock()
			for _, ev := range b.Events() {
				switch e := ev.(type) {
				case *decode.MethodDef:
					w.methods[e.MethodID] = e.Name
				case *decode.ThreadPoll:
					w.polls++
				}
				w.events = append(w.events, decode.Clone(ev))
			}
			w.mu.Unlock()
			s.Recycle(b)
		}
		close(done)
	}()
	go s.Run(ctx)
	t.Cleanup(func() {
		cancel()
		<-done
	})
	return w, s, cancel
}

// find reports whether some event satisfies f.
func (w *watched) find(f func(decode.Event) bool) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, ev := range w.events {
		if f(ev) {
			return true
		}
	}
	return false
}

func hasFrame(st decode.Stack, method string, line int64) bool {
	for i, m := range st.Methods {
		if m == method && (line == 0 || st.Lines[i] == line) {
			return true
		}
	}
	return false
}

// expectation is one thing the agent must have sent.
type expectation struct {
	what string
	ok   func(w *watched) bool
}

func expectations(t testing.TB, deadlock bool) []expectation {
	contended, waitLine := sourceLine(t, "CONTENDED LINE"), sourceLine(t, "WAIT LINE")
	threadNamed := func(name string) func(*watched) bool {
		return func(w *watched) bool {
			return w.find(func(ev decode.Event) bool {
				ts, ok := ev.(*decode.ThreadStart)
				return ok && ts.ThreadName == name
			})
		}
	}
	out := []expectation{
		{"threadStart for contender-0", threadNamed("contender-0")},
		{"threadStart for contender-3", threadNamed("contender-3")},
		{"threadStart for waiter", threadNamed("waiter")},
		{"threadStart for allocator", threadNamed("allocator")},
		{"allocation samples (jdk.ObjectAllocationSample) with bytes", func(w *watched) bool {
			return w.find(func(ev decode.Event) bool {
				e, ok := ev.(*decode.Allocation)
				return ok && e.Bytes > 0 && e.Count == -1 && e.Class != ""
			})
		}},
		{fmt.Sprintf("monContendedEnter with Workload.contend:%d in its stack", contended), func(w *watched) bool {
			return w.find(func(ev decode.Event) bool {
				e, ok := ev.(*decode.MonContendedEnter)
				return ok && hasFrame(e.Stack, "Workload.contend", contended)
			})
		}},
		{"the monContendedEntered that ends one", func(w *watched) bool {
			w.mu.Lock()
			defer w.mu.Unlock()
			entered := map[[2]int64]bool{}
			for _, ev := range w.events {
				if e, ok := ev.(*decode.MonContendedEntered); ok {
					entered[[2]int64{e.ThreadIDRef, e.ObjIDRef}] = true
				}
			}
			for _, ev := range w.events {
				if e, ok := ev.(*decode.MonContendedEnter); ok && hasFrame(e.Stack, "Workload.contend", contended) && entered[[2]int64{e.ThreadIDRef, e.ObjIDRef}] {
					return true
				}
			}
			return false
		}},
		{fmt.Sprintf("monWait with Workload.waiter:%d", waitLine), func(w *watched) bool {
			return w.find(func(ev decode.Event) bool {
				e, ok := ev.(*decode.MonWait)
				return ok && hasFrame(e.Stack, "Workload.waiter", waitLine)
			})
		}},
		{"monWaited", func(w *watched) bool {
			return w.find(func(ev decode.Event) bool { _, ok := ev.(*decode.MonWaited); return ok })
		}},
		{"a collection with the heap before and after it", func(w *watched) bool {
			return w.find(func(ev decode.Event) bool {
				e, ok := ev.(*decode.Collection)
				return ok && e.Collector != "" && e.UsedBefore > e.UsedAfter && e.UsedAfter > 0 && e.Committed >= e.UsedAfter
			})
		}},
		{"collectors' totals since the JVM started, and the heap pools", func(w *watched) bool {
			totals := w.find(func(ev decode.Event) bool { e, ok := ev.(*decode.GCTotals); return ok && e.Count > 0 })
			pools := w.find(func(ev decode.Event) bool { e, ok := ev.(*decode.MemoryPool); return ok && e.Heap == 1 && e.Used > 0 })
			return totals && pools
		}},
		{"a thread poll that sees the spinner running and the waiter waiting", func(w *watched) bool {
			s := w.agg.Snapshot(time.Now(), state.Query{CallersOf: -1})
			running, waiting := false, false
			for _, th := range s.Threads {
				running = running || th.Name == "spinner" && th.State == state.ThreadRunning && th.CPU > 0
				waiting = waiting || th.Name == "waiter" && th.State == state.ThreadTimedWaiting && th.LockClass == "java.lang.Object"
			}
			return s.Polled && running && waiting
		}},
		// The hot loop is spinner calling spin; once the JIT has inlined spin
		// (a JVM attached to late has), samples name spinner.
		{"stack samples of the hot method Workload.spin (or spinner, where it is inlined), weighted by CPU time", func(w *watched) bool {
			return w.find(func(ev decode.Event) bool {
				e, ok := ev.(*decode.Sample)
				return ok && e.Weight > 0 && len(e.Stack.Methods) > 0 &&
					(e.Stack.Methods[0] == "Workload.spin" || e.Stack.Methods[0] == "Workload.spinner")
			})
		}},
		// Every workload thread runs a lambda (Workload.start): JFR names
		// its hidden class Name+0xADDRESS.HASH, a thread dump Name/0xADDRESS,
		// and the agent gives the samples the thread dump's name, so that
		// one frame is one method.
		{"stack samples naming a lambda's hidden class as a thread dump does (Workload$$Lambda…/0x…)", func(w *watched) bool {
			return w.find(func(ev decode.Event) bool {
				e, ok := ev.(*decode.Sample)
				if !ok {
					return false
				}
				for _, m := range e.Stack.Methods {
					if strings.Contains(m, "+0x") {
						t.Errorf("a sample names a hidden class as JFR does: %s", m)
					}
					if strings.HasPrefix(m, "Workload$$Lambda") && strings.Contains(m, "/0x") && !strings.Contains(m, "+0x") {
						return true
					}
				}
				return false
			})
		}},
	}
	if deadlock {
		out = append(out, expectation{"the deadlock between deadlock-a and deadlock-b", func(w *watched) bool {
			for _, d := range w.agg.Snapshot(time.Now(), state.Query{CallersOf: -1}).Deadlocks {
				names := strings.Join(d.Names, ",")
				if len(d.Names) == 2 && strings.Contains(names, "deadlock-a") && strings.Contains(names, "deadlock-b") {
					return true
				}
			}
			return false
		}})
	}
	return out
}

// await checks every expectation within d, and names the ones missing.
func await(t testing.TB, w *watched, exps []expectation, d time.Duration) time.Duration {
	t.Helper()
	start := time.Now()
	for {
		var missing []string
		for _, e := range exps {
			if !e.ok(w) {
				missing = append(missing, e.what)
			}
		}
		if len(missing) == 0 {
			return time.Since(start)
		}
		if time.Since(start) > d {
			t.Fatalf("after %v, still missing: %s", d, strings.Join(missing, "; "))
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// The agent started with -javaagent, watched in both formats, on every
// JDK: every kind of event arrives within seconds, decodes without error,
// and the JVM exits by itself afterwards.
func TestAgentWithJavaagent(t *testing.T) {
	eachJDK(t, testAgentWithJavaagent)
}

func testAgentWithJavaagent(t *testing.T, jdk jdk) {
	for _, tc := range []struct {
		format   client.FormatChoice
		want     decode.Format
		deadlock bool
	}{
		{client.FormatAuto, decode.FormatBinary, true},
		{client.FormatXML, decode.FormatXML, false},
	} {
		t.Run(tc.want.String(), func(t *testing.T) {
			j, port := startWithAgentOn(t, jdk.tool("java"), 120, tc.deadlock, "")
			w, s, cancel := watch(t, port, tc.format)
			took := await(t, w, expectations(t, tc.deadlock), 45*time.Second)
			st := s.Status()
			if st.Format != tc.want || st.DecodeErrors != 0 || st.Agent.PID != j.cmd.Process.Pid || st.Agent.Name != "Workload" {
				t.Fatalf("format %v, %d decode errors (%s), agent %+v", st.Format, st.DecodeErrors, st.LastError, st.Agent)
			}
			w.mu.Lock()
			received := len(w.events) // still growing: the session goes on
			w.mu.Unlock()
			t.Logf("%s: everything within %v, %d events", tc.want, took.Round(time.Millisecond), received)
			cancel()
			j.exits(t, 20*time.Second)
		})
	}
}

// The same through Attach, into a JVM started without the agent, on every JDK.
func TestAgentThroughAttach(t *testing.T) {
	eachJDK(t, testAgentThroughAttach)
}

func testAgentThroughAttach(t *testing.T, jdk jdk) {
	j := startWorkloadOn(t, jdk.tool("java"), 120, []string{"deadlock"})
	at, err := Attach(j.cmd.Process.Pid, AttachOptions{})
	if err != nil {
		t.Fatalf("%v\n%s", err, j.stderr)
	}
	port := at.Port
	w, s, cancel := watch(t, port, client.FormatAuto)
	took := await(t, w, expectations(t, true), 45*time.Second)
	if st := s.Status(); st.DecodeErrors != 0 || st.Format != decode.FormatBinary {
		t.Fatalf("%+v", st)
	}
	t.Logf("attached: everything within %v", took.Round(time.Millisecond))
	// The agent's own work is not the application's: none of its threads'
	// allocations, nor a sample running its code (the JVM's notification
	// thread runs its listener of collections).
	// Seconds of them: allocations sampled, and collections the agent's
	// listener was told of.
	atLeast := func(kind decode.Kind, n int) expectation {
		return expectation{fmt.Sprintf("%d %v", n, kind), func(w *watched) bool {
			seen := 0
			return w.find(func(ev decode.Event) bool {
				if ev.Kind() == kind {
					seen++
				}
				return seen >= n
			})
		}}
	}
	await(t, w, []expectation{atLeast(decode.KindAllocation, 20), atLeast(decode.KindCollection, 6)}, 90*time.Second)
	w.find(func(ev decode.Event) bool {
		switch e := ev.(type) {
		case *decode.Allocation:
			if strings.HasPrefix(e.Class, "io.proftop.agent.") {
				t.Errorf("the agent's own allocations counted as the application's: %s, %d bytes", e.Class, e.Bytes)
			}
		case *decode.Sample:
			for _, m := range e.Stack.Methods {
				if strings.HasPrefix(m, "io.proftop.agent.") {
					t.Errorf("a sample of the agent's own code: %s", strings.Join(e.Stack.Methods, " < "))
					break
				}
			}
		}
		return false
	})
	// Attaching again finds the agent already there, and says which new
	// options it cannot take.
	again, err := Attach(j.cmd.Process.Pid, AttachOptions{})
	if err != nil || again.Port != port || len(again.Notes) != 0 {
		t.Fatalf("second attach: %+v, %v (first port %d)", again, err, port)
	}
	again, err = Attach(j.cmd.Process.Pid, AttachOptions{AgentOptions: "threshold=5ms"})
	if err != nil || again.Port != port || len(again.Notes) != 1 || !strings.Contains(again.Notes[0], "threshold") {
		t.Fatalf("attach with other options: %+v, %v", again, err)
	}
	cancel()
	j.exits(t, 20*time.Second)
}

// One client at a time: a second one is told why it is refused.
func TestAgentServesOneClient(t *testing.T) {
	j, port := startWithAgent(t, 120, false, "")
	w, _, cancel := watch(t, port, client.FormatAuto)
	await(t, w, expectations(t, false)[:1], 10*time.Second)
	second := client.NewSession(client.Config{Host: "127.0.0.1", Port: port})
	err := second.Run(context.Background())
	if err == nil || !strings.Contains(err.Error(), "BUSY") || !strings.Contains(err.Error(), "one at a time") || strings.Contains(err.Error(), "token") {
		t.Fatalf("second client: %v", err)
	}
	cancel()
	j.exits(t, 20*time.Second)
}

// Listening beyond loopback needs a token chosen for it, and the token is
// checked: a client without it gets UNAUTHORIZED and nothing else.
func TestAgentToken(t *testing.T) {
	j := startWorkload(t, 120, false, fmt.Sprintf("-javaagent:%s=host=0.0.0.0", jarFor(t)))
	j.exits(t, 20*time.Second)
	if !strings.Contains(j.stderr.String(), "give tokenfile=PATH (or token=SECRET) too") {
		t.Fatalf("an open agent without a token: %s", j.stderr)
	}
	tokenFile := filepath.Join(t.TempDir(), "token")
	os.WriteFile(tokenFile, []byte("s3cret\n"), 0o600)
	j, port := startWithAgent(t, 120, false, ",host=127.0.0.2,tokenfile="+tokenFile)
	if strings.Contains(strings.Join(j.cmd.Args, " "), "s3cret") {
		t.Fatal("the token shows on the command line")
	}
	// No token: the first command is answered UNAUTHORIZED, and the connection ends.
	raw := dialUnauthenticated(t, "127.0.0.2", port)
	m := raw.command(t, 1, &protocol.ListAgents{})
	if e := m.AsError(); e == nil || e.Code != protocol.CodeUnauthorized {
		t.Fatalf("listAgents without a token: %s %s", m.Name, m.Body)
	}
	raw.SetReadDeadline(time.Now().Add(10 * time.Second))
	if f, err := raw.r.Next(); !errors.Is(err, io.EOF) {
		t.Fatalf("after UNAUTHORIZED: %+v, %v", f, err)
	}
	// A wrong token: the same.
	err := client.NewSession(client.Config{Host: "127.0.0.2", Port: port, Token: "wrong"}).Run(context.Background())
	if err == nil || !strings.Contains(err.Error(), "UNAUTHORIZED: wrong token") {
		t.Fatalf("a wrong token: %v", err)
	}
	// proftop run by the JVM's user finds the token the agent left, and is in.
	if token, path := client.LocalToken(port); token != "s3cret" {
		t.Fatalf("the token left for the JVM's user: %q in %q", token, path)
	}
	s := client.NewSession(client.Config{Host: "127.0.0.2", Port: port, Reconnect: true, ReconnectMin: 100 * time.Millisecond})
	// Until events come: the agent starts JFR and polls once a client
	// authenticates, which takes seconds on a loaded machine.
	ctx, stop := context.WithTimeout(context.Background(), 60*time.Second)
	defer stop()
	go func() {
		for b := range s.Batches() {
			s.Recycle(b)
			if s.Status().Events > 0 {
				stop()
			}
		}
	}()
	s.Run(ctx)
	if st := s.Status(); st.Streams != 1 || st.Events == 0 {
		t.Fatalf("with the token: %+v", st)
	}
	j.exits(t, 20*time.Second)
}

func jarFor(t testing.TB) string {
	_, jar := workload(t)
	return jar
}

// The agent's encoders write exactly what proftop's encoder writes for the
// same events, and its XML decodes to the same events, on every JDK.
func TestAgentEncodersConform(t *testing.T) {
	eachJDK(t, testAgentEncodersConform)
}

func testAgentEncodersConform(t *testing.T, jdk jdk) {
	_, jar := workload(t)
	dir := t.TempDir()
	bin, xml := filepath.Join(dir, "c.trcbin"), filepath.Join(dir, "c.trcxml")
	if out, err := exec.Command(jdk.tool("java"), "-cp", jar, "io.proftop.agent.Conformance", bin, xml).CombinedOutput(); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	stack := decode.Stack{Methods: []string{"com.acme.Cache.get", `com.acme.Api.handle <&"'>`, "java.lang.Thread.run"}, Lines: []int64{88, 31, -1}}
	tt := decode.Ticks(1_700_000_000_123_456_789)
	want := []decode.Event{
		&decode.Node{NodeID: "node-1", Hostname: "prod-1", IPAddress: "10.0.0.1", Timezone: 60, Time: tt},
		&decode.ProcessCreate{ProcessID: "process-1", Name: "com.acme.Main", PID: 4242, NodeIDRef: "node-1", Time: tt, Executable: "/usr/bin/java"},
		&decode.AgentCreate{AgentID: "agent-1", ProcessIDRef: "process-1", AgentName: "proftop JVM agent", AgentType: "Profiler", Time: tt, AgentParameters: "threshold=0ms", Version: "1.0"},
		&decode.TraceStart{TraceID: "trace-1", AgentIDRef: "agent-1", Time: tt},
		&decode.ThreadStart{ThreadID: 1, Time: tt + 1, GroupName: "main", ParentName: "system", ThreadName: "main"},
		&decode.ThreadStart{ThreadID: 23, Time: tt + 2, GroupName: "main", ThreadName: "worker \"1\"\tÄ線"},
		&decode.ClassDef{ClassID: 1, Time: tt + 3, Name: "com.acme.Cache", SourceName: "Cache.java"},
		&decode.MethodDef{Name: "get", Signature: "(Ljava/lang/String;)Ljava/lang/Object;", StartLineNumber: 80, EndLineNumber: 80, ClassIDRef: 1, MethodID: 7},
		&decode.ObjAlloc{ObjID: 0x7f3a0048, ClassIDRef: 1, Time: tt + 4},
		&decode.ObjClass{ObjID: 0x7f3a0050, ClassIDRef: 1, Time: tt + 4},
		&decode.MonContendedEnter{ThreadIDRef: 23, Time: tt + 5, ObjIDRef: 0x7f3a0048, ThreadOwner: 1, Stack: stack},
		&decode.MonContendedEntered{ThreadIDRef: 23, Time: tt + 6, ObjIDRef: 0x7f3a0048, Stack: stack},
		&decode.MonWait{MonitorWait: decode.MonitorWait{ThreadIDRef: 1, Time: tt + 7, ObjIDRef: 0x7f3a0048, Timeout: 500, Stack: stack}},
		&decode.MonWaited{MonitorWait: decode.MonitorWait{ThreadIDRef: 1, Time: tt + 8, ObjIDRef: 0x7f3a0048, Timeout: 500}},
		&decode.GCStart{ThreadMoment: decode.ThreadMoment{Time: tt + 9}},
		&decode.GCFinish{Time: tt + 10, TotalObjSpace: 1 << 30, UsedObjSpace: 123_456_789},
		&decode.AgMethodEntry{ThreadIDRef: 23, MethodIDRef: 7, BaseTime: 40_000_000, MinTime: -1, MaxTime: -1, BaseCPUTime: 40_000_000, NumCalls: 2},
		&decode.Sample{ThreadIDRef: 23, Time: tt + 12, Count: 3, Weight: 60_000_000, Stack: stack},
		&decode.ThreadState{ThreadIDRef: 23, Time: tt + 13, State: "parked", Flags: decode.ThreadTimed, LockObjIDRef: 0x1234,
			LockClass: "java.util.concurrent.locks.ReentrantLock$NonfairSync", LockOwner: 1, CPUTime: 77_000_000, Stack: stack},
		&decode.ThreadState{ThreadIDRef: 1, Time: tt + 13, State: "running", Flags: decode.ThreadStackUnchanged, CPUTime: -1},
		&decode.ThreadPoll{Time: tt + 13, Threads: 2, Flags: decode.PollComplete},
		&decode.ThreadState{ThreadIDRef: 100031, Time: tt + 13, State: "blocked", Flags: decode.ThreadVirtual | decode.ThreadMounted | decode.ThreadPinned,
			LockObjIDRef: 0x5678, LockClass: "java.lang.Object", LockOwner: 23, CPUTime: -1, Stack: stack, Carrier: 25, ThreadName: `vt "1"`,
			Container: "java.util.concurrent.ThreadPerTaskExecutor@5b6f7412"},
		&decode.ThreadState{ThreadIDRef: 24, Time: tt + 13, State: "blocked", Flags: decode.ThreadStackUnchanged, LockObjIDRef: 0x5678,
			LockClass: "java.lang.Object", LockOwner: 23, CPUTime: 5_000_000, BlockedCount: 7, WaitedCount: 3},
		&decode.ThreadGroup{Time: tt + 13, Container: "<root>", State: "parked", Flags: decode.ThreadVirtual, LockObjIDRef: 0x9abc,
			LockClass: "java.util.concurrent.CountDownLatch$Sync", Count: 3120, Site: "com.acme.OrderService.await", Stack: stack},
		&decode.VirtualThreads{Time: tt + 13, Count: 3121, Started: 5000, Ended: 1879, Flags: decode.VirtualListing | decode.VirtualComplete,
			ListedAt: tt + 13, Listed: 1, Groups: 1, Cost: 12_000_000, Period: 1_000_000_000},
		&decode.SourceNote{Time: tt + 13, Topic: "virtual-threads", Level: 1, Text: "listed every 42 s <&>"},
		&decode.VirtualPinned{ThreadIDRef: 100031, Time: tt + 13, Duration: 25_000_000, Carrier: 25, Reason: "Native or VM frame on stack",
			Operation: "Object.wait", Stack: stack},
		&decode.MemoryPool{Time: tt + 14, Name: "G1 Eden Space", Heap: 1, Used: 1 << 20, Committed: 1 << 24, Max: -1},
		&decode.Collection{Time: tt + 15, Collector: "G1 Young Generation", Cause: "G1 Evacuation Pause", Pause: 4_500_000,
			UsedBefore: 300 << 20, UsedAfter: 100 << 20, Committed: 1 << 30, Sequence: 12},
		&decode.GCTotals{Time: tt + 15, Collector: "G1 Young Generation", Count: 12, TotalTime: 81_000_000},
		&decode.Allocation{Time: tt + 15, Class: "byte[]", Count: -1, Bytes: 3 << 20},
		&decode.Allocation{Time: tt + 15, Class: "com.acme.Api$$Lambda$88/0x00007f02a4007a08", Count: 1, Bytes: 24},
		&decode.TelemetrySeries{Time: tt + 17, Series: 1, Name: "Live threads", Unit: decode.UnitPlain, Divisor: 1},
		&decode.TelemetrySeries{Time: tt + 17, Series: 2, Name: "HeapMemoryUsage.used (java.lang:type=Memory) <&\"'>+~*% Ж線", Unit: decode.UnitBytes, Divisor: 1000},
		&decode.TelemetryValue{Time: tt + 17, Series: 1, Value: 42},
		&decode.TelemetryValue{Time: tt + 17, Series: 2, Value: -7},
		&decode.TelemetryProblem{Time: tt + 18, Spec: "jmx:a:type=B:C", Problem: "no MBean named a:type=B"},
		&decode.TelemetryProblem{Time: tt + 19, Spec: "jmx:a:type=B:C"},
		&decode.Probe{Time: tt + 20, Name: "jfr:bank.Transfer#state", Group: "RUNNING", Count: 3, Total: 4_500_000, Max: 2_000_000, Stack: stack},
		&decode.Custom{Body: "com.acme.shop"},
		&decode.AgentCost{Time: tt + 15, AgentCPU: 12_000_000, JFRCPU: 3_000_000, AgentThreads: 4, JFRThreads: 2, ProcessCPU: -1},
		&decode.ThreadEnd{ThreadMoment: decode.ThreadMoment{ThreadIDRef: 23, Time: tt + 11}},
		&decode.RuntimeShutdown{ThreadMoment: decode.ThreadMoment{Time: tt + 16}},
	}
	var ours bytes.Buffer
	enc := decode.NewEncoder(&ours, decode.EncoderOptions{})
	for _, ev := range want {
		if err := enc.Encode(ev); err != nil {
			t.Fatal(err)
		}
	}
	enc.Flush()
	theirs, _ := os.ReadFile(bin)
	if !bytes.Equal(theirs, ours.Bytes()) {
		t.Fatalf("the agent's binary differs from proftop's encoder:\nagent   % x\nproftop % x", theirs, ours.Bytes())
	}
	for _, path := range []string{bin, xml} {
		f, _ := os.Open(path)
		got, _ := decodeEvents(t, f)
		f.Close()
		if len(got) != len(want) {
			t.Fatalf("%s: %d events, want %d", path, len(got), len(want))
		}
		for i := range want {
			g, w := got[i], want[i]
			if mw, ok := g.(*decode.MonWaited); ok && len(mw.Stack.Methods) == 0 {
				mw.Stack = decode.Stack{}
			}
			if !reflect.DeepEqual(g, w) {
				t.Fatalf("%s: event %d\n got %#v\nwant %#v", filepath.Ext(path), i, g, w)
			}
		}
	}
}

// The jar committed is the jar the sources build (go generate ./agent).
func TestJarIsUpToDate(t *testing.T) {
	requireJDK(t)
	out, err := exec.Command("go", "run", "./internal/jarbuild", "-src", "java", "-out", "proftop-agent.jar", "-check").CombinedOutput()
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
}

// decodeEvents decodes a whole trace, any format, into events of their
// own, and the decoder's clock; an error fails the test.
func decodeEvents(t *testing.T, r io.Reader) ([]decode.Event, decode.Clock) {
	t.Helper()
	d, err := decode.Open(r, decode.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var out []decode.Event
	for {
		ev, err := d.Next()
		if err == io.EOF {
			return out, d.Clock()
		}
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, decode.Clone(ev))
	}
}
