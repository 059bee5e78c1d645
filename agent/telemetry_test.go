package agent

import (
	"bufio"
	"context"
	"fmt"
	"math"
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
	"github.com/proftop/proftop/internal/syncbuf"
	"github.com/proftop/proftop/state"
)

// bank is a running testdata/bank/Bank.java, with what it last said of
// itself ("jvm threads N daemon N classes N").
type bank struct {
	*jvm
	port int
	mu   sync.Mutex
	said [3]int64
}

func (b *bank) itself() [3]int64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.said
}

// startBank runs Bank.java (compiled with the workload) with the agent.
func startBank(t *testing.T) *bank {
	t.Helper()
	bankDir, jar := workload(t)
	portFile := filepath.Join(t.TempDir(), "port")
	cmd := exec.Command("java", fmt.Sprintf("-javaagent:%s=port=0,portfile=%s", jar, portFile), "-cp", bankDir, "Bank", "300")
	b := &bank{jvm: &jvm{cmd: cmd, done: make(chan error, 1), stderr: &syncbuf.Buffer{}}}
	cmd.Stderr = b.stderr
	b.stdin, _ = cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill() })
	said := regexp.MustCompile(`^jvm threads (\d+) daemon (\d+) classes (\d+)$`)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			if m := said.FindStringSubmatch(sc.Text()); m != nil {
				b.mu.Lock()
				for i := range b.said {
					b.said[i], _ = strconv.ParseInt(m[i+1], 10, 64)
				}
				b.mu.Unlock()
			}
		}
		b.done <- cmd.Wait()
	}()
	at, err := waitForPort(portFile, 20*time.Second, cmd.Process.Pid)
	if err != nil {
		t.Fatalf("%v\n%s", err, b.stderr)
	}
	b.port = at.Port
	return b
}

// bankLine finds the line of Bank.java holding a marker comment.
func bankLine(t *testing.T, marker string) int64 {
	data, err := os.ReadFile("testdata/bank/Bank.java")
	if err != nil {
		t.Fatal(err)
	}
	for i, l := range strings.Split(string(data), "\n") {
		if strings.Contains(l, marker) {
			return int64(i + 1)
		}
	}
	t.Fatalf("no %q in Bank.java", marker)
	return 0
}

// watchTelemetry runs a session that asks for the given series and probes,
// feeding an aggregator.
func watchTelemetry(t *testing.T, port int, format client.FormatChoice, series, probes []string) (*state.Aggregator, *client.Session, context.CancelFunc) {
	t.Helper()
	s := client.NewSession(client.Config{Host: "127.0.0.1", Port: port, Format: format, Telemetry: series, Probes: probes,
		Reconnect: true, ReconnectMin: 100 * time.Millisecond}) // the agent serves one client at a time: the previous may still hold it
	ctx, cancel := context.WithCancel(context.Background())
	agg := state.New(state.Options{})
	done := make(chan struct{})
	go func() {
		agg.Feed(s)
		close(done)
	}()
	go s.Run(ctx)
	stop := func() {
		cancel()
		<-done
	}
	t.Cleanup(stop)
	return agg, s, stop
}

func last(s *state.Snapshot, name string) (float64, bool) {
	for i := range s.Telemetry {
		if sr := &s.Telemetry[i]; sr.Name == name {
			if p, ok := sr.Last(); ok {
				return sr.Scaled(p.Value), true
			}
		}
	}
	return 0, false
}

func problemOf(s *state.Snapshot, spec string) string {
	for _, p := range s.TelemetryProblems {
		if p.Spec == spec {
			return p.Problem
		}
	}
	return ""
}

// jstatColumn runs jstat OPTION PID and returns a column of its figures.
func jstatColumn(t *testing.T, option string, pid int, column string) float64 {
	t.Helper()
	out, err := exec.Command("jstat", option, strconv.Itoa(pid)).CombinedOutput()
	if err != nil {
		t.Fatalf("jstat %s: %v\n%s", option, err, out)
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	head, row := strings.Fields(lines[0]), strings.Fields(lines[len(lines)-1])
	for i, h := range head {
		if h == column && i < len(row) {
			v, err := strconv.ParseFloat(row[i], 64)
			if err != nil {
				t.Fatalf("jstat %s: %s is %q", option, column, row[i])
			}
			return v
		}
	}
	t.Fatalf("jstat %s has no column %s:\n%s", option, column, out)
	return 0
}

// The JVM's standard series and the application's own, chosen without
// changing the application: an MBean pattern (resolved at each poll: an
// account registered later shows up), a key of a composite attribute, a
// floating-point attribute, a JFR event's field summed per second and its
// latest value, and a probe on a duration event of the application's,
// grouped by its state, with the places it is committed at. What cannot be
// read says why, spec by spec, while the rest goes on.
func TestTelemetryOfARealJVM(t *testing.T) {
	requireJDK(t)
	b := startBank(t)
	pid := b.cmd.Process.Pid
	pattern := "jmx:bank:type=Account,name=*:Balance"
	bad := map[string]string{
		"jmx:bank:type=Account,name=checking:Owner":  "Owner of bank:type=Account,name=checking is a String, not a number",
		"jmx:bank:type=Nope:X":                       "no MBean named bank:type=Nope",
		"jmx:bank:type=Account,name=checking:Totals": "is composite: name a key, Totals.KEY (its keys: deposits, withdrawals)",
		"jmx:bank:type=Account,name=checking:Nope":   "has no attribute Nope",
		"bogus:thing":              "unknown kind of series",
		"jmx:bank:nokey:X":         "\"bank:nokey\" is not an object name",
		"jmx:not an object name:X": "not jmx:OBJECTNAME:ATTRIBUTE[.KEY]",
		"jfr:bank.Nope#x":          "no event bank.Nope is registered",
		"jfr:bank.Deposit#nope":    "event bank.Deposit has no field nope",
	}
	series := []string{pattern, "jmx:bank:type=Account,name=checking:Totals.deposits", "jmx:bank:type=Account,name=checking:Rate",
		"jfr:bank.Deposit#amount"}
	for spec := range bad {
		series = append(series, spec)
	}
	probe := "jfr:bank.Transfer#state"
	agg, s, stop := watchTelemetry(t, b.port, client.FormatAuto, series, []string{probe})
	started := time.Now()
	waiting, running := bankLine(t, "WAITING COMMIT"), bankLine(t, "RUNNING COMMIT")
	hasFrame := func(r *state.ProbeRow, line int64) bool {
		for _, hs := range r.HotSpots {
			for _, f := range hs.Stack {
				if f.Method == "Bank.transfer" && f.Line == line {
					return true
				}
			}
		}
		return false
	}
	type check struct {
		what string
		ok   func(*state.Snapshot) bool
	}
	checks := []check{
		{"a series per account the pattern matches, the late one too, grouped", func(s *state.Snapshot) bool {
			n := 0
			for _, sr := range s.Telemetry {
				if strings.HasPrefix(sr.Name, "Balance (bank:type=Account,name=") && sr.Group == "Balance" {
					n++
				}
			}
			v, ok := last(s, "Balance (bank:type=Account,name=late)")
			return n == 3 && ok && v == 7
		}},
		{"the checking account's balance, growing with deposits", func(s *state.Snapshot) bool {
			v, ok := last(s, "Balance (bank:type=Account,name=checking)")
			return ok && v > 1000
		}},
		{"a key of a composite attribute", func(s *state.Snapshot) bool {
			v, ok := last(s, "Totals.deposits (bank:type=Account,name=checking)")
			return ok && v > 0
		}},
		{"a floating-point attribute, to three decimals", func(s *state.Snapshot) bool {
			v, ok := last(s, "Rate (bank:type=Account,name=checking)")
			return ok && v == 0.25
		}},
		{"a JFR field summed per second, and its latest value", func(s *state.Snapshot) bool {
			rate, ok1 := last(s, "bank.Deposit amount/s")
			latest, ok2 := last(s, "bank.Deposit amount")
			return ok1 && ok2 && rate > 100 && latest >= 1 && latest <= 100
		}},
		{"the probe's two states, with their durations and where they are committed", func(s *state.Snapshot) bool {
			var w, r *state.ProbeRow
			for i := range s.Probes {
				switch p := &s.Probes[i]; {
				case p.Probe == probe && p.Group == "WAITING":
					w = p
				case p.Probe == probe && p.Group == "RUNNING":
					r = p
				}
			}
			return w != nil && r != nil && w.Count > 10 && r.Count > 10 && w.Avg >= 2*time.Millisecond && r.Avg >= time.Millisecond &&
				w.Max >= w.Avg && hasFrame(w, waiting) && hasFrame(r, running)
		}},
		{"the JVM's standard series", func(s *state.Snapshot) bool {
			for _, name := range []string{"Live threads", "Daemon threads", "Classes loaded", "Process CPU load", "Machine CPU load",
				"GC activity", "Allocations per second", "Open file descriptors", "Heap used (G1 Eden Space)", "Non-heap used (Metaspace)"} {
				if _, ok := last(s, name); !ok {
					return false
				}
			}
			return true
		}},
	}
	for spec, want := range bad {
		checks = append(checks, check{fmt.Sprintf("the problem with %s", spec), func(s *state.Snapshot) bool {
			return strings.Contains(problemOf(s, spec), want)
		}})
	}
	var snap *state.Snapshot
	for deadline := time.Now().Add(60 * time.Second); ; {
		snap = agg.Snapshot(time.Now(), state.Query{CallersOf: -1})
		var missing []string
		for _, c := range checks {
			if !c.ok(snap) {
				missing = append(missing, c.what)
			}
		}
		if len(missing) == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("after 60s, still missing: %s\nproblems: %+v\nagent: %s", strings.Join(missing, "; "), snap.TelemetryProblems, b.stderr)
		}
		time.Sleep(200 * time.Millisecond)
	}
	if st := s.Status(); st.DecodeErrors != 0 {
		t.Fatalf("%d decode errors: %s", st.DecodeErrors, st.LastError)
	}
	t.Logf("everything within %v of asking", time.Since(started).Round(time.Second))
	// The standard series against what the JVM says of itself, and jstat.
	said := b.itself()
	threads, _ := last(snap, "Live threads")
	daemons, _ := last(snap, "Daemon threads")
	classes, _ := last(snap, "Classes loaded")
	if math.Abs(threads-float64(said[0])) > 4 || math.Abs(daemons-float64(said[1])) > 4 {
		t.Errorf("threads %v (daemon %v); the application's ThreadMXBean says %d (daemon %d)", threads, daemons, said[0], said[1])
	}
	if loaded := jstatColumn(t, "-class", pid, "Loaded"); math.Abs(classes-loaded) > 0.05*loaded {
		t.Errorf("classes loaded %v; jstat -class says %v", classes, loaded)
	}
	if mu, _ := last(snap, "Non-heap used (Metaspace)"); math.Abs(mu/1024-jstatColumn(t, "-gc", pid, "MU")) > 0.25*mu/1024 {
		t.Errorf("metaspace used %v KiB; jstat -gc says %v", mu/1024, jstatColumn(t, "-gc", pid, "MU"))
	}
	for _, name := range []string{"Process CPU load", "Machine CPU load", "GC activity"} {
		if v, _ := last(snap, name); v < 0 || v > 100 {
			t.Errorf("%s is %v%%", name, v)
		}
	}
	if v, _ := last(snap, "Allocations per second"); v < 1<<20 {
		t.Errorf("allocations per second %v: the teller allocates megabytes a second", v)
	}
	if v, _ := last(snap, "Open file descriptors"); v < 3 {
		t.Errorf("open file descriptors %v", v)
	}
	stop()

	// The same through the XML encoding: the series and problems arrive alike.
	agg, s, stop = watchTelemetry(t, b.port, client.FormatXML, []string{pattern, "jmx:bank:type=Nope:X"}, []string{probe})
	for deadline := time.Now().Add(30 * time.Second); ; {
		snap = agg.Snapshot(time.Now(), state.Query{CallersOf: -1})
		_, ok := last(snap, "Balance (bank:type=Account,name=savings)")
		_, threads := last(snap, "Live threads")
		if ok && threads && len(snap.Probes) > 0 && strings.Contains(problemOf(snap, "jmx:bank:type=Nope:X"), "no MBean") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("XML: %d series, %d probes, problems %+v", len(snap.Telemetry), len(snap.Probes), snap.TelemetryProblems)
		}
		time.Sleep(200 * time.Millisecond)
	}
	if st := s.Status(); st.Format != decode.FormatXML || st.DecodeErrors != 0 {
		t.Fatalf("%+v", st)
	}
	stop()
	b.exits(t, 20*time.Second)
}
