package agent

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// Ground truth: what the JDK's own tools say about a running JVM, read
// into Go values to compare the agent's reports with. jstack tells each
// thread's state and the lock it waits for at one instant, jstat the
// collections counted so far and the heap, JFR every contention, park,
// wait and collection with its exact start, duration and stack.

// jdkTool finds a JDK tool: on PATH, or else beside javac (a JDK whose
// tools are not all linked into /usr/bin).
func jdkTool(t testing.TB, name string) string {
	t.Helper()
	if path, err := exec.LookPath(name); err == nil {
		return path
	}
	requireJDK(t)
	javac, _ := exec.LookPath("javac")
	javac, _ = filepath.EvalSymlinks(javac)
	path := filepath.Join(filepath.Dir(javac), name)
	if _, err := os.Stat(path); err != nil {
		t.Fatalf("%s is needed for the ground-truth tests, and is neither on PATH nor beside %s : apt-get install openjdk-17-jdk-headless (.ci/run installs it)", name, javac)
	}
	return path
}

// toolJVMOptions make the JDK tools, JVMs themselves, start faster: on a
// busy machine each jstack or jcmd otherwise costs the C2 compiler's time.
var toolJVMOptions = []string{"-J-XX:TieredStopAtLevel=1", "-J-XX:+UseSerialGC"}

// runTool runs a JDK tool against the JVM pid and returns its standard
// output. The attach mechanism fails now and then on a busy machine
// ("Unable to open socket file", or no answer in time), so a failure is
// retried for up to 20s while the JVM lives; then the test fails with what
// the tool said.
func runTool(t testing.TB, pid int, name string, args ...string) []byte {
	t.Helper()
	tool := jdkTool(t, name)
	args = append(slices.Clone(toolJVMOptions), args...)
	deadline := time.Now().Add(20 * time.Second)
	for {
		var stdout, stderr bytes.Buffer
		cmd := exec.Command(tool, args...)
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		err := cmd.Run()
		if err == nil {
			return stdout.Bytes()
		}
		gone := syscall.Kill(pid, 0) == syscall.ESRCH
		if gone || time.Now().After(deadline) {
			t.Fatalf("%s %s (the JVM gone: %v): %v\n%s%s", name, strings.Join(args, " "), gone, err, stdout.String(), stderr.String())
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// ---- jstack ----

// threadTruth is one thread of a thread dump, as jstack (or jcmd
// Thread.print) printed it.
type threadTruth struct {
	Name    string
	ID      int64 // the "#N" of a Java thread; 0 for a JVM-internal one (GC, compiler, VM Thread)
	Daemon  bool
	NID     int64         // the native (Linux) thread id
	CPU     time.Duration // cpu=, the thread's CPU time so far
	Elapsed time.Duration // elapsed=, since the thread started
	Status  string        // the header's own words: "waiting for monitor entry", "sleeping", "in Object.wait()", "runnable"…
	State   string        // java.lang.Thread.State: RUNNABLE, BLOCKED, WAITING, TIMED_WAITING; "" for a JVM-internal thread
	Detail  string        // what the state's parentheses say: "on object monitor", "parking", "sleeping"
	Frames  []string      // top first, "pkg.Class.method:line", or without ":line" when the dump has none (native, hidden)
	Locks   []lockTruth   // the "- …" lines under the frames, in order
	Owned   []lockTruth   // the "Locked ownable synchronizers" (jstack -l): java.util.concurrent locks held
}

// lockTruth is one "- waiting to lock <0x…> (a java.lang.Object)" line.
type lockTruth struct {
	Kind  string // "waiting to lock", "parking to wait for", "waiting on", "locked", "waiting to re-lock in wait()", "eliminated"; "owns" for an ownable synchronizer
	Addr  uint64 // the object's address; 0 when the dump names none ("<no object reference available>")
	Class string // "java.lang.Object", "java.util.concurrent.locks.ReentrantLock$NonfairSync"
	Frame int    // the index in Frames of the frame the line belongs to; -1 for Owned
}

// Top is the thread's top frame, "" when it has none (a JVM-internal
// thread, or a Java thread not yet running Java code).
func (th threadTruth) Top() string {
	if len(th.Frames) == 0 {
		return ""
	}
	return th.Frames[0]
}

// Lock is the thread's first lock line of kind, if any: what a BLOCKED
// thread waits to lock, what a parked one parks for.
func (th threadTruth) Lock(kind string) (lockTruth, bool) {
	for _, l := range th.Locks {
		if l.Kind == kind {
			return l, true
		}
	}
	return lockTruth{}, false
}

// InFrames reports whether some frame starts with method ("pkg.Class.method").
func (th threadTruth) InFrames(method string) bool {
	for _, f := range th.Frames {
		if f == method || strings.HasPrefix(f, method+":") {
			return true
		}
	}
	return false
}

// threadDump is a parsed thread dump.
type threadDump struct {
	Before, After time.Time // the dump was taken between these
	// Threads by name; a second thread of a name already seen is keyed
	// "name (#ID)".
	Threads map[string]threadTruth
	Order   []string   // the keys of Threads in the order the dump listed them
	Cycles  [][]string // each Java-level deadlock the JVM found: its threads, each waiting for the next
	Text    string
}

var (
	// "name" #12 daemon prio=5 os_prio=0 cpu=1.2ms elapsed=3.4s tid=0x… nid=0x25ed sleeping [0x…]
	// "GC Thread#0" os_prio=0 cpu=… elapsed=… tid=0x… nid=0x25ee runnable
	// The name is the longest quoted prefix followed by one of the fields.
	threadHeader = regexp.MustCompile(`^"(.*)" ((?:#\d+|daemon|prio=|os_prio=|cpu=|tid=).*)$`)
	stateLine    = regexp.MustCompile(`^\s+java\.lang\.Thread\.State: (\w+)(?: \((.*)\))?\s*$`)
	frameLine    = regexp.MustCompile(`^\s+at (\S+)\((.*)\)\s*$`)
	lineSuffix   = regexp.MustCompile(`:(\d+)$`)
	// - waiting to lock <0x000000069e019f10> (a java.lang.Object)
	// - parking to wait for  <0x…> (a java.util.concurrent.locks.ReentrantLock$NonfairSync)   (two spaces: HotSpot's)
	// - waiting on <no object reference available>
	// - eliminated <owner is scalar replaced> (a java.lang.Object)
	lockLine     = regexp.MustCompile(`^\s+- (.*?)\s*<([^>]*)>(?: \(a (.*)\))?\s*$`)
	deadlockName = regexp.MustCompile(`^"(.*)":$`)
)

// parseThreadDump reads the text of jstack PID, jstack -l PID or jcmd PID
// Thread.print. Lines it does not know (the SMR info, "Compiling:",
// jcmd's "PID:" line, "JNI global refs") are skipped; the deadlock report
// at the end is read into Cycles, not as threads. It fails only when the
// text holds no thread at all.
func parseThreadDump(text string) (threadDump, error) {
	d := threadDump{Threads: map[string]threadTruth{}, Text: text}
	var cur *threadTruth
	flush := func() {
		if cur == nil {
			return
		}
		key := cur.Name
		if _, dup := d.Threads[key]; dup {
			key = fmt.Sprintf("%s (#%d)", cur.Name, cur.ID)
		}
		d.Threads[key] = *cur
		d.Order = append(d.Order, key)
		cur = nil
	}
	owned := false
	sc := bufio.NewScanner(strings.NewReader(text))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "Found one Java-level deadlock") || strings.HasPrefix(line, "JNI global refs") {
			flush()
			if strings.HasPrefix(line, "Found one") {
				d.Cycles = append(d.Cycles, readCycle(sc))
			}
			continue
		}
		if m := threadHeader.FindStringSubmatch(line); m != nil {
			flush()
			th, err := parseThreadHeader(m[1], m[2])
			if err != nil {
				return d, fmt.Errorf("%w in %q", err, line)
			}
			cur, owned = &th, false
			continue
		}
		if cur == nil {
			continue
		}
		switch trimmed := strings.TrimSpace(line); {
		case trimmed == "Locked ownable synchronizers:":
			owned = true
		case owned && strings.HasPrefix(trimmed, "- <"):
			// "- <0x…> (a java.util.concurrent.locks.ReentrantLock$NonfairSync)"
			if m := lockLine.FindStringSubmatch(line); m != nil {
				cur.Owned = append(cur.Owned, lockTruth{Kind: "owns", Addr: parseAddr(m[2]), Class: m[3], Frame: -1})
			}
		default:
			if m := stateLine.FindStringSubmatch(line); m != nil {
				cur.State, cur.Detail = m[1], m[2]
			} else if m := frameLine.FindStringSubmatch(line); m != nil {
				frame := m[1]
				if l := lineSuffix.FindStringSubmatch(m[2]); l != nil {
					frame += ":" + l[1]
				}
				cur.Frames = append(cur.Frames, frame)
			} else if m := lockLine.FindStringSubmatch(line); m != nil && !owned {
				cur.Locks = append(cur.Locks, lockTruth{Kind: m[1], Addr: parseAddr(m[2]), Class: m[3], Frame: len(cur.Frames) - 1})
			}
		}
	}
	flush()
	if len(d.Threads) == 0 {
		return d, errors.New("no thread in the dump")
	}
	return d, sc.Err()
}

// parseThreadHeader reads the fields after a thread's quoted name.
func parseThreadHeader(name, rest string) (threadTruth, error) {
	th := threadTruth{Name: name}
	fields := strings.Fields(rest)
	for i, f := range fields {
		var err error
		switch {
		case strings.HasPrefix(f, "#"):
			th.ID, err = strconv.ParseInt(f[1:], 10, 64)
		case f == "daemon":
			th.Daemon = true
		case strings.HasPrefix(f, "cpu="):
			th.CPU, err = time.ParseDuration(f[len("cpu="):])
		case strings.HasPrefix(f, "elapsed="):
			th.Elapsed, err = time.ParseDuration(f[len("elapsed="):])
		case strings.HasPrefix(f, "nid="):
			// hexadecimal before JDK 19, decimal after
			th.NID, err = strconv.ParseInt(f[len("nid="):], 0, 64)
			status := fields[i+1:]
			if n := len(status); n > 0 && strings.HasPrefix(status[n-1], "[0x") {
				status = status[:n-1]
			}
			th.Status = strings.Join(status, " ")
		}
		if err != nil {
			return th, fmt.Errorf("bad field %q: %v", f, err)
		}
		if strings.HasPrefix(f, "nid=") {
			break
		}
	}
	return th, nil
}

// parseAddr reads "0x000000069e019f10"; anything else (no object
// reference available, a scalar-replaced owner) is 0.
func parseAddr(s string) uint64 {
	n, err := strconv.ParseUint(strings.TrimPrefix(s, "0x"), 16, 64)
	if err != nil || !strings.HasPrefix(s, "0x") {
		return 0
	}
	return n
}

// readCycle reads one deadlock report, up to its stacks:
//
//	"deadlock-a":
//	  waiting to lock monitor 0x… (object 0x…, a java.lang.Object),
//	  which is held by "deadlock-b"
func readCycle(sc *bufio.Scanner) []string {
	var names []string
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "Java stack information") {
			break
		}
		if m := deadlockName.FindStringSubmatch(line); m != nil {
			names = append(names, m[1])
		}
	}
	return names
}

// jstackDump runs jstack -l on pid and parses what it printed.
func jstackDump(t testing.TB, pid int) threadDump {
	t.Helper()
	before := time.Now()
	out := runTool(t, pid, "jstack", "-l", strconv.Itoa(pid))
	after := time.Now()
	d, err := parseThreadDump(string(out))
	if err != nil {
		t.Fatalf("jstack -l %d: %v:\n%s", pid, err, out)
	}
	d.Before, d.After = before, after
	return d
}

// signalDump is the thread dump the JVM of pid prints on its standard
// output, which out collects, when sent SIGQUIT: jstack's dump, taken
// within milliseconds of asking, where jstack first starts a JVM of its own
// (a second or more on a loaded machine, when the CPU it takes changes what
// the watched JVM does). Used for workloads that move every millisecond.
func signalDump(t testing.TB, pid int, out interface{ String() string }) threadDump {
	t.Helper()
	from := len(out.String())
	before := time.Now()
	if err := syscall.Kill(pid, syscall.SIGQUIT); err != nil {
		t.Fatalf("SIGQUIT to %d: %v", pid, err)
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		text := out.String()[from:]
		if start := strings.Index(text, "Full thread dump"); start >= 0 {
			if end := strings.Index(text[start:], "\nJNI global refs"); end >= 0 {
				after := time.Now()
				d, err := parseThreadDump(text[start : start+end+1])
				if err != nil {
					t.Fatalf("the thread dump of %d: %v:\n%s", pid, err, text)
				}
				d.Before, d.After = before, after
				return d
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("no thread dump from %d within 30s of SIGQUIT; it printed:\n%s", pid, text)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// jstackStates is every thread of pid by name, from one jstack, taken
// between before and after.
func jstackStates(t testing.TB, pid int) (threads map[string]threadTruth, before, after time.Time) {
	t.Helper()
	d := jstackDump(t, pid)
	return d.Threads, d.Before, d.After
}

// ---- jstat ----

// gcTruth is one line of jstat -gc: collections so far and the heap. A
// count or time jstat prints as "-" (the collector has no such
// collections: CGC with Serial and Parallel, YGC and FGC with ZGC) is -1.
type gcTruth struct {
	Before, After time.Time // the sample was taken between these

	YGC, FGC, CGC    int64         // young, full and concurrent collections
	YGCT, FGCT, CGCT time.Duration // time in each
	GCT              time.Duration // in all

	// Capacity (C) and use (U) in KB: survivors, eden, old, metaspace,
	// compressed class space. MC and MU stay 0.0 until the first
	// collection with Serial, Parallel and ZGC in JDK 17.
	S0C, S1C, S0U, S1U, EC, EU, OC, OU, MC, MU, CCSC, CCSU float64

	Columns map[string]string // every column as jstat printed it
}

// Collections is the number of collections of every kind.
func (g gcTruth) Collections() int64 {
	var n int64
	for _, c := range []int64{g.YGC, g.FGC, g.CGC} {
		if c > 0 {
			n += c
		}
	}
	return n
}

// parseJstatGC reads the header and the (last) sample line of jstat -gc.
func parseJstatGC(text string) (gcTruth, error) {
	g := gcTruth{Columns: map[string]string{}}
	var header, values []string
	for _, line := range strings.Split(text, "\n") {
		fields := strings.Fields(line)
		switch {
		case len(fields) == 0:
		case slices.Contains(fields, "YGC") || slices.Contains(fields, "GCT"):
			header = fields
		case header != nil:
			values = fields
		}
	}
	if header == nil || values == nil {
		return g, errors.New("no header and sample lines")
	}
	if len(header) != len(values) {
		return g, fmt.Errorf("%d columns in the header, %d in the sample", len(header), len(values))
	}
	for i, h := range header {
		g.Columns[h] = values[i]
	}
	var errs []error
	count := func(col string) int64 {
		v, ok := g.Columns[col]
		if !ok || v == "-" {
			return -1
		}
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			errs = append(errs, fmt.Errorf("%s %q: %v", col, v, err))
		}
		return n
	}
	seconds := func(col string) time.Duration {
		v, ok := g.Columns[col]
		if !ok || v == "-" {
			return -1
		}
		f, err := strconv.ParseFloat(v, 64)
		if err != nil {
			errs = append(errs, fmt.Errorf("%s %q: %v", col, v, err))
		}
		return time.Duration(f * float64(time.Second)).Round(time.Microsecond)
	}
	kb := func(col string) float64 {
		v, ok := g.Columns[col]
		if !ok || v == "-" {
			return -1
		}
		f, err := strconv.ParseFloat(v, 64)
		if err != nil {
			errs = append(errs, fmt.Errorf("%s %q: %v", col, v, err))
		}
		return f
	}
	g.YGC, g.FGC, g.CGC = count("YGC"), count("FGC"), count("CGC")
	g.YGCT, g.FGCT, g.CGCT, g.GCT = seconds("YGCT"), seconds("FGCT"), seconds("CGCT"), seconds("GCT")
	g.S0C, g.S1C, g.S0U, g.S1U = kb("S0C"), kb("S1C"), kb("S0U"), kb("S1U")
	g.EC, g.EU, g.OC, g.OU = kb("EC"), kb("EU"), kb("OC"), kb("OU")
	g.MC, g.MU, g.CCSC, g.CCSU = kb("MC"), kb("MU"), kb("CCSC"), kb("CCSU")
	return g, errors.Join(errs...)
}

// jstatGC runs jstat -gc on pid once. jstat reads the JVM's
// hsperfdata file (no attach): the JVM must not run with -XX:-UsePerfData.
func jstatGC(t testing.TB, pid int) gcTruth {
	t.Helper()
	before := time.Now()
	out := runTool(t, pid, "jstat", "-gc", strconv.Itoa(pid))
	after := time.Now()
	g, err := parseJstatGC(string(out))
	if err != nil {
		t.Fatalf("jstat -gc %d: %v:\n%s", pid, err, out)
	}
	g.Before, g.After = before, after
	return g
}

// ---- jcmd and JFR ----

// runJcmd runs jcmd PID args… and fails the test unless its output holds
// want: jcmd exits 0 even when the command it sent failed.
func runJcmd(t testing.TB, pid int, want string, args ...string) string {
	t.Helper()
	out := string(runTool(t, pid, "jcmd", append([]string{strconv.Itoa(pid)}, args...)...))
	if !strings.Contains(out, want) {
		t.Fatalf("jcmd %d %s: no %q in its answer:\n%s", pid, strings.Join(args, " "), want, out)
	}
	return out
}

// jfcSettings writes a JFR settings file enabling each event (its name
// with "jdk.") with the given threshold and stack traces, and returns its
// path. Events without a threshold or a stack trace ignore those. The
// allocation samples are throttled as the agent throttles its own
// (jdk.ObjectAllocationSample's throttle unset is none: every sample,
// which JFR would then give the agent's recording too).
func jfcSettings(t testing.TB, thresholds map[string]time.Duration) string {
	t.Helper()
	var b strings.Builder
	b.WriteString("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<configuration version=\"2.0\">\n")
	names := make([]string, 0, len(thresholds))
	for name := range thresholds {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		throttle := ""
		if name == "jdk.ObjectAllocationSample" {
			throttle = "<setting name=\"throttle\">150/s</setting>"
		}
		fmt.Fprintf(&b, "  <event name=%q><setting name=\"enabled\">true</setting><setting name=\"threshold\">%d ms</setting><setting name=\"stackTrace\">true</setting>%s</event>\n",
			name, thresholds[name].Milliseconds(), throttle)
	}
	b.WriteString("</configuration>\n")
	path := filepath.Join(t.TempDir(), "truth.jfc")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

var jfrRecordings atomic.Int64

// startJFR starts a recording in pid with the settings file (a .jfc path
// or "default", "profile") and returns its name. JFR's first start in a
// JVM takes a second or two.
func startJFR(t testing.TB, pid int, settings string) string {
	t.Helper()
	name := fmt.Sprintf("proftop-truth-%d", jfrRecordings.Add(1))
	runJcmd(t, pid, "Started recording", "JFR.start", "name="+name, "settings="+settings)
	return name
}

// dumpJFR writes what every recording of pid holds so far to path (a
// recording started by -XX:StartFlightRecording too); the recordings go
// on.
func dumpJFR(t testing.TB, pid int, path string) {
	t.Helper()
	runJcmd(t, pid, "Dumped recording", "JFR.dump", "filename="+path)
}

// jfrEvent is one event of a recording, as jfr print --json shows it.
type jfrEvent struct {
	Type      string // "jdk.ThreadPark"
	Start     time.Time
	Duration  time.Duration // 0 for an instant event
	Thread    string        // eventThread.javaName (osName for a thread not Java's); "" when the event has none
	ThreadID  int64         // eventThread.javaThreadId
	Frames    []string      // top first, "pkg.Class.method:line", or without ":line" when JFR has none
	Truncated bool          // the JVM cut the stack when it recorded it (jfr print's --stack-depth does not set it)
	// Values are the event's other fields: a class as its name
	// (monitorClass, parkedClass: "java.lang.Object"), a thread as its
	// javaName (previousOwner, notifier), a Java Duration as a
	// time.Duration (timeout, sumOfPauses) unless it does not fit one
	// (ThreadPark's "no timeout", Long.MIN_VALUE: then the string), an
	// integer as int64 (address, gcId), other numbers float64, other
	// objects map[string]any.
	Values map[string]any
}

// Str is Values[key] as a string: a class's or thread's name, a GC's
// name or cause; "" when missing.
func (e jfrEvent) Str(key string) string {
	switch v := e.Values[key].(type) {
	case nil:
		return ""
	case string:
		return v
	default:
		return fmt.Sprint(v)
	}
}

// Int is Values[key] as an integer (address, gcId); false when missing or
// not one.
func (e jfrEvent) Int(key string) (int64, bool) {
	n, ok := e.Values[key].(int64)
	return n, ok
}

// Span is Values[key] as a duration (timeout, sumOfPauses); false when
// missing, or too large to be one (no timeout).
func (e jfrEvent) Span(key string) (time.Duration, bool) {
	d, ok := e.Values[key].(time.Duration)
	return d, ok
}

// jfrStackDepth is the frames jfrEvents asks jfr print for, JFR's own
// default depth of recording; jfr print's default (5) would cut most
// stacks above the application's frames.
const jfrStackDepth = 64

// jfrEvents prints the events of types (all when none) in a recording with
// jfr print --json and decodes them, ordered by start time. Each frame
// prints as 2 KB of JSON: 8,000 events of 64 frames took 400 MB and 4 s
// to print, so record only what is checked, above a threshold where an
// event is frequent, or print fewer frames (jfrEventsDepth).
func jfrEvents(t testing.TB, recording string, types ...string) []jfrEvent {
	t.Helper()
	return jfrEventsDepth(t, recording, jfrStackDepth, types...)
}

// jfrEventsDepth is jfrEvents with depth frames at most.
func jfrEventsDepth(t testing.TB, recording string, depth int, types ...string) []jfrEvent {
	t.Helper()
	args := []string{"print", "--json", "--stack-depth", strconv.Itoa(depth)}
	if len(types) > 0 {
		args = append(args, "--events", strings.Join(types, ","))
	}
	args = append(args, recording)
	cmd := exec.Command(jdkTool(t, "jfr"), append(slices.Clone(toolJVMOptions), args...)...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatalf("jfr print: %v", err)
	}
	events, decodeErr := parseJFRJSON(stdout)
	io.Copy(io.Discard, stdout)
	if err := cmd.Wait(); err != nil || decodeErr != nil {
		t.Fatalf("jfr %s: %v, %v\n%s", strings.Join(args, " "), err, decodeErr, stderr.String())
	}
	return events
}

// The parts of jfr print --json's output that are read as such; the rest
// of an event's values go to Values.
type (
	jfrJSONEvent struct {
		Type   string                     `json:"type"`
		Values map[string]json.RawMessage `json:"values"`
	}
	jfrJSONThread struct {
		JavaName     *string `json:"javaName"`
		OSName       string  `json:"osName"`
		JavaThreadID int64   `json:"javaThreadId"`
	}
	jfrJSONStack struct {
		Truncated bool `json:"truncated"`
		Frames    []struct {
			Method struct {
				Type jfrJSONClass `json:"type"`
				Name string       `json:"name"`
			} `json:"method"`
			LineNumber int `json:"lineNumber"`
		} `json:"frames"`
	}
	jfrJSONClass struct {
		Name   string `json:"name"`
		Hidden bool   `json:"hidden"`
	}
)

// className turns JFR's internal class name into the Java one:
// "java/util/concurrent/locks/ReentrantLock$NonfairSync" into
// "java.util.concurrent.locks.ReentrantLock$NonfairSync". A hidden class
// (a lambda's) keeps the slash of its suffix: "H2Load$$Lambda$17+0x…/428910174".
func (c jfrJSONClass) className() string {
	name := c.Name
	suffix := ""
	if i := strings.LastIndexByte(name, '/'); c.Hidden && i >= 0 {
		name, suffix = name[:i], name[i:]
	}
	return strings.ReplaceAll(name, "/", ".") + suffix
}

// parseJFRJSON decodes the output of jfr print --json,
//
//	{"recording": {"events": [{"type": "jdk.ThreadPark", "values": {…}}, …]}}
//
// one event at a time: each frame of a stack carries its class loader,
// package and module, so that a few thousand events of deep stacks print
// hundreds of megabytes.
func parseJFRJSON(r io.Reader) ([]jfrEvent, error) {
	dec := json.NewDecoder(r)
	dec.UseNumber()
	for _, want := range []any{json.Delim('{'), "recording", json.Delim('{'), "events", json.Delim('[')} {
		tok, err := dec.Token()
		if err != nil {
			return nil, fmt.Errorf("decoding jfr's JSON: %w", err)
		}
		if tok != want {
			return nil, fmt.Errorf("decoding jfr's JSON: %v where %v was expected", tok, want)
		}
	}
	var events []jfrEvent
	for i := 0; dec.More(); i++ {
		var raw jfrJSONEvent
		if err := dec.Decode(&raw); err != nil {
			return nil, fmt.Errorf("decoding jfr's JSON, event %d: %w", i, err)
		}
		e, err := raw.event()
		if err != nil {
			return nil, fmt.Errorf("event %d (%s), %w", i, raw.Type, err)
		}
		events = append(events, e)
	}
	if _, err := dec.Token(); err != nil { // the events' closing ]
		return nil, fmt.Errorf("decoding jfr's JSON: %w", err)
	}
	sort.SliceStable(events, func(i, j int) bool { return events[i].Start.Before(events[j].Start) })
	return events, nil
}

// event converts one event of jfr's JSON.
func (raw jfrJSONEvent) event() (jfrEvent, error) {
	e := jfrEvent{Type: raw.Type, Values: map[string]any{}}
	for key, v := range raw.Values {
		var err error
		switch key {
		case "startTime":
			err = json.Unmarshal(v, &e.Start)
		case "duration":
			var s string
			if err = json.Unmarshal(v, &s); err == nil {
				var ok bool
				if e.Duration, ok = parseJavaDuration(s); !ok {
					err = fmt.Errorf("not a duration: %q", s)
				}
			}
		case "eventThread":
			var th *jfrJSONThread
			if err = json.Unmarshal(v, &th); err == nil && th != nil {
				e.Thread, e.ThreadID = th.OSName, th.JavaThreadID
				if th.JavaName != nil {
					e.Thread = *th.JavaName
				}
			}
		case "stackTrace":
			var st *jfrJSONStack
			if err = json.Unmarshal(v, &st); err == nil && st != nil {
				e.Truncated = st.Truncated
				for _, f := range st.Frames {
					frame := f.Method.Type.className() + "." + f.Method.Name
					if f.LineNumber > 0 {
						frame += ":" + strconv.Itoa(f.LineNumber)
					}
					e.Frames = append(e.Frames, frame)
				}
			}
		default:
			var generic any
			d := json.NewDecoder(bytes.NewReader(v))
			d.UseNumber()
			if err = d.Decode(&generic); err == nil {
				e.Values[key] = jfrValue(generic)
			}
		}
		if err != nil {
			return e, fmt.Errorf("%s: %v", key, err)
		}
	}
	return e, nil
}

// jfrValue simplifies one decoded JSON value of an event: see
// jfrEvent.Values.
func jfrValue(v any) any {
	switch v := v.(type) {
	case json.Number:
		if n, err := v.Int64(); err == nil {
			return n
		}
		f, _ := v.Float64()
		return f
	case string:
		if d, ok := parseJavaDuration(v); ok {
			return d
		}
		return v
	case map[string]any:
		if name, ok := v["javaName"]; ok { // a thread
			if name == nil {
				return v["osName"]
			}
			return name
		}
		if name, ok := v["name"].(string); ok && hasAnyKey(v, "modifiers", "classLoader", "package") { // a class
			hidden, _ := v["hidden"].(bool)
			return jfrJSONClass{Name: name, Hidden: hidden}.className()
		}
		out := make(map[string]any, len(v))
		for k, x := range v {
			out[k] = jfrValue(x)
		}
		return out
	case []any:
		out := make([]any, len(v))
		for i, x := range v {
			out[i] = jfrValue(x)
		}
		return out
	default:
		return v
	}
}

func hasAnyKey(m map[string]any, keys ...string) bool {
	for _, k := range keys {
		if _, ok := m[k]; ok {
			return true
		}
	}
	return false
}

// javaDuration is java.time.Duration.toString(): "PT0.002050307S",
// "PT10S", "PT1H2M3.5S", "PT-0.5S", with a sign on each part.
var javaDuration = regexp.MustCompile(`^PT(?:(-?\d+)H)?(?:(-?\d+)M)?(?:(-?)(\d+)(?:\.(\d{1,9}))?S)?$`)

// parseJavaDuration reads a Java Duration's text; false when it is not
// one, or does not fit a time.Duration (JFR prints Long.MIN_VALUE, "no
// timeout", as "PT-2562047788015215H-30M-8S").
func parseJavaDuration(s string) (time.Duration, bool) {
	m := javaDuration.FindStringSubmatch(s)
	if m == nil || s == "PT" {
		return 0, false
	}
	atoi := func(s string) int64 {
		n, _ := strconv.ParseInt(s, 10, 64) // the pattern has checked the digits; too many give ±max, caught below
		return n
	}
	hours, minutes, secs := atoi(m[1]), atoi(m[2]), atoi(m[4])
	// In float first: a part too large for a time.Duration must not wrap.
	if approx := float64(hours)*3600 + float64(minutes)*60 + float64(secs); approx > 9.2e9 || approx < -9.2e9 {
		return 0, false
	}
	nanos := atoi((m[5] + "000000000")[:9])
	part := secs*int64(time.Second) + nanos
	if m[3] == "-" {
		part = -part
	}
	return time.Duration(hours)*time.Hour + time.Duration(minutes)*time.Minute + time.Duration(part), true
}

// ---- the readers on captured outputs ----

// readTruth reads a captured output of testdata/truth.
func readTruth(t *testing.T, name string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "truth", name))
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// Thread dumps of OpenJDK 17 (testdata/truth/README.md says how each was
// taken) read into the states, locks and frames they print.
func TestTruthJstackParse(t *testing.T) {
	type want struct {
		file, thread    string
		id              int64
		daemon          bool
		nid             int64
		cpu             time.Duration
		status          string
		state, detail   string
		top             string
		lock            lockTruth // the first lock line, if Kind is set
		owned           string    // the class of the first ownable synchronizer, if set
		frames, nlocked int       // how many frames, and lock lines
	}
	for _, tc := range []want{
		{file: "jstack-h2load.txt", thread: "main", id: 1, nid: 0x3558, cpu: 322380 * time.Microsecond, status: "waiting on condition",
			state: "TIMED_WAITING", detail: "parking", top: "jdk.internal.misc.Unsafe.park",
			lock: lockTruth{Kind: "parking to wait for", Addr: 0x69e000010, Class: "java.util.concurrent.CountDownLatch$Sync"}, frames: 6, nlocked: 1},
		{file: "jstack-h2load.txt", thread: "sleeper", id: 21, daemon: true, nid: 0x3589, cpu: 290 * time.Microsecond, status: "waiting on condition",
			state: "TIMED_WAITING", detail: "sleeping", top: "java.lang.Thread.sleep", frames: 6},
		{file: "jstack-h2load.txt", thread: "idle-pool-2", id: 24, daemon: true, nid: 0x358d, cpu: 150 * time.Microsecond, status: "waiting on condition",
			state: "WAITING", detail: "parking", top: "jdk.internal.misc.Unsafe.park",
			lock: lockTruth{Kind: "parking to wait for", Addr: 0x69e003410, Class: "java.util.concurrent.locks.AbstractQueuedSynchronizer$ConditionObject"}, frames: 11, nlocked: 1},
		{file: "jstack-h2load.txt", thread: "lock-holder", id: 26, daemon: true, nid: 0x358f, cpu: 7110 * time.Microsecond, status: "sleeping",
			state: "TIMED_WAITING", detail: "sleeping", top: "java.lang.Thread.sleep", owned: "java.util.concurrent.locks.ReentrantLock$NonfairSync", frames: 6},
		{file: "jstack-h2load.txt", thread: "rl-contender-3", id: 30, daemon: true, nid: 0x3593, cpu: 169960 * time.Microsecond, status: "waiting on condition",
			state: "WAITING", detail: "parking", top: "jdk.internal.misc.Unsafe.park",
			lock: lockTruth{Kind: "parking to wait for", Addr: 0x69e0028f8, Class: "java.util.concurrent.locks.ReentrantLock$NonfairSync"}, frames: 11, nlocked: 1},
		{file: "jstack-h2load.txt", thread: "sync-contender-1", id: 32, daemon: true, nid: 0x3599, cpu: 508240 * time.Microsecond, status: "waiting for monitor entry",
			state: "BLOCKED", detail: "on object monitor", top: "H2Load.syncContender:123",
			lock: lockTruth{Kind: "waiting to lock", Addr: 0x69e0d99b0, Class: "java.lang.Object"}, frames: 5, nlocked: 1},
		{file: "jstack-h2load.txt", thread: "sync-contender-2", id: 33, daemon: true, nid: 0x359a, cpu: 516930 * time.Microsecond, status: "runnable",
			state: "RUNNABLE", top: "H2Load.spinFor:51",
			lock: lockTruth{Kind: "locked", Addr: 0x69e0d99b0, Class: "java.lang.Object", Frame: 1}, frames: 6, nlocked: 1},
		// Object.wait in JDK 17: the object waited on is not named ("no
		// object reference available"); the "locked" line of the frame
		// below names it.
		{file: "jstack-h2load.txt", thread: "h2-worker-1", id: 14, daemon: true, nid: 0x3580, cpu: 55980 * time.Microsecond, status: "in Object.wait()",
			state: "TIMED_WAITING", detail: "on object monitor", top: "java.lang.Object.wait",
			lock: lockTruth{Kind: "waiting on"}, frames: 20, nlocked: 4},
		{file: "jstack-h2load.txt", thread: "GC Thread#0", nid: 0x3559, cpu: 5210 * time.Microsecond, status: "runnable"},
		{file: "jstack-workload-deadlock.txt", thread: "deadlock-a", id: 20, daemon: true, nid: 0x37ab, cpu: 430 * time.Microsecond, status: "waiting for monitor entry",
			state: "BLOCKED", detail: "on object monitor", top: "Workload.transfer:98",
			lock: lockTruth{Kind: "waiting to lock", Addr: 0x687529b90, Class: "java.lang.Object"}, frames: 6, nlocked: 2},
		// jcmd's Thread.print begins with "PID:"; -l as jstack's.
		{file: "jcmd-tomcat-contend.txt", thread: "http-nio-127.0.0.1-auto-1-exec-2", id: 17, daemon: true, nid: 0x385e, cpu: 51620 * time.Microsecond, status: "waiting for monitor entry",
			state: "BLOCKED", detail: "on object monitor", top: "org.apache.jsp.contend_jsp._jspService:121",
			lock:  lockTruth{Kind: "waiting to lock", Addr: 0x6877baaa8, Class: "org.apache.catalina.core.ApplicationContextFacade"},
			owned: "org.apache.tomcat.util.threads.ThreadPoolExecutor$Worker", frames: 28, nlocked: 1},
		// Parked for the JSP's lock while owning another (the connection's).
		{file: "jstack-tomcat-rlock.txt", thread: "http-nio-127.0.0.1-auto-1-exec-1", id: 16, daemon: true, nid: 0x70e0, cpu: 410800 * time.Microsecond, status: "waiting on condition",
			state: "WAITING", detail: "parking", top: "jdk.internal.misc.Unsafe.park",
			lock:  lockTruth{Kind: "parking to wait for", Addr: 0x69d000680, Class: "java.util.concurrent.locks.ReentrantLock$NonfairSync"},
			owned: "java.util.concurrent.locks.ReentrantLock$NonfairSync", frames: 34, nlocked: 1},
		{file: "jcmd-tomcat-contend.txt", thread: "http-nio-127.0.0.1-auto-1-exec-15", id: 34, daemon: true, nid: 0x38a6, cpu: 47740 * time.Microsecond, status: "waiting on condition",
			state: "TIMED_WAITING", detail: "parking", top: "jdk.internal.misc.Unsafe.park",
			lock: lockTruth{Kind: "parking to wait for", Addr: 0x69d0235d8, Class: "java.util.concurrent.locks.AbstractQueuedSynchronizer$ConditionObject"}, frames: 11, nlocked: 1},
	} {
		t.Run(tc.file+"/"+tc.thread, func(t *testing.T) {
			d, err := parseThreadDump(readTruth(t, tc.file))
			if err != nil {
				t.Fatal(err)
			}
			th, ok := d.Threads[tc.thread]
			if !ok {
				t.Fatalf("no thread %q among %q", tc.thread, d.Order)
			}
			got := want{file: tc.file, thread: th.Name, id: th.ID, daemon: th.Daemon, nid: th.NID, cpu: th.CPU, status: th.Status,
				state: th.State, detail: th.Detail, top: th.Top(), frames: len(th.Frames), nlocked: len(th.Locks)}
			if tc.lock.Kind != "" && len(th.Locks) > 0 {
				got.lock = th.Locks[0]
			}
			if tc.owned != "" && len(th.Owned) > 0 {
				got.owned = th.Owned[0].Class
			}
			if got != tc {
				t.Errorf("\n got %+v\nwant %+v", got, tc)
			}
		})
	}
}

// A dump as a whole: every thread once, in order; the deadlock report is
// not read as threads; lock addresses tie waiters to owners.
func TestTruthJstackDumps(t *testing.T) {
	for _, tc := range []struct {
		file    string
		threads int
		first   string
		last    string
		cycles  [][]string
	}{
		{"jstack-h2load.txt", 43, "main", "GC Thread#0", nil},
		{"jstack-workload-deadlock.txt", 31, "main", "GC Thread#0", [][]string{{"deadlock-a", "deadlock-b"}}},
		{"jcmd-tomcat-idle.txt", 34, "main", "GC Thread#0", nil},
		{"jcmd-tomcat-contend.txt", 42, "main", "GC Thread#0", nil},
		{"jstack-tomcat-rlock.txt", 42, "main", "GC Thread#0", nil},
	} {
		t.Run(tc.file, func(t *testing.T) {
			d, err := parseThreadDump(readTruth(t, tc.file))
			if err != nil {
				t.Fatal(err)
			}
			if len(d.Threads) != tc.threads || len(d.Order) != tc.threads || d.Order[0] != tc.first || d.Order[len(d.Order)-1] != tc.last {
				t.Errorf("%d threads (%d in order), %q first, %q last; want %d, %q, %q", len(d.Threads), len(d.Order), d.Order[0], d.Order[len(d.Order)-1], tc.threads, tc.first, tc.last)
			}
			if fmt.Sprint(d.Cycles) != fmt.Sprint(tc.cycles) {
				t.Errorf("deadlocks %q, want %q", d.Cycles, tc.cycles)
			}
		})
	}

	d, _ := parseThreadDump(readTruth(t, "jstack-h2load.txt"))
	held := d.Threads["lock-holder"].Owned[0].Addr
	for i := range 4 {
		if l, _ := d.Threads[fmt.Sprintf("rl-contender-%d", i)].Lock("parking to wait for"); l.Addr != held {
			t.Errorf("rl-contender-%d parks for %#x, the lock-holder holds %#x", i, l.Addr, held)
		}
	}
	blocked, _ := d.Threads["sync-contender-1"].Lock("waiting to lock")
	if owner, _ := d.Threads["sync-contender-2"].Lock("locked"); owner.Addr != blocked.Addr {
		t.Errorf("sync-contender-1 waits for %#x, sync-contender-2 holds %#x", blocked.Addr, owner.Addr)
	}

	if _, err := parseThreadDump("12345:\nNo such process\n"); err == nil {
		t.Error("a dump without threads parsed")
	}
}

// jstat -gc of G1, Serial and ZGC: "-" where the collector has no such
// collections.
func TestTruthJstatParse(t *testing.T) {
	for _, tc := range []struct {
		file string
		want gcTruth
	}{
		{"jstat-gc-g1.txt", gcTruth{YGC: 2, FGC: 0, CGC: 0, YGCT: 13 * time.Millisecond, FGCT: 0, CGCT: 0, GCT: 13 * time.Millisecond,
			S0C: 0, S1C: 4096, S0U: 0, S1U: 2197.3, EC: 28672, EU: 20480, OC: 364544, OU: 4020, MC: 6784, MU: 6589.4, CCSC: 704, CCSU: 638.3}},
		{"jstat-gc-g1-after-gc-run.txt", gcTruth{YGC: 3, FGC: 1, CGC: 0, YGCT: 17 * time.Millisecond, FGCT: 23 * time.Millisecond, CGCT: 0, GCT: 40 * time.Millisecond,
			S0C: 0, S1C: 0, S0U: 0, S1U: 0, EC: 20480, EU: 4096, OC: 20480, OU: 6039.2, MC: 6784, MU: 6601.6, CCSC: 704, CCSU: 638.3}},
		{"jstat-gc-serial.txt", gcTruth{YGC: 0, FGC: 0, CGC: -1, YGCT: 0, FGCT: 0, CGCT: -1, GCT: 0,
			S0C: 12864, S1C: 12864, S0U: 0, S1U: 0, EC: 103296, EU: 58060.7, OC: 258048, OU: 0, MC: 0, MU: 0, CCSC: 0, CCSU: 0}},
		{"jstat-gc-z.txt", gcTruth{YGC: -1, FGC: -1, CGC: 0, YGCT: -1, FGCT: -1, CGCT: 0, GCT: 0,
			S0C: -1, S1C: -1, S0U: -1, S1U: -1, EC: -1, EU: -1, OC: 8192, OU: 0, MC: 0, MU: 0, CCSC: 0, CCSU: 0}},
	} {
		t.Run(tc.file, func(t *testing.T) {
			got, err := parseJstatGC(readTruth(t, tc.file))
			if err != nil {
				t.Fatal(err)
			}
			if len(got.Columns) != 19 {
				t.Errorf("%d columns: %v", len(got.Columns), got.Columns)
			}
			got.Columns = nil
			if fmt.Sprintf("%+v", got) != fmt.Sprintf("%+v", tc.want) {
				t.Errorf("\n got %+v\nwant %+v", got, tc.want)
			}
		})
	}
	for _, bad := range []string{"", "  S0C    S1C\n", "YGC FGC\n1\n", "YGC FGC\nx 1\n"} {
		if _, err := parseJstatGC(bad); err == nil {
			t.Errorf("%q parsed", bad)
		}
	}
}

// jfr print --json of a recording of H2Load, a few events of each kind
// kept (at --stack-depth 3): ordered by start, every field read.
func TestTruthJFRParse(t *testing.T) {
	events, err := parseJFRJSON(strings.NewReader(readTruth(t, "jfr-print-json-h2load.txt")))
	if err != nil {
		t.Fatal(err)
	}
	at := func(s string) time.Time {
		v, err := time.Parse(time.RFC3339Nano, s)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	noTimeout := "PT-2562047788015215H-30M-8S" // Long.MIN_VALUE
	want := []jfrEvent{
		{Type: "jdk.JavaMonitorWait", Start: at("2026-11-23T04:39:33.070618898Z"), Duration: 1169997, Thread: "h2-worker-7", ThreadID: 20,
			Frames: []string{"java.lang.Object.wait", "org.h2.mvstore.tx.Transaction.waitForThisToEnd:745", "org.h2.mvstore.tx.Transaction.waitFor:676"},
			Values: map[string]any{"address": int64(140578104897680), "monitorClass": "org.h2.mvstore.tx.Transaction", "notifier": "h2-worker-3", "timedOut": false, "timeout": 10 * time.Second}},
		{Type: "jdk.JavaMonitorEnter", Start: at("2026-11-23T04:39:33.083552867Z"), Duration: 2912523, Thread: "sync-contender-1", ThreadID: 32,
			Frames: []string{"H2Load.syncContender:123", "H2Load$$Lambda$20+0x00007fdaa40bf780/428910174.run", "H2Load.lambda$start$0:136"},
			Values: map[string]any{"address": int64(140576695526016), "monitorClass": "java.lang.Object", "previousOwner": "sync-contender-2"}},
		{Type: "jdk.JavaMonitorEnter", Start: at("2026-11-23T04:39:33.083856246Z"), Duration: 602127, Thread: "sync-contender-2", ThreadID: 33,
			Frames: []string{"H2Load.syncContender:123", "H2Load$$Lambda$20+0x00007fdaa40bf780/428910174.run", "H2Load.lambda$start$0:136"},
			Values: map[string]any{"address": int64(140576695526016), "monitorClass": "java.lang.Object", "previousOwner": "sync-contender-0"}},
		{Type: "jdk.ThreadPark", Start: at("2026-11-23T04:39:33.089621334Z"), Duration: 15392896, Thread: "lock-holder", ThreadID: 26,
			Frames: []string{"jdk.internal.misc.Unsafe.park", "java.util.concurrent.locks.LockSupport.park:211", "java.util.concurrent.locks.AbstractQueuedSynchronizer.acquire:715"},
			Values: map[string]any{"address": int64(28421015976), "parkedClass": "java.util.concurrent.locks.ReentrantLock$NonfairSync", "timeout": noTimeout, "until": "-999999999-01-01T00:00+18:00"}},
		{Type: "jdk.ThreadPark", Start: at("2026-11-23T04:39:33.096971628Z"), Duration: 2227637, Thread: "rl-contender-0", ThreadID: 27,
			Frames: []string{"jdk.internal.misc.Unsafe.park", "java.util.concurrent.locks.LockSupport.park:211", "java.util.concurrent.locks.AbstractQueuedSynchronizer.acquire:715"},
			Values: map[string]any{"address": int64(28421015976), "parkedClass": "java.util.concurrent.locks.ReentrantLock$NonfairSync", "timeout": noTimeout, "until": "-999999999-01-01T00:00+18:00"}},
		{Type: "jdk.GarbageCollection", Start: at("2026-11-23T04:39:33.336537663Z"), Duration: 4333143,
			Values: map[string]any{"cause": "G1 Evacuation Pause", "gcId": int64(2), "longestPause": time.Duration(4333143), "name": "G1New", "sumOfPauses": time.Duration(4333143)}},
		{Type: "jdk.GarbageCollection", Start: at("2026-11-23T04:39:34.769279919Z"), Duration: 53822973,
			Values: map[string]any{"cause": "Diagnostic Command", "gcId": int64(3), "longestPause": time.Duration(53822973), "name": "G1Full", "sumOfPauses": time.Duration(53822973)}},
	}
	if len(events) != len(want) {
		t.Fatalf("%d events, want %d", len(events), len(want))
	}
	for i := range want {
		if !reflect.DeepEqual(events[i], want[i]) {
			t.Errorf("event %d\n got %#v\nwant %#v", i, events[i], want[i])
		}
	}
	if e := events[3]; e.Str("parkedClass") != "java.util.concurrent.locks.ReentrantLock$NonfairSync" || e.Str("missing") != "" {
		t.Errorf("Str: %q, %q", e.Str("parkedClass"), e.Str("missing"))
	}
	if _, ok := events[3].Span("timeout"); ok {
		t.Error("a park without a timeout has one")
	}
	if d, ok := events[0].Span("timeout"); !ok || d != 10*time.Second {
		t.Errorf("a wait's timeout: %v, %v", d, ok)
	}
	if n, ok := events[6].Int("gcId"); !ok || n != 3 {
		t.Errorf("gcId: %v, %v", n, ok)
	}

	for _, bad := range []string{"", "[]", `{"recording": {"events": [{"type": "x", "values": {"duration": "soon"}}]}}`, `{"recording": {"events": [{"type": "x"`} {
		if _, err := parseJFRJSON(strings.NewReader(bad)); err == nil {
			t.Errorf("%q parsed", bad)
		}
	}
}

// Java's Duration.toString, as jfr print --json writes spans.
func TestTruthJavaDuration(t *testing.T) {
	for s, want := range map[string]time.Duration{
		"PT0S":           0,
		"PT10S":          10 * time.Second,
		"PT0.002050307S": 2050307,
		"PT0.5S":         500 * time.Millisecond,
		"PT-0.5S":        -500 * time.Millisecond,
		"PT1H2M3.004S":   time.Hour + 2*time.Minute + 3004*time.Millisecond,
		"PT-1H-30M":      -90 * time.Minute,
		"PT2000000H":     2000000 * time.Hour,
	} {
		if got, ok := parseJavaDuration(s); !ok || got != want {
			t.Errorf("%s: %v, %v; want %v", s, got, ok, want)
		}
	}
	for _, s := range []string{"", "PT", "P1D", "10s", "PT1.5H", "PT-2562047788015215H-30M-8S", "PT99999999999999999999S", "2026-11-23T04:39:33Z"} {
		if got, ok := parseJavaDuration(s); ok {
			t.Errorf("%q read as %v", s, got)
		}
	}
}

// ---- the readers on live JVMs ----

// liveJIT is the JIT of the JVMs the live tests read: C1 alone. What the
// tools report (states, locks, counts, events) does not depend on it, and
// without C2 a JVM starts in half the time and leaves the tools the CPU,
// which on a busy 2-core machine decides how long the tests take.
const liveJIT = "-XX:TieredStopAtLevel=1"

// seenOnce tracks conditions that hold only now and then (a contender is
// blocked a moment, then runs): each must hold in at least one of a few
// samples.
type seenOnce struct {
	conds []seenCond
	seen  map[string]string // condition → when it was seen
}

type seenCond struct {
	what string
	ok   func() bool
}

// check evaluates the conditions not seen yet, noting when as try.
func (s *seenOnce) check(try string) {
	if s.seen == nil {
		s.seen = map[string]string{}
	}
	for _, c := range s.conds {
		if _, done := s.seen[c.what]; !done && c.ok() {
			s.seen[c.what] = try
		}
	}
}

func (s *seenOnce) done() bool { return len(s.seen) == len(s.conds) }

// report logs when each condition was seen and fails the test naming
// those never seen.
func (s *seenOnce) report(t *testing.T, samples string) {
	t.Helper()
	var missing []string
	for _, c := range s.conds {
		if try, ok := s.seen[c.what]; ok {
			t.Logf("%s: %s", try, c.what)
		} else {
			missing = append(missing, c.what)
		}
	}
	if len(missing) > 0 {
		t.Fatalf("never seen in %s: %s", samples, strings.Join(missing, "; "))
	}
}

// anyThread reports whether a thread whose name starts with prefix
// satisfies ok.
func anyThread(threads map[string]threadTruth, prefix string, ok func(threadTruth) bool) bool {
	for name, th := range threads {
		if strings.HasPrefix(name, prefix) && ok(th) {
			return true
		}
	}
	return false
}

// lockOwner is the thread that holds the lock at addr, by its "locked" lines
// and ownable synchronizers; "" when none does.
func lockOwner(threads map[string]threadTruth, addr uint64) string {
	for name, th := range threads {
		for _, l := range append(slices.Clone(th.Owned), th.Locks...) {
			if (l.Kind == "locked" || l.Kind == "owns") && l.Addr == addr {
				return name
			}
		}
	}
	return ""
}

// jstack on H2Load: the threads whose state never changes are in it every
// time, those that go through states within milliseconds are caught in
// each of their states within five dumps, and a waiter's lock is the one
// its owner holds.
func TestTruthJstackOnH2(t *testing.T) {
	j := startH2Load(t, 120, liveJIT)
	pid := j.cmd.Process.Pid
	var threads map[string]threadTruth
	s := seenOnce{conds: []seenCond{
		{"sleeper TIMED_WAITING (sleeping) in H2Load.sleeper", func() bool {
			th := threads["sleeper"]
			return th.State == "TIMED_WAITING" && th.Detail == "sleeping" && th.Top() == "java.lang.Thread.sleep" && th.InFrames("H2Load.sleeper")
		}},
		{"an rl-contender WAITING (parking) for the ReentrantLock$NonfairSync another H2Load thread owns", func() bool {
			return anyThread(threads, "rl-contender-", func(th threadTruth) bool {
				l, ok := th.Lock("parking to wait for")
				o := lockOwner(threads, l.Addr)
				return ok && th.State == "WAITING" && th.Detail == "parking" && th.InFrames("H2Load.rlContender") &&
					l.Class == "java.util.concurrent.locks.ReentrantLock$NonfairSync" && o != th.Name && (o == "lock-holder" || strings.HasPrefix(o, "rl-contender-"))
			})
		}},
		{"a sync-contender BLOCKED (on object monitor) waiting to lock the java.lang.Object another sync-contender has locked", func() bool {
			return anyThread(threads, "sync-contender-", func(th threadTruth) bool {
				l, ok := th.Lock("waiting to lock")
				o := lockOwner(threads, l.Addr)
				return ok && th.State == "BLOCKED" && th.Detail == "on object monitor" && strings.HasPrefix(th.Top(), "H2Load.syncContender:") &&
					l.Class == "java.lang.Object" && o != th.Name && strings.HasPrefix(o, "sync-contender-")
			})
		}},
		{"an h2-worker waiting for another's row lock in H2 (Object.wait in org.h2.mvstore.tx.Transaction.waitForThisToEnd)", func() bool {
			return anyThread(threads, "h2-worker-", func(th threadTruth) bool {
				return th.State == "TIMED_WAITING" && th.Detail == "on object monitor" && th.Top() == "java.lang.Object.wait" &&
					len(th.Frames) > 1 && strings.HasPrefix(th.Frames[1], "org.h2.mvstore.tx.Transaction.waitForThisToEnd:")
			})
		}},
	}}
	tries := 0
	for tries < 5 && !s.done() {
		tries++
		var before, after time.Time
		threads, before, after = jstackStates(t, pid)
		if !before.Before(after) {
			t.Fatalf("taken between %v and %v", before, after)
		}
		// Always so: every thread is there, and the idle pool idles.
		for _, name := range []string{"sleeper", "lock-holder", "h2-worker-0", "h2-worker-7", "rl-contender-0", "rl-contender-3", "sync-contender-0", "sync-contender-3"} {
			if th, ok := threads[name]; !ok || !th.Daemon || th.ID == 0 || th.NID == 0 {
				t.Fatalf("dump %d: %s is %+v", tries, name, th)
			}
		}
		for i := range 4 {
			th := threads[fmt.Sprintf("idle-pool-%d", i)]
			l, _ := th.Lock("parking to wait for")
			if th.State != "WAITING" || th.Detail != "parking" || !th.InFrames("java.util.concurrent.LinkedBlockingQueue.take") ||
				l.Class != "java.util.concurrent.locks.AbstractQueuedSynchronizer$ConditionObject" {
				t.Fatalf("dump %d: idle-pool-%d is not parked waiting for work: %+v", tries, i, th)
			}
		}
		s.check(fmt.Sprintf("dump %d", tries))
	}
	s.report(t, fmt.Sprintf("%d dumps", tries))
}

// jstat on H2Load: a System.gc (jcmd GC.run) is one more full collection
// of G1, its time is counted, and the columns agree with one another.
func TestTruthJstatOnH2(t *testing.T) {
	j := startH2Load(t, 120, liveJIT, "-XX:+UseG1GC")
	pid := j.cmd.Process.Pid
	before := jstatGC(t, pid)
	runJcmd(t, pid, "Command executed successfully", "GC.run")
	after := jstatGC(t, pid)
	t.Logf("before: YGC %d FGC %d CGC %d GCT %v, eden %.0f/%.0f KB, old %.0f/%.0f KB", before.YGC, before.FGC, before.CGC, before.GCT, before.EU, before.EC, before.OU, before.OC)
	t.Logf("after:  YGC %d FGC %d CGC %d GCT %v, eden %.0f/%.0f KB, old %.0f/%.0f KB", after.YGC, after.FGC, after.CGC, after.GCT, after.EU, after.EC, after.OU, after.OC)
	if after.FGC != before.FGC+1 {
		t.Errorf("FGC %d after GC.run, %d before", after.FGC, before.FGC)
	}
	if after.YGC < before.YGC || after.CGC < before.CGC || after.FGCT <= before.FGCT || after.GCT <= before.GCT {
		t.Errorf("counts or times went back, or the full collection took no time:\nbefore %+v\nafter  %+v", before, after)
	}
	for _, g := range []gcTruth{before, after} {
		// Each time is rounded to the millisecond: the sum may be off by two.
		if sum := g.YGCT + g.FGCT + g.CGCT; (sum - g.GCT).Abs() > 2*time.Millisecond {
			t.Errorf("YGCT+FGCT+CGCT = %v, GCT %v", sum, g.GCT)
		}
		if g.EC <= 0 || g.OC <= 0 || g.EU > g.EC || g.OU > g.OC || g.S0U > g.S0C || g.S1U > g.S1C || g.MU > g.MC {
			t.Errorf("capacities and use disagree: %+v", g)
		}
		if !g.Before.Before(g.After) {
			t.Errorf("taken between %v and %v", g.Before, g.After)
		}
	}
	if after.MC <= 0 || after.MU <= 0 {
		t.Errorf("no metaspace after a full collection: %+v", after)
	}
}

// JFR on H2Load, started and dumped with jcmd: the parks on the
// ReentrantLock, the contended enters of the synchronized object, H2's
// waits for row locks and the System.gc are all in the recording, with
// their threads, classes and frames.
func TestTruthJFROnH2(t *testing.T) {
	j := startH2Load(t, 120, liveJIT)
	pid := j.cmd.Process.Pid
	settings := jfcSettings(t, map[string]time.Duration{
		"jdk.ThreadPark":        0,
		"jdk.JavaMonitorEnter":  0,
		"jdk.JavaMonitorWait":   10 * time.Millisecond, // H2 waits thousands of times a second, mostly for less
		"jdk.GarbageCollection": 0,
	})
	started := time.Now()
	startJFR(t, pid, settings)
	runJcmd(t, pid, "Command executed successfully", "GC.run")
	recording := filepath.Join(t.TempDir(), "h2.jfr")
	var events []jfrEvent
	s := seenOnce{conds: []seenCond{
		{"jdk.ThreadPark of an rl-contender on a ReentrantLock$NonfairSync, in H2Load.rlContender, without timeout", func() bool {
			return slices.ContainsFunc(events, func(e jfrEvent) bool {
				_, timeout := e.Span("timeout")
				return e.Type == "jdk.ThreadPark" && strings.HasPrefix(e.Thread, "rl-contender-") && e.ThreadID > 0 &&
					e.Str("parkedClass") == "java.util.concurrent.locks.ReentrantLock$NonfairSync" && !timeout &&
					slices.ContainsFunc(e.Frames, func(f string) bool { return strings.HasPrefix(f, "H2Load.rlContender:") })
			})
		}},
		{"jdk.JavaMonitorEnter of a sync-contender on a java.lang.Object another held, at H2Load.syncContender", func() bool {
			return slices.ContainsFunc(events, func(e jfrEvent) bool {
				return e.Type == "jdk.JavaMonitorEnter" && strings.HasPrefix(e.Thread, "sync-contender-") && e.Str("monitorClass") == "java.lang.Object" &&
					strings.HasPrefix(e.Str("previousOwner"), "sync-contender-") && e.Str("previousOwner") != e.Thread &&
					len(e.Frames) > 0 && strings.HasPrefix(e.Frames[0], "H2Load.syncContender:")
			})
		}},
		{"jdk.JavaMonitorWait of an h2-worker on an org.h2.mvstore.tx.Transaction, with H2's LOCK_TIMEOUT of 10s", func() bool {
			return slices.ContainsFunc(events, func(e jfrEvent) bool {
				d, _ := e.Span("timeout")
				return e.Type == "jdk.JavaMonitorWait" && strings.HasPrefix(e.Thread, "h2-worker-") && e.Str("monitorClass") == "org.h2.mvstore.tx.Transaction" &&
					d == 10*time.Second && slices.ContainsFunc(e.Frames, func(f string) bool { return strings.HasPrefix(f, "org.h2.mvstore.tx.Transaction.waitForThisToEnd:") })
			})
		}},
		{"jdk.GarbageCollection caused by the Diagnostic Command", func() bool {
			return slices.ContainsFunc(events, func(e jfrEvent) bool {
				_, ok := e.Int("gcId")
				return e.Type == "jdk.GarbageCollection" && e.Str("cause") == "Diagnostic Command" && ok && e.Duration > 0
			})
		}},
	}}
	deadline := time.Now().Add(30 * time.Second)
	dumps := 0
	for !s.done() {
		if dumps > 0 && time.Now().After(deadline) {
			break
		}
		dumps++
		dumpJFR(t, pid, recording)
		dumped := time.Now()
		events = jfrEvents(t, recording, "jdk.ThreadPark", "jdk.JavaMonitorEnter", "jdk.JavaMonitorWait", "jdk.GarbageCollection")
		for i, e := range events {
			if e.Start.Before(started.Add(-time.Second)) || e.Start.After(dumped) || e.Duration < 0 || (i > 0 && e.Start.Before(events[i-1].Start)) {
				t.Fatalf("event %d of %d out of the recording's span [%v, %v] or order: %+v", i, len(events), started, dumped, e)
			}
		}
		s.check(fmt.Sprintf("dump %d (%d events)", dumps, len(events)))
	}
	s.report(t, fmt.Sprintf("%d dumps", dumps))
}

// isTomcatExec reports whether name is one of Tomcat's request threads,
// http-nio-127.0.0.1-auto-1-exec-N.
func isTomcatExec(name string) bool {
	return strings.HasPrefix(name, "http-nio-") && strings.Contains(name, "-exec-")
}

// jstack and JFR on Tomcat: idle request threads park for work, and under
// ab -c 16 on contend.jsp (rlock.jsp) they block on the application
// object's monitor (park on the ReentrantLock) inside the JSP, within
// five dumps each; the JFR recording started with Tomcat has the same
// contentions, with the JSP's frame, and is written when Tomcat stops.
func TestTruthOnTomcat(t *testing.T) {
	settings := jfcSettings(t, map[string]time.Duration{"jdk.JavaMonitorEnter": 0, "jdk.ThreadPark": 0})
	atExit := filepath.Join(t.TempDir(), "at-exit.jfr")
	tc := startTomcat(t, liveJIT, "-XX:StartFlightRecording=name=truth,settings="+settings+",filename="+atExit+",dumponexit=true")

	var threads map[string]threadTruth
	// sample takes up to five dumps until every condition was seen once.
	sample := func(phase string, conds ...seenCond) {
		t.Helper()
		s := seenOnce{conds: conds}
		tries := 0
		for tries < 5 && !s.done() {
			tries++
			threads, _, _ = jstackStates(t, tc.PID)
			s.check(fmt.Sprintf("%s, dump %d", phase, tries))
		}
		s.report(t, fmt.Sprintf("%d dumps %s", tries, phase))
	}

	sample("idle", seenCond{"every request thread parked waiting for work in Tomcat's TaskQueue", func() bool {
		n := 0
		for name, th := range threads {
			if !isTomcatExec(name) {
				continue
			}
			n++
			l, _ := th.Lock("parking to wait for")
			if (th.State != "WAITING" && th.State != "TIMED_WAITING") || th.Detail != "parking" ||
				l.Class != "java.util.concurrent.locks.AbstractQueuedSynchronizer$ConditionObject" ||
				!(th.InFrames("org.apache.tomcat.util.threads.TaskQueue.take") || th.InFrames("org.apache.tomcat.util.threads.TaskQueue.poll")) {
				return false
			}
		}
		return n > 0
	}})

	stop := startAB(t, tc.URL("/contend.jsp"), 16, 30*time.Second)
	sample("under ab -c 16 on contend.jsp", seenCond{"a request thread BLOCKED (on object monitor) in contend_jsp._jspService, waiting to lock the ApplicationContextFacade another request thread holds", func() bool {
		return anyThread(threads, "http-nio-", func(th threadTruth) bool {
			l, ok := th.Lock("waiting to lock")
			o := lockOwner(threads, l.Addr)
			return ok && isTomcatExec(th.Name) && th.State == "BLOCKED" && th.Detail == "on object monitor" &&
				strings.HasPrefix(th.Top(), "org.apache.jsp.contend_jsp._jspService:") &&
				l.Class == "org.apache.catalina.core.ApplicationContextFacade" && isTomcatExec(o) && o != th.Name
		})
	}})
	contend := stop.Stop()
	stop = startAB(t, tc.URL("/rlock.jsp"), 16, 30*time.Second)
	sample("under ab -c 16 on rlock.jsp", seenCond{"a request thread WAITING (parking) in rlock_jsp._jspService for the ReentrantLock$NonfairSync another request thread owns", func() bool {
		return anyThread(threads, "http-nio-", func(th threadTruth) bool {
			l, ok := th.Lock("parking to wait for")
			o := lockOwner(threads, l.Addr)
			return ok && isTomcatExec(th.Name) && th.State == "WAITING" && th.Detail == "parking" && th.InFrames("org.apache.jsp.rlock_jsp._jspService") &&
				l.Class == "java.util.concurrent.locks.ReentrantLock$NonfairSync" && isTomcatExec(o) && o != th.Name
		})
	}})
	rlock := stop.Stop()
	for name, r := range map[string]abResult{"contend.jsp": contend, "rlock.jsp": rlock} {
		t.Logf("%s: %d requests, %.0f/s", name, r.Complete, r.RPS)
		if r.Complete == 0 || r.Failed != 0 || r.Non2xx != 0 {
			t.Errorf("%s: %d requests, %d failed, %d not 2xx:\n%s", name, r.Complete, r.Failed, r.Non2xx, r.Output)
		}
	}

	// JFR saw the same; only the top frames matter (the JSP is the 1st
	// frame of a contended enter, the 7th of a park), and Tomcat's stacks
	// are 30 frames deep: jfr print would take seconds for all of them.
	recording := filepath.Join(t.TempDir(), "tomcat.jfr")
	dumpJFR(t, tc.PID, recording)
	events := jfrEventsDepth(t, recording, 10, "jdk.JavaMonitorEnter", "jdk.ThreadPark")
	s := seenOnce{conds: []seenCond{
		{"jdk.JavaMonitorEnter of a request thread on the ApplicationContextFacade, at contend_jsp._jspService", func() bool {
			return slices.ContainsFunc(events, func(e jfrEvent) bool {
				return e.Type == "jdk.JavaMonitorEnter" && isTomcatExec(e.Thread) && e.Str("monitorClass") == "org.apache.catalina.core.ApplicationContextFacade" &&
					isTomcatExec(e.Str("previousOwner")) && len(e.Frames) > 0 && strings.HasPrefix(e.Frames[0], "org.apache.jsp.contend_jsp._jspService:")
			})
		}},
		{"jdk.ThreadPark of a request thread on a ReentrantLock$NonfairSync, in rlock_jsp._jspService", func() bool {
			return slices.ContainsFunc(events, func(e jfrEvent) bool {
				return e.Type == "jdk.ThreadPark" && isTomcatExec(e.Thread) && e.Str("parkedClass") == "java.util.concurrent.locks.ReentrantLock$NonfairSync" &&
					slices.ContainsFunc(e.Frames, func(f string) bool { return strings.HasPrefix(f, "org.apache.jsp.rlock_jsp._jspService:") })
			})
		}},
	}}
	s.check(fmt.Sprintf("the recording (%d events)", len(events)))
	s.report(t, "the recording")

	// Stopped as a service manager stops it, Tomcat's JVM writes the
	// recording on its way out.
	tc.stop(t, 30*time.Second)
	if st, err := os.Stat(atExit); err != nil || st.Size() == 0 {
		t.Fatalf("no recording written at exit (%v):\n%s", err, tc.Stderr)
	}
}
