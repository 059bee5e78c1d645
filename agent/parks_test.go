package agent

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/proftop/proftop/client"
	"github.com/proftop/proftop/decode"
)

// Parks on java.util.concurrent locks under a collection every few dozen
// milliseconds: JFR names the lock a thread parks on by the object's heap
// address, which a collection may change, so the agent must name each
// stretch between two collections anew (by looking at the parked threads
// after each one). Against a JFR recording of the same JVM over the same
// span: every park is reported (counted per thread and line), nearly all
// of the contended lock's under its own name (the identity hash the poll
// shows), and the two locks the pair threads take in turn are never
// reported as one.
func TestParksMatchJFRUnderCollections(t *testing.T) {
	eachJDK(t, testParksMatchJFRUnderCollections)
}

func testParksMatchJFRUnderCollections(t *testing.T, jdk jdk) {
	dir := t.TempDir()
	settings := filepath.Join(dir, "parks.jfc")
	os.WriteFile(settings, []byte(`<?xml version="1.0" encoding="UTF-8"?>
<configuration version="2.0">
  <event name="jdk.ThreadPark"><setting name="enabled">true</setting><setting name="threshold">0 ms</setting><setting name="stackTrace">true</setting></event>
  <event name="jdk.GarbageCollection"><setting name="enabled">true</setting><setting name="threshold">0 ms</setting></event>
</configuration>
`), 0o644)
	recording := filepath.Join(dir, "truth.jfr")
	_, jar := workload(t)
	portFile := filepath.Join(dir, "port")
	// Workload's collector thread collects four times a second (a full
	// collection, which moves objects), however busy the machine; its
	// allocator fills the young generation of a fixed heap (a full
	// collection would shrink one that may) some ten times a second more
	// when it gets the processor.
	j := startWorkloadOn(t, jdk.tool("java"), 120, []string{"parks"}, "-Xms256m", "-Xmx256m",
		"-XX:StartFlightRecording=filename="+recording+",settings="+settings+",dumponexit=true",
		fmt.Sprintf("-javaagent:%s=port=0,portfile=%s", jar, portFile))
	at, err := waitForPort(portFile, 10*time.Second, j.cmd.Process.Pid)
	if err != nil {
		t.Fatalf("%v\n%s", err, j.stderr)
	}
	w, _, cancel := watch(t, at.Port, client.FormatAuto)
	from := w.firstContention(t, 60*time.Second).Add(time.Second)
	to := from.Add(6 * time.Second)
	w.caughtUp(t, to, 60*time.Second)
	cancel()
	j.exits(t, 20*time.Second)

	lines := map[string]int64{
		"contended": sourceLine(t, "CONTENDED PARK"),
		"left":      sourceLine(t, "LEFT PARK"),
		"right":     sourceLine(t, "RIGHT PARK"),
	}
	truth, collections := jfrParkCounts(t, jdk.tool("jfr"), recording, from, to, lines)
	reported := agentParkCounts(w, from, to, lines)
	t.Logf("collections in the span: %d", collections)
	if collections < 12 {
		t.Fatalf("only %d collections in the 6 s compared: not the churn this test is about", collections)
	}
	for _, lock := range []string{"contended", "left", "right"} {
		want, got := truth[lock], reported[lock]
		named := got.byObj[got.named]
		t.Logf("%-9s JFR %5d, agent %5d, under the lock's name %5d (%.1f%%), under %d names in all %v", lock, want, got.total,
			named, 100*float64(named)/float64(max(got.total, 1)), len(got.byObj), got.byObj)
		if want < 50 {
			t.Fatalf("%s: only %d parks in the JFR recording: the workload did not contend", lock, want)
		}
		if ratio := float64(got.total) / float64(want); ratio < 0.9 || ratio > 1.1 {
			t.Errorf("%s: the agent reported %d parks, JFR recorded %d", lock, got.total, want)
		}
		// The contended lock has threads parked on it at nearly every look;
		// the pair threads, all on one of their two locks at once and
		// starved of the other on a busy machine, may park on it only
		// between two looks for a whole stretch between collections.
		least := 0.85
		if lock != "contended" {
			least = 0.7
		}
		if got.named == 0 {
			t.Errorf("%s: no poll named the lock", lock)
		} else if share := float64(named) / float64(got.total); share < least {
			t.Errorf("%s: %.1f%% of the parks under the lock's name %x, the rest under addresses: %v", lock, 100*share, got.named, got.byObj)
		}
	}
	for obj := range reported["left"].byObj {
		if _, ok := reported["right"].byObj[obj]; ok {
			t.Errorf("the pair threads' two locks are reported as one, %x", obj)
		}
	}
}

// parkCount is what the agent reported of the parks at one line: how many,
// under which names, and the name the polls give the lock parked on there.
type parkCount struct {
	total int
	byObj map[int64]int
	named int64
}

// agentParkCounts counts the agent's contentions that began in [from, to)
// at each line of Workload (park-contender-… at the contended line,
// park-pair-… at left and right), by the name they are reported under.
// The lock's own name is the one the polls show the threads parked on
// while their stacks are at that line.
func agentParkCounts(w *watched, from, to time.Time, lines map[string]int64) map[string]*parkCount {
	w.mu.Lock()
	defer w.mu.Unlock()
	out := map[string]*parkCount{}
	for lock := range lines {
		out[lock] = &parkCount{byObj: map[int64]int{}}
	}
	names := map[int64]string{}
	stacks := map[int64]decode.Stack{}
	where := func(name string, st decode.Stack) string {
		if !strings.HasPrefix(name, "park-contender-") && !strings.HasPrefix(name, "park-pair-") {
			return ""
		}
		for lock, line := range lines {
			if hasFrame(st, "Workload.parkContend", line) || hasFrame(st, "Workload.parkPair", line) {
				return lock
			}
		}
		return ""
	}
	for _, ev := range w.events {
		switch e := ev.(type) {
		case *decode.ThreadStart:
			names[e.ThreadID] = e.ThreadName
		case *decode.ThreadState:
			if len(e.Stack.Methods) > 0 {
				stacks[e.ThreadIDRef] = e.Stack
			}
			if e.State == decode.StateParked && strings.HasSuffix(e.LockClass, "ReentrantLock$NonfairSync") {
				if lock := where(names[e.ThreadIDRef], stacks[e.ThreadIDRef]); lock != "" {
					out[lock].named = e.LockObjIDRef
				}
			}
		case *decode.MonContendedEnter:
			if at := time.Unix(0, int64(e.Time)); at.Before(from) || !at.Before(to) {
				continue
			}
			if lock := where(names[e.ThreadIDRef], e.Stack); lock != "" {
				out[lock].total++
				out[lock].byObj[e.ObjIDRef]++
			}
		}
	}
	return out
}

// jfrParkCounts counts the parks a recording holds that began in [from,
// to), by the line of Workload they were at (as agentParkCounts), and the
// collections that began in the span.
func jfrParkCounts(t *testing.T, tool, recording string, from, to time.Time, lines map[string]int64) (map[string]int, int) {
	t.Helper()
	out, err := exec.Command(tool, "print", "--json", "--stack-depth", "16", "--events", "jdk.ThreadPark,jdk.GarbageCollection", recording).Output()
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
								Name string `json:"name"`
							} `json:"method"`
							LineNumber int64 `json:"lineNumber"`
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
	collections := 0
	for _, e := range doc.Recording.Events {
		if s := e.Values.StartTime; s.Before(from) || !s.Before(to) {
			continue
		}
		if e.Type == "jdk.GarbageCollection" {
			collections++
			continue
		}
		name := e.Values.EventThread.JavaName
		if !strings.HasPrefix(name, "park-contender-") && !strings.HasPrefix(name, "park-pair-") {
			continue
		}
		for _, f := range e.Values.StackTrace.Frames {
			if f.Method.Type.Name != "Workload" {
				continue
			}
			for lock, line := range lines {
				if f.LineNumber == line {
					counts[lock]++
				}
			}
			break
		}
	}
	return counts, collections
}
