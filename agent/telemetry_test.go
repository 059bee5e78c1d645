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
// itself ("jvm threads N daemon N classes N") and the amounts it deposited
// in each second ("deposits SECOND SUM").
type bank struct {
	*jvm
	port     int
	mu       sync.Mutex
	said     [3]int64
	deposits map[int64]int64
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
	b := &bank{jvm: &jvm{cmd: cmd, done: make(chan error, 1), stderr: &syncbuf.Buffer{}}, deposits: map[int64]int64{}}
	cmd.Stderr = b.stderr
	b.stdin, _ = cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill() })
	said := regexp.MustCompile(`^jvm threads (\d+) daemon (\d+) classes (\d+)$`)
	deposits := regexp.MustCompile(`^deposits (\d+) (\d+)$`)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			b.mu.Lock()
			if m := said.FindStringSubmatch(sc.Text()); m != nil {
				for i := range b.said {
					b.said[i], _ = strconv.ParseInt(m[i+1], 10, 64)
				}
			}
			if m := deposits.FindStringSubmatch(sc.Text()); m != nil {
				second, _ := strconv.ParseInt(m[1], 10, 64)
				b.deposits[second], _ = strconv.ParseInt(m[2], 10, 64)
			}
			b.mu.Unlock()
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

// depositsPerSecond compares proftop's "bank.Deposit amount/s", a point at
// the end of each second, with what Bank says it deposited in that second
// (none said: nothing), over the seconds Bank has finished: how many were
// compared, the largest difference, and each pair for the log.
func (b *bank) depositsPerSecond(s *state.Snapshot) (compared int, worst int64, pairs []string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	first, last := int64(math.MaxInt64), int64(-1)
	for second := range b.deposits {
		first, last = min(first, second), max(last, second)
	}
	for i := range s.Telemetry {
		sr := &s.Telemetry[i]
		if sr.Name != "bank.Deposit amount/s" {
			continue
		}
		for _, p := range sr.Points {
			second := p.At.Unix() - 1
			if p.At.Nanosecond() != 0 || second < first || second > last {
				continue
			}
			truth := b.deposits[second]
			compared++
			worst = max(worst, abs(p.Value-truth))
			pairs = append(pairs, fmt.Sprintf("%d:%d/%d", second%100, p.Value, truth))
		}
	}
	return compared, worst, pairs
}

func abs(v int64) int64 {
	if v < 0 {
		return -v
	}
	return v
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

// heapAgainstJstat compares the G1 pools of one poll with jstat -gc run
// just before and just after it. The heap moves between the two (the
// teller allocates megabytes a second, jstat takes a second to start on
// a busy machine), so the poll is judged by what cannot move unseen:
// without a collection between the two jstats, old gen and the survivors
// are what both say and eden lies between them; with one, old gen and the
// survivors are what one of them says (the collection came before the
// poll, or after). With more, another poll is tried.
func heapAgainstJstat(t *testing.T, agg *state.Aggregator, pid int) {
	t.Helper()
	const slack = 1 // KiB: jstat rounds to a tenth of one
	// The first point of a pool taken after a moment (the poll's own time, not when it arrived).
	pool := func(s *state.Snapshot, name string, after time.Time) (float64, time.Time, bool) {
		for i := range s.Telemetry {
			if sr := &s.Telemetry[i]; sr.Name == name {
				for _, p := range sr.Points {
					if p.At.After(after) {
						return float64(p.Value) / 1024, p.At, true
					}
				}
			}
		}
		return 0, time.Time{}, false
	}
	near := func(a, b float64) bool { return math.Abs(a-b) <= slack }
	for attempt := 1; attempt <= 10; attempt++ {
		before := jstatGC(t, pid)
		var old, survivor, eden float64
		var at time.Time
		for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(50 * time.Millisecond) {
			s := agg.Snapshot(time.Now(), state.Query{CallersOf: -1})
			var ok1, ok2, ok3 bool
			old, at, ok1 = pool(s, "Heap used (G1 Old Gen)", before.After)
			survivor, _, ok2 = pool(s, "Heap used (G1 Survivor Space)", before.After)
			eden, _, ok3 = pool(s, "Heap used (G1 Eden Space)", before.After)
			if ok1 && ok2 && ok3 {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("no poll of the G1 pools within 10s of jstat")
			}
		}
		after := jstatGC(t, pid)
		if !at.Before(after.Before) {
			continue // the second jstat began before the poll: it brackets nothing
		}
		between := after.YGC + after.FGC + after.CGC - before.YGC - before.FGC - before.CGC
		figures := fmt.Sprintf("proftop: old %.1f survivors %.1f eden %.1f KiB; jstat before: %v %v %v, after: %v %v %v; %d collections between",
			old, survivor, eden, before.OU, before.S0U+before.S1U, before.EU, after.OU, after.S0U+after.S1U, after.EU, between)
		switch between {
		case 0:
			if !near(old, before.OU) || !near(old, after.OU) || !near(survivor, before.S0U+before.S1U) ||
				eden < before.EU-slack || eden > after.EU+slack {
				t.Errorf("the heap pools disagree with jstat, no collection between: %s", figures)
			}
		case 1:
			if !(near(old, before.OU) && near(survivor, before.S0U+before.S1U)) && !(near(old, after.OU) && near(survivor, after.S0U+after.S1U)) {
				t.Errorf("the heap pools disagree with jstat, one collection between: %s", figures)
			}
		default:
			t.Logf("attempt %d: %s", attempt, figures)
			continue
		}
		t.Logf("%s", figures)
		return
	}
	t.Errorf("10 attempts, each with collections between the two jstats or a poll after the second")
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
		{"a JFR field summed per second over 5 seconds, and its latest value", func(s *state.Snapshot) bool {
			compared, _, _ := b.depositsPerSecond(s)
			latest, ok := last(s, "bank.Deposit amount")
			return compared >= 5 && ok && latest >= 1 && latest <= 100
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
	// Each second's sum is the amounts deposited in it, however JFR
	// delivered them; a deposit right at a second's edge may fall on
	// either side (Bank reads the clock just before committing).
	compared, worst, pairs := b.depositsPerSecond(snap)
	t.Logf("bank.Deposit amount/s, second:proftop/Bank: %s", strings.Join(pairs, " "))
	if worst > 200 {
		t.Errorf("over %d seconds a per-second sum was %d off what Bank deposited in that second", compared, worst)
	}
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
	heapAgainstJstat(t, agg, pid)
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
