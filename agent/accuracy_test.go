package agent

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/proftop/proftop/client"
	"github.com/proftop/proftop/decode"
	"github.com/proftop/proftop/state"
)

// The accuracy of proftop's picture of a real JVM running real third-party
// code (H2, Debian's libh2-java), against what the JDK's own tools say at
// the same moments: jstack for who is blocked, parked and sleeping now and
// for CPU time per thread, jstat for the collections, a JFR recording of
// the same JVM for the contentions, waits and parks over time. The
// figures are logged as the table docs/accuracy.md shows.
func TestAccuracyOnH2(t *testing.T) {
	const rounds = 8
	recording := filepath.Join(t.TempDir(), "truth.jfr")
	settings := jfcSettings(t, map[string]time.Duration{"jdk.ThreadPark": 0, "jdk.JavaMonitorEnter": 0, "jdk.JavaMonitorWait": 0, "jdk.ObjectAllocationSample": 0})
	_, jar := workload(t)
	portFile := filepath.Join(t.TempDir(), "port")
	j := startH2Load(t, 300,
		"-XX:StartFlightRecording=filename="+recording+",settings="+settings,
		fmt.Sprintf("-javaagent:%s=port=0,portfile=%s", jar, portFile))
	pid := j.cmd.Process.Pid
	at, err := waitForPort(portFile, 20*time.Second, pid)
	if err != nil {
		t.Fatalf("%v\n%s", err, j.stderr)
	}
	w, _, cancel := watch(t, at.Port, client.FormatAuto)
	defer cancel()
	w.nextPoll(t, 30*time.Second)
	w.nextPoll(t, 10*time.Second)

	// Who is blocked, parked and sleeping now: each round, a poll and a
	// jstack a moment after it.
	var steady, whole []stateCounts
	var first, last cpuLook
	from := time.Now()
	for r := 0; r < rounds; r++ {
		snap := w.nextPoll(t, 10*time.Second)
		dump := jstackDump(t, pid)
		look := lookPair{snap: snap, dump: dump}
		if r == 0 {
			first = look.bracket(t, w)
		}
		if r == rounds-1 {
			last = look.bracket(t, w)
		}
		ours, theirs := look.counts(isSteady)
		if look.steadyLetGo(w) {
			t.Logf("round %d: a steady holder was letting go at one of the looks: not compared", r)
			continue
		}
		steady = append(steady, ours, theirs)
		for _, s := range []string{"blocked", "parked", "sleeping"} {
			if d := ours[s] - theirs[s]; d < -1 || d > 1 {
				t.Errorf("round %d: %d threads %s by proftop's poll, %d by jstack (steady threads, idle pool, sleeper)\nproftop %v\njstack  %v",
					r, ours[s], s, theirs[s], ours, theirs)
			}
		}
		o, th := look.counts(func(string) bool { return true })
		whole = append(whole, o, th)
		// The agent names the lock objects it sees (thousands of H2
		// Transactions a minute) without allocating them: the objects
		// pane must not count them as live objects, a leak that is not.
		for _, c := range snap.Objects.Classes {
			if c.Live != 0 {
				t.Errorf("round %d: the objects pane counts %d live %s: the agent reports no allocations one by one", r, c.Live, c.Class)
			}
		}
	}
	to := time.Now()
	if len(steady) < 2*(rounds-2) {
		t.Fatalf("only %d of %d rounds could be compared", len(steady)/2, rounds)
	}
	logCounts(t, "steady threads, idle pool, sleeper", steady)
	logCounts(t, "every thread (those that change state every millisecond differ between two looks)", whole)

	// CPU per thread over the rounds: jstack's cpu= within proftop's polls'.
	compareCPU(t, first, last, 100*time.Millisecond)

	// Collections: every collection since the JVM started, as jstat counts them.
	compareGC(t, w, pid)

	// Contentions, waits and parks over time, against the JFR recording.
	w.caughtUp(t, to, 60*time.Second)
	dumpJFR(t, pid, recording)
	truth := jfrEventsDepth(t, recording, 1, "jdk.ThreadPark", "jdk.JavaMonitorEnter", "jdk.JavaMonitorWait")
	got := w.countByClass(from, to)
	want := map[string]int{}
	for _, e := range truth {
		if e.Start.Before(from) || !e.Start.Before(to) || strings.HasPrefix(e.Thread, "proftop-") || strings.HasPrefix(e.Thread, "JFR ") {
			continue
		}
		switch e.Type {
		case "jdk.ThreadPark":
			if c := e.Str("parkedClass"); c != "" {
				want["park "+c]++
			}
		case "jdk.JavaMonitorEnter":
			want["enter "+e.Str("monitorClass")]++
		case "jdk.JavaMonitorWait":
			want["wait "+e.Str("monitorClass")]++
		}
	}
	t.Logf("%-75s %8s %8s", "over "+to.Sub(from).Round(time.Second).String(), "JFR", "proftop")
	for _, c := range []struct {
		key       string
		tolerance float64
	}{
		{"park java.util.concurrent.locks.ReentrantLock$NonfairSync", 0.2},
		{"enter java.lang.Object", 0.1},
		{"wait org.h2.mvstore.tx.Transaction", 0.1},
	} {
		w, g := want[c.key], got[c.key]
		t.Logf("%-75s %8d %8d", c.key, w, g)
		if w < 50 {
			t.Errorf("%s: only %d in the JFR recording: the workload did not contend", c.key, w)
			continue
		}
		if r := float64(g) / float64(w); r < 1-c.tolerance || r > 1+c.tolerance {
			t.Errorf("%s: proftop counted %d, JFR recorded %d", c.key, g, w)
		}
	}

	// Allocations over the same moments: the application's, not the agent's.
	compareAllocations(t, w, recording, from, to)
}

// isSteady says whether a thread of H2Load is in the same state whenever
// two tools look a moment apart.
func isSteady(name string) bool {
	return strings.HasPrefix(name, "steady-") || strings.HasPrefix(name, "idle-pool-") || name == "sleeper"
}

// stateCounts counts threads by state: blocked, parked, sleeping, waiting,
// running; "source" says whose.
type stateCounts map[string]int

// lookPair is one poll of proftop's and the jstack taken right after it.
type lookPair struct {
	snap *state.Snapshot
	dump threadDump
}

// counts counts the threads that pick selects, by proftop's poll and by jstack.
func (l lookPair) counts(pick func(string) bool) (ours, theirs stateCounts) {
	ours, theirs = stateCounts{}, stateCounts{}
	for _, th := range l.snap.Threads {
		if th.State == state.ThreadEnded || !pick(th.Name) {
			continue
		}
		switch th.State {
		case state.ThreadBlocked, state.ThreadParked, state.ThreadSleeping:
			ours[th.State.String()]++
		case state.ThreadWaiting, state.ThreadTimedWaiting:
			ours["waiting"]++
		default:
			ours["running"]++
		}
	}
	for _, name := range l.dump.Order {
		th := l.dump.Threads[name]
		if th.ID == 0 || !pick(th.Name) || strings.HasPrefix(th.Name, "proftop-") || strings.HasPrefix(th.Name, "JFR ") || th.Name == "Attach Listener" {
			continue
		}
		switch {
		case th.State == "BLOCKED":
			theirs["blocked"]++
		case th.Detail == "parking":
			theirs["parked"]++
		case th.Detail == "sleeping":
			theirs["sleeping"]++
		case th.State == "WAITING" || th.State == "TIMED_WAITING":
			theirs["waiting"]++
		default:
			theirs["running"]++
		}
	}
	return ours, theirs
}

// steadyLetGo says whether either look caught a steady holder in its
// ~5 ms let-go, when its waiters may be anywhere: the holder's frame in
// H2Load is then at another line than its STEADY … HOLD.
func (l lookPair) steadyLetGo(w *watched) bool {
	for name, marker := range map[string]string{"steady-monitor": "STEADY MONITOR HOLD", "steady-lock": "STEADY LOCK HOLD"} {
		hold := h2Line(w.t, marker)
		if th, ok := l.dump.Threads[name]; ok {
			for _, f := range th.Frames {
				if strings.HasPrefix(f, "H2Load.steady") && !strings.HasSuffix(f, fmt.Sprintf(":%d", hold)) {
					return true
				}
			}
		}
		for _, th := range l.snap.Threads {
			if th.Name != name {
				continue
			}
			for _, f := range w.stackOf(th.ID) {
				if strings.HasPrefix(f.Method, "H2Load.steady") && f.Line != hold {
					return true
				}
			}
		}
	}
	return false
}

// logCounts logs proftop's and jstack's counts, look by look.
func logCounts(t *testing.T, what string, pairs []stateCounts) {
	t.Logf("%s: blocked, parked, sleeping, waiting, running by proftop / by jstack, look by look:", what)
	for i := 0; i+1 < len(pairs); i += 2 {
		o, th := pairs[i], pairs[i+1]
		t.Logf("  %2d/%-2d %2d/%-2d %2d/%-2d %2d/%-2d %2d/%-2d", o["blocked"], th["blocked"], o["parked"], th["parked"],
			o["sleeping"], th["sleeping"], o["waiting"], th["waiting"], o["running"], th["running"])
	}
}

// cpuLook is a jstack bracketed by two polls: one taken before jstack
// started, one after it ended.
type cpuLook struct {
	before *state.Snapshot
	dump   threadDump
	after  *state.Snapshot
}

// bracket takes the poll after a look's jstack.
func (l lookPair) bracket(t *testing.T, w *watched) cpuLook {
	return cpuLook{before: l.snap, dump: l.dump, after: w.pollAfter(t, l.dump.After)}
}

// compareCPU checks the CPU time proftop's polls read of each thread that
// used at least minCPU between two jstacks: jstack's CPU time between its
// two dumps must lie between what proftop read in the polls just inside
// and just outside them. Bounds, not rates: proftop's polls and jstack's
// dumps are never at the same moment, and on a loaded machine jstack takes
// seconds to attach, so the rates over their two spans differ with the
// load; the bounds hold whatever the load, and a CPU time read wrong (a
// wrong thread, a wrong unit, a lost interval) falls outside them. The
// rates are logged for docs/accuracy.md, jstack's over each thread's own
// elapsed= between the dumps.
func compareCPU(t *testing.T, first, last cpuLook, minCPU time.Duration) {
	cpuOf := func(s *state.Snapshot) map[string]time.Duration {
		m := map[string]time.Duration{}
		for _, th := range s.Threads {
			m[th.Name] = th.CPU
		}
		return m
	}
	b0, a0, b1, a1 := cpuOf(first.before), cpuOf(first.after), cpuOf(last.before), cpuOf(last.after)
	span := last.before.PolledAt.Sub(first.before.PolledAt)
	t.Logf("CPU between two jstacks, bounded by proftop's polls around them; %% of a core over %v (proftop):", span.Round(time.Millisecond))
	compared := 0
	for _, name := range last.dump.Order {
		a, ok := first.dump.Threads[name]
		b := last.dump.Threads[name]
		_, listed := a1[name]
		if !ok || b.ID == 0 || !listed {
			continue // the JVM's compiler threads are Java threads hidden from ThreadMXBean
		}
		if b.Elapsed <= a.Elapsed {
			continue // not the same thread: a name taken again
		}
		theirs := b.CPU - a.CPU
		if theirs < minCPU {
			continue // idle: nothing to tell a wrong reading from a right one
		}
		compared++
		// jstack prints CPU time in hundredths of a millisecond.
		const rounding = 10 * time.Microsecond
		low, high := b1[name]-a0[name]-rounding, a1[name]-b0[name]+rounding
		t.Logf("  %-34s jstack %8v in [%v, %v]; rate jstack %5.1f%%, proftop %5.1f%%", name, theirs.Round(time.Millisecond),
			low.Round(time.Millisecond), high.Round(time.Millisecond),
			100*float64(theirs)/float64(b.Elapsed-a.Elapsed), 100*float64(b1[name]-b0[name])/float64(span))
		if theirs < low || theirs > high {
			t.Errorf("%s: %v of CPU between the jstacks, outside what proftop's polls around them read: [%v, %v]",
				name, theirs, low, high)
		}
	}
	if compared < 4 {
		t.Errorf("only %d threads used %v of CPU between the jstacks", compared, minCPU)
	}
}

// compareGC checks proftop's count of collections against jstat's, taken
// just before and just after a poll: when those two agree, no collection
// happened in between, and proftop must say the same. The poll must be
// taken after the first jstat, not merely arrive after it (on a loaded
// machine a poll taken earlier can arrive late), and the picture is taken
// once the next poll has begun to arrive: a poll's collection totals come
// after its threads, perhaps in a later batch.
func compareGC(t *testing.T, w *watched, pid int) {
	// On a loaded machine a collection may come between the two jstats
	// every time: then the closest pair brackets proftop's count, as the
	// polls around a jstack bracket its CPU time.
	var closest struct{ low, high, got int64 }
	closest.high = -1
	for try := 0; try < 8; try++ {
		before := jstatGC(t, pid)
		w.pollAfter(t, time.Now())
		snap := w.nextPoll(t, 10*time.Second)
		after := jstatGC(t, pid)
		if !snap.GC.SinceStart {
			t.Errorf("proftop's collections are not counted since the JVM started (%v)", snap.GC.Collectors)
		}
		low, high := max(before.YGC, 0)+max(before.FGC, 0), max(after.YGC, 0)+max(after.FGC, 0)
		if low == high {
			t.Logf("collections: jstat YGC %d + FGC %d = %d; proftop %d since the JVM started (%v)", after.YGC, after.FGC, high,
				snap.GC.Count, snap.GC.Collectors)
			if snap.GC.Count != high {
				t.Errorf("proftop counts %d collections, jstat %d", snap.GC.Count, high)
			}
			return
		}
		if closest.high < 0 || high-low < closest.high-closest.low {
			closest.low, closest.high, closest.got = low, high, snap.GC.Count
		}
	}
	t.Logf("collections: a collection came between the two jstats every time; the closest pair: jstat %d then %d, proftop %d between",
		closest.low, closest.high, closest.got)
	if closest.high-closest.low > 3 {
		t.Errorf("no two jstats closer than %d collections apart: nothing to compare proftop's count with", closest.high-closest.low)
	} else if closest.got < closest.low || closest.got > closest.high {
		t.Errorf("proftop counts %d collections between jstat's %d and %d", closest.got, closest.low, closest.high)
	}
}

// nextPoll waits for the next complete poll to reach the aggregator, and
// returns the picture right after it.
func (w *watched) nextPoll(t *testing.T, within time.Duration) *state.Snapshot {
	t.Helper()
	w.t = t
	w.mu.Lock()
	n := w.polls
	w.mu.Unlock()
	deadline := time.Now().Add(within)
	for time.Now().Before(deadline) {
		w.mu.Lock()
		if w.polls > n {
			s := w.agg.Snapshot(time.Now(), state.Query{CallersOf: -1})
			w.mu.Unlock()
			return s
		}
		w.mu.Unlock()
		time.Sleep(5 * time.Millisecond)
	}
	t.Fatalf("no poll within %v", within)
	return nil
}

// pollAfter waits for the first poll the agent took after instant.
func (w *watched) pollAfter(t *testing.T, instant time.Time) *state.Snapshot {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		if s := w.nextPoll(t, 10*time.Second); s.PolledAt.After(instant) {
			return s
		}
	}
	t.Fatalf("no poll after %v within 30s", instant.Format(time.StampMilli))
	return nil
}

// stackOf is a thread's stack as the latest poll saw it.
func (w *watched) stackOf(id int64) []state.Frame {
	for _, th := range w.agg.Snapshot(time.Now(), state.Query{CallersOf: -1, StackOf: id}).Threads {
		if th.ID == id {
			return th.Stack
		}
	}
	return nil
}

// countByClass counts the contentions ("enter CLASS"), waits ("wait
// CLASS") and java.util.concurrent parks ("park CLASS") the agent reported
// begun in [from, to), by the class of the lock.
func (w *watched) countByClass(from, to time.Time) map[string]int {
	return w.countByClassOf(from, to, func(string) bool { return true })
}

// countByClassOf is countByClass for the threads whose name pick selects.
func (w *watched) countByClassOf(from, to time.Time, pick func(string) bool) map[string]int {
	w.mu.Lock()
	defer w.mu.Unlock()
	classes, objects, names := map[int64]string{}, map[int64]string{}, map[int64]string{}
	out := map[string]int{}
	count := func(thread, obj int64, at decode.Ticks, kind string) {
		if ts := time.Unix(0, int64(at)); ts.Before(from) || !ts.Before(to) || !pick(names[thread]) {
			return
		}
		class := objects[obj]
		if kind == "enter" && strings.HasPrefix(class, "java.util.concurrent.") {
			kind = "park"
		}
		if kind == "wait" && (strings.HasPrefix(class, "java.util.concurrent.") || strings.Contains(class, "$ConditionObject")) {
			kind = "park"
		}
		out[kind+" "+class]++
	}
	for _, ev := range w.events {
		switch e := ev.(type) {
		case *decode.ThreadStart:
			names[e.ThreadID] = e.ThreadName
		case *decode.ClassDef:
			classes[e.ClassID] = e.Name
		case *decode.ObjClass: // the agent names each lock object's class so
			objects[e.ObjID] = classes[e.ClassIDRef]
		case *decode.MonContendedEnter:
			count(e.ThreadIDRef, e.ObjIDRef, e.Time, "enter")
		case *decode.MonWait:
			count(e.ThreadIDRef, e.ObjIDRef, e.Time, "wait")
		}
	}
	return out
}

// h2Line finds the line of H2Load.java holding a marker comment.
func h2Line(t testing.TB, marker string) int64 {
	data, err := os.ReadFile("testdata/h2/H2Load.java")
	if err != nil {
		t.Fatal(err)
	}
	for i, l := range strings.Split(string(data), "\n") {
		if strings.Contains(l, marker) {
			return int64(i + 1)
		}
	}
	t.Fatalf("no %q in H2Load.java", marker)
	return 0
}

// The same on Tomcat (Debian's tomcat10) under ab -c 16: request threads
// blocked on the application object's monitor in contend.jsp, then parked
// on a ReentrantLock in rlock.jsp, idle ones parked waiting for work. The
// request threads change state every few milliseconds, so the counts of
// a poll and of the JVM's thread dump a moment later (SIGQUIT: jstack's
// dump, without starting a JVM beside Tomcat for each) are compared as
// distributions, by their medians over many looks; the look-by-look
// figures are logged for docs/accuracy.md.
func TestAccuracyOnTomcat(t *testing.T) {
	const rounds = 15
	recording := filepath.Join(t.TempDir(), "truth.jfr")
	settings := jfcSettings(t, map[string]time.Duration{"jdk.ThreadPark": 0, "jdk.JavaMonitorEnter": 0})
	_, jar := workload(t)
	portFile := filepath.Join(t.TempDir(), "port")
	tc := startTomcat(t, liveJIT, "-XX:StartFlightRecording=name=truth,settings="+settings,
		fmt.Sprintf("-javaagent:%s=port=0,portfile=%s", jar, portFile))
	at, err := waitForPort(portFile, 20*time.Second, tc.PID)
	if err != nil {
		t.Fatalf("%v\n%s", err, tc.Stderr)
	}
	w, _, cancel := watch(t, at.Port, client.FormatAuto)
	defer cancel()
	w.nextPoll(t, 30*time.Second)

	idle := w.nextPoll(t, 10*time.Second)
	parked := 0
	for _, th := range idle.Threads {
		if isTomcatExec(th.Name) && th.State == state.ThreadParked && strings.HasSuffix(th.LockClass, "$ConditionObject") {
			parked++
		}
	}
	if parked == 0 {
		t.Errorf("no idle request thread parked waiting for work: %+v", idle.Threads)
	}

	from := time.Now()
	var first, last cpuLook
	for p, page := range []string{"contend.jsp", "rlock.jsp"} {
		stop := startAB(t, tc.URL("/"+page), 16, 60*time.Second)
		w.nextPoll(t, 10*time.Second) // the load settles
		var looks []stateCounts
		for r := 0; r < rounds; r++ {
			look := lookPair{snap: w.nextPoll(t, 10*time.Second), dump: signalDump(t, tc.PID, tc.Stdout)}
			if p == 0 && r == 0 {
				first = look.bracket(t, w)
			}
			if p == 1 && r == rounds-1 {
				last = look.bracket(t, w)
			}
			ours, theirs := look.counts(isTomcatExec)
			looks = append(looks, ours, theirs)
		}
		res := stop.Stop()
		t.Logf("%s under ab -c 16: %d requests, %.0f/s", page, res.Complete, res.RPS)
		logCounts(t, "request threads, "+page, looks)
		// The median look, not the mean: the load swings by itself (when
		// Tomcat's poller thread waits for a core, every request thread
		// parks waiting for work), and a thread that spins before it
		// blocks is RUNNABLE to jstack and to the poll alike; which side's
		// look catches such a moment is chance. (The poll's own error of
		// that kind, every waiter of a monitor changing hands read running,
		// is checked apart: TestPollsLookPastAMonitorsHandover.)
		side := func(s string, from int) []int {
			var out []int
			for i := from; i < len(looks); i += 2 {
				out = append(out, looks[i][s])
			}
			return out
		}
		// Spinners: how many more contenders one side's looks found still
		// spinning (running) than the other's; each of them is one the
		// other side may count blocked or parked.
		spinning := median(side("running", 1)) - median(side("running", 0))
		spinning = max(spinning, -spinning)
		for _, s := range []string{"blocked", "parked"} {
			ours, theirs := side(s, 0), side(s, 1)
			o, th := median(ours), median(theirs)
			// The two sides look at different moments of a count that
			// moves by itself: allow what it moves between one dump
			// and the next (its median step), or the spinners between
			// the two sides' medians, and at least 1.
			allowed := max(1, medianStep(theirs), spinning)
			t.Logf("  %s, the median look: proftop %d, the thread dump %d (allowed ±%d)", s, o, th, allowed)
			if o-th > allowed || th-o > allowed {
				t.Errorf("%s: %d request threads %s in the median look by proftop, %d by the thread dump (allowed ±%d)", page, o, s, th, allowed)
			}
		}
	}
	to := time.Now()
	compareCPU(t, first, last, 100*time.Millisecond)
	compareGC(t, w, tc.PID)

	// Load again, so that contentions after the span tell when the agent
	// has reported all of those in it.
	stop := startAB(t, tc.URL("/contend.jsp"), 4, 60*time.Second)
	w.caughtUp(t, to, 60*time.Second)
	stop.Stop()
	dumpJFR(t, tc.PID, recording)
	truth := jfrEventsDepth(t, recording, 1, "jdk.ThreadPark", "jdk.JavaMonitorEnter")
	want := map[string]int{}
	for _, e := range truth {
		if e.Start.Before(from) || !e.Start.Before(to) || !isTomcatExec(e.Thread) {
			continue
		}
		switch e.Type {
		case "jdk.ThreadPark":
			want["park "+e.Str("parkedClass")]++
		case "jdk.JavaMonitorEnter":
			want["enter "+e.Str("monitorClass")]++
		}
	}
	gotExec := w.countByClassOf(from, to, isTomcatExec)
	t.Logf("%-75s %8s %8s", "request threads, over "+to.Sub(from).Round(time.Second).String(), "JFR", "proftop")
	for _, key := range []string{"park java.util.concurrent.locks.ReentrantLock$NonfairSync", "enter org.apache.catalina.core.ApplicationContextFacade"} {
		w, g := want[key], gotExec[key]
		t.Logf("%-75s %8d %8d", key, w, g)
		if w < 50 {
			t.Errorf("%s: only %d in the JFR recording: the load did not contend", key, w)
			continue
		}
		if r := float64(g) / float64(w); r < 0.8 || r > 1.2 {
			t.Errorf("%s: proftop counted %d, JFR recorded %d", key, g, w)
		}
	}
}

// median is the middle of counts (the upper middle of an even number).
// medianStep is the median change between successive counts: how much
// the counted thing moves by itself from one look to the next.
func medianStep(counts []int) int {
	if len(counts) < 2 {
		return 0
	}
	var steps []int
	for i := 1; i < len(counts); i++ {
		d := counts[i] - counts[i-1]
		steps = append(steps, max(d, -d))
	}
	return median(steps)
}

func median(counts []int) int {
	sorted := slices.Clone(counts)
	slices.Sort(sorted)
	return sorted[len(sorted)/2]
}
