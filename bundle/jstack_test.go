package bundle

import (
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/proftop/proftop/state"
)

var update = flag.Bool("update", false, "rewrite the golden files of testdata/")

// Frames as jstack prints them: a native method's (line -2, as Java gives
// it) says so, where it read "Unknown Source".
func TestFrameLinesAsJstack(t *testing.T) {
	for _, c := range []struct {
		frame state.Frame
		want  string
	}{
		{state.Frame{Method: "java.lang.Thread.sleep", Line: -2}, "\tat java.lang.Thread.sleep(Native Method)"},
		{state.Frame{Method: "com.acme.Lazy.run", Line: -1}, "\tat com.acme.Lazy.run(Unknown Source)"},
		{state.Frame{Method: "com.acme.Shop$Cart.add", Line: 42}, "\tat com.acme.Shop$Cart.add(Shop.java:42)"},
	} {
		if got := frameLine(c.frame); got != c.want {
			t.Errorf("%+v: %q, want %q", c.frame, got, c.want)
		}
	}
}

// The locks of /tmp/js/Prog.java as ThreadMXBean named them on OpenJDK
// 17.0.15 (System.identityHashCode), where jstack named a
// <0x000000069ec1a718>: proftop's JVM agent sends these.
const (
	lockA    = 0x58644d46 // java.lang.Object, held by "holder" in Prog.outer
	lockB    = 0x14dad5dc // java.lang.Object, held by "holder" in Prog.inner
	lockC    = 0x18b4aac2 // java.lang.Object, waited on by "waiter"
	lockSync = 0x2f92e0f4 // ReentrantLock$NonfairSync, held by "rlholder"
	// A lock the agent knows by JFR's address: one above every identity
	// hash, and one as low as one, which the agent tags with bit 62.
	lockJFR    = 0x00007fdb1c0035a0
	lockJFRLow = 1<<62 | 0x7c001000
)

// jvmSnapshot is a picture of Prog.java's threads as proftop's JVM agent
// gives it: identity hashes, a lock known by JFR's address, a deadlock.
func jvmSnapshot() *state.Snapshot {
	at := time.Date(2026, 11, 27, 21, 14, 10, 0, time.UTC)
	started := at.Add(-4400 * time.Millisecond).UnixNano()
	obj := state.Frame{Method: "java.lang.Object.wait", Line: -2}
	run := state.Frame{Method: "java.lang.Thread.run", Line: 840}
	return &state.Snapshot{
		Taken: at, Clock: at, Polled: true, PolledAt: at.Add(-time.Second),
		Process: state.Process{PID: 3868, Agent: state.JVMAgentName},
		Threads: []state.Thread{
			{ID: 12, Name: "holder", State: state.ThreadSleeping, Timed: true, CPU: 190 * time.Microsecond, CPUKnown: true, Started: started,
				Stack: []state.Frame{{Method: "java.lang.Thread.sleep", Line: -2}, {Method: "Prog.inner", Line: 6}, {Method: "Prog.outer", Line: 7},
					{Method: "Prog.lambda$main$0", Line: 9}, run}},
			{ID: 13, Name: "blocked", State: state.ThreadBlocked, Monitor: lockA, LockClass: "java.lang.Object", LockOwner: 12, Started: started,
				Stack: []state.Frame{{Method: "Prog.lambda$main$1", Line: 11}, run}},
			{ID: 14, Name: "waiter", State: state.ThreadWaiting, Monitor: lockC, LockClass: "java.lang.Object", Started: started,
				Stack: []state.Frame{obj, {Method: "java.lang.Object.wait", Line: 338}, {Method: "Prog.lambda$main$2", Line: 12}, run}},
			{ID: 15, Name: "rlholder", State: state.ThreadSleeping, Timed: true, Daemon: true,
				Stack: []state.Frame{{Method: "java.lang.Thread.sleep", Line: -2}, {Method: "Prog.lambda$main$3", Line: 13}, run}},
			{ID: 16, Name: "parker", State: state.ThreadParked, Monitor: lockSync, LockClass: "java.util.concurrent.locks.ReentrantLock$NonfairSync", LockOwner: 15,
				Stack: []state.Frame{{Method: "jdk.internal.misc.Unsafe.park", Line: -2}, {Method: "java.util.concurrent.locks.LockSupport.park", Line: 211},
					{Method: "java.util.concurrent.locks.ReentrantLock.lock", Line: 322}, {Method: "Prog.lambda$main$4", Line: 15}, run}},
			{ID: 17, Name: "jfr-seen", State: state.ThreadBlocked, Monitor: lockJFR, LockClass: "com.acme.Cache",
				Stack: []state.Frame{{Method: "com.acme.Cache.get", Line: 40}, run}},
			{ID: 18, Name: "deadlock-a", State: state.ThreadBlocked, Monitor: lockJFRLow, LockClass: "com.acme.Account",
				Stack: []state.Frame{{Method: "com.acme.Bank.transfer", Line: 98}, run}},
			{ID: 19, Name: "deadlock-b", State: state.ThreadBlocked, Monitor: lockB + 1, LockClass: "com.acme.Account",
				Stack: []state.Frame{{Method: "com.acme.Bank.transfer", Line: 98}, run}},
			{ID: 20, Name: "gone", State: state.ThreadEnded},
		},
		Monitors: []state.Monitor{
			{Object: lockA, Class: "java.lang.Object", Owner: 12, OwnerName: "holder"},
			{Object: lockB, Class: "java.lang.Object", Owner: 12, OwnerName: "holder"},
			{Object: lockSync, Class: "java.util.concurrent.locks.ReentrantLock$NonfairSync", Synchronizer: true, Owner: 15, OwnerName: "rlholder"},
			{Object: lockJFR, Class: "com.acme.Cache", ByAddress: true},
			{Object: lockJFRLow, Class: "com.acme.Account", ByAddress: true, Owner: 19, OwnerName: "deadlock-b"},
			{Object: lockB + 1, Class: "com.acme.Account", Owner: 18, OwnerName: "deadlock-a"},
			{Object: 0x1234, Class: "com.acme.Pool", Grouped: 3, Owner: 12},
		},
		Deadlocks: []state.Deadlock{{Threads: []int64{18, 19}, Names: []string{"deadlock-a", "deadlock-b"},
			Monitors: []int64{lockJFRLow, lockB + 1}, Classes: []string{"com.acme.Account", "com.acme.Account"}}},
	}
}

func dumpOf(t *testing.T, s *state.Snapshot, source string) string {
	t.Helper()
	var b strings.Builder
	if err := WriteThreadDump(&b, s, source); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// golden compares got with testdata/name, or writes it with -update.
func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if got != string(want) {
		t.Errorf("%s differs (go test ./bundle -run %s -update to rewrite it):\n%s", path, t.Name(), got)
	}
}

func TestThreadDumpGolden(t *testing.T) {
	golden(t, "threads-jvm-agent.txt", dumpOf(t, jvmSnapshot(), "attach:3868"))
	s := jvmSnapshot()
	s.Process.Agent = "proftop simulated agent"
	golden(t, "threads-trace.txt", dumpOf(t, s, "trace.trcbin"))
}

// A lock proftop knows by identity hash is written as Object.toString and
// ThreadMXBean write it, not padded as jstack writes an object's address
// (<0x0000000058644d46>), where a reader looks it up and finds nothing.
func TestThreadDumpNamesLocksByWhatTheyAre(t *testing.T) {
	d := dumpOf(t, jvmSnapshot(), "attach:3868")
	for _, want := range []string{
		"\t- waiting to lock <0x58644d46> (a java.lang.Object)\n",
		"\t- waiting on <0x18b4aac2> (a java.lang.Object)\n",
		"\t- parking to wait for  <0x2f92e0f4> (a java.util.concurrent.locks.ReentrantLock$NonfairSync)\n",
		// JFR's addresses, as jstack pads addresses; the agent's tag is
		// no part of one.
		"\t- waiting to lock <0x00007fdb1c0035a0> (a com.acme.Cache)\n",
		"\t- waiting to lock <0x000000007c001000> (a com.acme.Account)\n",
		// The note says what the numbers are, with one of them.
		"<0x58644d46> (a java.lang.Object) is java.lang.Object@58644d46.\n",
		"Locks of 16 hex digits are addresses JFR gave",
	} {
		if !strings.Contains(d, want) {
			t.Errorf("no %q in\n%s", want, d)
		}
	}
	if strings.Contains(d, "<0x0000000058644d46>") || strings.Contains(d, "<0x4000") {
		t.Errorf("an identity hash or a tagged address written as an address:\n%s", d)
	}
	// A trace's object ids are neither.
	s := jvmSnapshot()
	s.Process.Agent = "proftop simulated agent"
	d = dumpOf(t, s, "trace.trcbin")
	if !strings.Contains(d, "Locks are named by the ids the trace gives its objects") || strings.Contains(d, "identity hash") {
		t.Errorf("a trace's ids said to be what they are not:\n%s", d)
	}
}

// The monitors a thread holds, at frames the snapshot does not tell, are
// listed under a heading of their own after its stack, not as jstack's
// "- locked" lines (which belong under the frame that took the lock); the
// java.util.concurrent locks it owns as jstack -l lists them.
func TestThreadDumpHeldLocks(t *testing.T) {
	d := dumpOf(t, jvmSnapshot(), "attach:3868")
	holder := threadText(d, "holder")
	want := "\tat java.lang.Thread.run(Thread.java:840)\n\n" + heldHeader + "\n\t- <0x58644d46> (a java.lang.Object)\n\t- <0x14dad5dc> (a java.lang.Object)\n\n"
	if !strings.HasSuffix(holder, want) {
		t.Errorf("holder:\n%s\nwant it to end\n%s", holder, want)
	}
	if strings.Contains(d, "- locked") || strings.Contains(d, "Locks held") || strings.Contains(d, "0x1234") {
		t.Errorf("a held lock as a frame's, or a group of locks as one:\n%s", d)
	}
	if rl := threadText(d, "rlholder"); !strings.Contains(rl, "\n   Locked ownable synchronizers:\n\t- <0x2f92e0f4> (a java.util.concurrent.locks.ReentrantLock$NonfairSync)\n") ||
		strings.Contains(rl, heldHeader) {
		t.Errorf("rlholder:\n%s", rl)
	}
	if strings.Contains(d, "\"gone\"") {
		t.Errorf("an ended thread:\n%s", d)
	}
}

// threadText is one thread's lines of a dump, from its quote to the next.
func threadText(d, name string) string {
	i := strings.Index(d, "\n\""+name+"\" #")
	if i < 0 {
		return ""
	}
	rest := d[i+1:]
	if j := strings.Index(rest[1:], "\n\""); j >= 0 {
		return rest[:j+2]
	}
	return rest
}

// What the thread-dump analysers do with a dump, as their code reads
// (taken from their sources, the rules that matter here):
//
//   - spotify/threaddump-analyzer (analyze.js): a line beginning with a
//     quote and holding none of "prio=", "Thread t@" nor ending '":' is
//     the first part of a thread name broken over lines, and the lines
//     after it are joined to it until one has; lock lines are
//     /^\s+- (.*?) +<([x0-9a-f]+)> \(a (.*)\)/, a held lock of no frame
//     /^\s+- <([x0-9a-f]+)> \(a (.*)\)/.
//   - IntelliJ's ThreadDumpParser: a thread begins at a line matching
//     threadStart; it stops reading at a line beginning "============" or
//     holding "Java-level deadlock".
//   - TDA's SunJDKParser: after the line holding "Full thread dump", a
//     line before the first thread holding "at " or "- " (a frame, a lock)
//     is added to a thread not begun: a NullPointerException, and no
//     dump. A thread line with "prio" has its tid= read as hexadecimal
//     after "0x".
type analysed struct {
	threads  []string          // names, in order
	waits    map[string]string // thread: the lock it waits for (spotify)
	holders  map[string]string // lock: the thread holding it (spotify)
	intelliJ int               // threads IntelliJ's parser finds
	problems []string
}

var (
	spotifyLock   = regexp.MustCompile(`^\s+- (.*?) +<([x0-9a-f]+)> \(a (.*)\)`)
	spotifyHeld   = regexp.MustCompile(`^\s+- <([x0-9a-f]+)> \(a (.*)\)`)
	intelliJStart = regexp.MustCompile(`^"(.+)".+((?:prio=\d+ )?(?:os_prio=[^\s]+ )?.*tid=[^\s]+(?: nid=[^\s]+)?|[Ii][Dd]=\d+) ([^\[]+)`)
	tdaTid        = regexp.MustCompile(`tid=0x[0-9a-f]+( |$)`)
)

func analyse(d string) analysed {
	a := analysed{waits: map[string]string{}, holders: map[string]string{}}
	lines := strings.Split(d, "\n")
	dumped, current, inDeadlock := false, "", false
	for _, l := range lines {
		if strings.HasPrefix(l, "============") || strings.Contains(l, "Java-level deadlock") {
			inDeadlock = true
		}
		if !dumped {
			dumped = strings.Contains(l, "Full thread dump")
			continue
		}
		if strings.HasPrefix(l, "\"") {
			if !strings.Contains(l, "prio=") && !strings.Contains(l, "Thread t@") && !strings.HasSuffix(l, "\":") {
				a.problems = append(a.problems, "spotify joins the lines after this one to it: "+l)
			}
			if strings.Contains(l, "prio") && strings.Contains(l, "tid=") && !tdaTid.MatchString(l) {
				a.problems = append(a.problems, "TDA fails on its tid: "+l)
			}
			if inDeadlock {
				continue
			}
			if intelliJStart.MatchString(l) {
				a.intelliJ++
			} else {
				a.problems = append(a.problems, "IntelliJ takes no thread at: "+l)
			}
			current = l[1:strings.LastIndexByte(l, '"')]
			a.threads = append(a.threads, current)
			continue
		}
		if current == "" {
			if strings.Contains(l, "at ") || strings.Contains(l, "- ") || strings.Contains(l, "java.lang.Thread.State") {
				a.problems = append(a.problems, "TDA fails on a line before the first thread: "+l)
			}
			continue
		}
		if inDeadlock {
			continue
		}
		if m := spotifyLock.FindStringSubmatch(l); m != nil {
			switch m[1] {
			case "waiting to lock", "waiting on", "parking to wait for":
				a.waits[current] = m[2]
			case "locked":
				a.holders[m[2]] = current
			default:
				a.problems = append(a.problems, "spotify reads no lock in: "+l)
			}
		} else if m := spotifyHeld.FindStringSubmatch(l); m != nil {
			a.holders[m[1]] = current
		}
	}
	if !dumped {
		a.problems = append(a.problems, "no \"Full thread dump\" line")
	}
	return a
}

// The rules above take jstack's own dumps (the JDK 17 dumps of the agent's
// tests): what they find wrong in ours is ours.
func TestAnalyserRulesTakeJstack(t *testing.T) {
	for _, name := range []string{"jstack-h2load.txt", "jstack-tomcat-rlock.txt", "jcmd-tomcat-contend.txt"} {
		b, err := os.ReadFile(filepath.Join("..", "agent", "testdata", "truth", name))
		if err != nil {
			t.Fatal(err)
		}
		a := analyse(string(b))
		if len(a.problems) > 0 || len(a.threads) < 10 || len(a.holders) == 0 {
			t.Errorf("%s: %d threads, %d locks held: %v", name, len(a.threads), len(a.holders), a.problems)
		}
	}
}

// The dump is one the analysers read: every thread found, and who holds
// what a thread waits for.
func TestThreadDumpReadByAnalysers(t *testing.T) {
	d := dumpOf(t, jvmSnapshot(), "attach:3868")
	a := analyse(d)
	if len(a.problems) > 0 {
		t.Fatalf("%s\n%s", strings.Join(a.problems, "\n"), d)
	}
	if want := []string{"holder", "blocked", "waiter", "rlholder", "parker", "jfr-seen", "deadlock-a", "deadlock-b"}; strings.Join(a.threads, ",") != strings.Join(want, ",") ||
		a.intelliJ != len(want) {
		t.Errorf("threads %v (IntelliJ's %d), want %v", a.threads, a.intelliJ, want)
	}
	for waiter, holder := range map[string]string{"blocked": "holder", "parker": "rlholder", "deadlock-a": "deadlock-b", "deadlock-b": "deadlock-a"} {
		if got := a.holders[a.waits[waiter]]; got != holder {
			t.Errorf("%s waits for %q, held by %q, want %q", waiter, a.waits[waiter], got, holder)
		}
	}
	// jstack's first two lines: the time alone, then "Full thread dump".
	if !strings.HasPrefix(d, "2026-11-27 21:14:10\nFull thread dump by proftop (of attach:3868, pid 3868; times UTC;") {
		t.Errorf("header:\n%.300s", d)
	}
	if !strings.HasSuffix(d, "\nFound 1 deadlock.\n") {
		t.Errorf("not ended as jstack ends its deadlocks:\n%s", d)
	}
}

// deadlocks.txt names its locks as the dump does, and says what they are.
func TestDeadlocksFileNamesLocks(t *testing.T) {
	s := jvmSnapshot()
	var b strings.Builder
	if err := WriteDeadlocks(&b, []state.DeadlockRecord{{Deadlock: s.Deadlocks[0], First: s.Taken, Last: s.Taken,
		Stacks: [][]state.Frame{s.Threads[6].Stack, s.Threads[7].Stack}}}); err != nil {
		t.Fatal(err)
	}
	d := b.String()
	for _, want := range []string{"not by the object addresses jstack prints", "\t- waiting to lock <0x14dad5dd> (a com.acme.Account)\n",
		"\t- holds <0x14dad5dd> (a com.acme.Account), which \"deadlock-b\" is waiting to lock\n",
		"  waiting to lock monitor (object 0x14dad5dd, a com.acme.Account),\n"} {
		if !strings.Contains(d, want) {
			t.Errorf("no %q in\n%s", want, d)
		}
	}
}
