package agent

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/proftop/proftop/decode"
)

// flushLag is how long after its samples the agent sends their sums: at
// JFR's flush of the batch that holds them, about a second after they were
// taken. Its sums dated in (from, to] are of the samples of about
// (from−flushLag, to−flushLag]; the lag being alike at both ends, what it
// gets wrong at one it mostly gets back at the other.
const flushLag = 500 * time.Millisecond

// compareAllocations compares the bytes the agent reported allocated, by
// class, over [from, to), with the allocation samples of a JFR recording
// of the same moments: JFR writes each sample once, to every recording,
// the agent's stream included. The application's samples must be what the
// agent reported, within the error of the ends (flushLag); the agent's
// own work (its threads', and the JVM's threads running its code: a
// collection's notification, an attach) must be in no class it reported
// that the application does not allocate too.
func compareAllocations(t *testing.T, w *watched, recording string, from, to time.Time) {
	t.Helper()
	truth := jfrEventsDepth(t, recording, 24, "jdk.ObjectAllocationSample")
	theirs, samples, agents := map[string]int64{}, map[string]int{}, map[string]int64{}
	around := map[string]bool{} // the application's classes, a little either side of the span
	// A dump of the JVM's recordings may hold a stretch of them twice (on
	// a loaded machine every sample of 17 s was there twice, its time to
	// the nanosecond, and the agent had read each once): a sample is
	// counted once.
	type sampleKey struct {
		at     time.Time
		thread int64
		class  string
		weight int64
	}
	seen := map[sampleKey]bool{}
	twice := 0
	for _, e := range truth {
		class := javaArrayName(e.Str("objectClass"))
		weight, _ := e.Int("weight")
		if k := (sampleKey{e.Start, e.ThreadID, class, weight}); seen[k] {
			twice++
			continue
		} else {
			seen[k] = true
		}
		own := strings.HasPrefix(e.Thread, "proftop-") || slices.ContainsFunc(e.Frames, func(f string) bool { return strings.HasPrefix(f, "io.proftop.agent.") })
		if !own && !e.Start.Before(from.Add(-5*time.Second)) && e.Start.Before(to.Add(5*time.Second)) {
			around[class] = true
		}
		if e.Start.Before(from.Add(-flushLag)) || !e.Start.Before(to.Add(-flushLag)) {
			continue
		}
		if own {
			agents[class] += weight
			continue
		}
		theirs[class] += weight
		samples[class]++
	}
	ours := w.allocatedByClass(from, to)

	classes := make([]string, 0, len(theirs))
	for c := range theirs {
		classes = append(classes, c)
	}
	slices.SortFunc(classes, func(a, b string) int { return samples[b] - samples[a] })
	t.Logf("%-55s %8s %14s %14s", "allocated over "+to.Sub(from).Round(time.Second).String(), "samples", "JFR bytes", "proftop bytes")
	var all, allOurs int64
	n := 0
	for _, c := range classes {
		all, allOurs, n = all+theirs[c], allOurs+ours[c], n+samples[c]
	}
	for _, c := range classes[:min(len(classes), 8)] {
		t.Logf("%-55s %8d %14d %14d", c, samples[c], theirs[c], ours[c])
	}
	t.Logf("%-55s %8d %14d %14d", "every class", n, all, allOurs)
	// A class of few samples is a few samples apart at the ends: the
	// classes are compared together, and each of many samples alone.
	if n < 100 {
		t.Errorf("only %d allocation samples of the application: it did not allocate", n)
	} else if r := float64(allOurs) / float64(all); r < 0.85 || r > 1.15 {
		t.Errorf("proftop reported %d bytes allocated, JFR's %d samples of the application %d", allOurs, n, all)
	}
	for _, c := range classes {
		if samples[c] < 200 {
			break
		}
		if r := float64(ours[c]) / float64(theirs[c]); r < 0.85 || r > 1.15 {
			t.Errorf("%s: proftop reported %d bytes allocated, JFR's %d samples of the application %d", c, ours[c], samples[c], theirs[c])
		}
	}
	var own int64
	for c, b := range agents {
		own += b
		if !around[c] && ours[c] > 0 {
			t.Errorf("%s: %d bytes reported, which only the agent's own work allocated (%d bytes in JFR's samples)", c, ours[c], b)
		}
	}
	t.Logf("the agent's own work, left out: %d bytes of %d classes in JFR's samples; %d samples found twice in the dump, counted once", own, len(agents), twice)
}

// allocatedByClass sums the bytes the agent reported allocated, by class,
// in its reports dated in [from, to).
func (w *watched) allocatedByClass(from, to time.Time) map[string]int64 {
	w.mu.Lock()
	defer w.mu.Unlock()
	out := map[string]int64{}
	for _, ev := range w.events {
		if a, ok := ev.(*decode.Allocation); ok {
			if at := time.Unix(0, int64(a.Time)); !at.Before(from) && at.Before(to) {
				out[a.Class] += a.Bytes
			}
		}
	}
	return out
}

// javaArrayName is a class as Java source names it, as the agent reports
// it: JFR's "[B" is "byte[]", "[Ljava.lang.String;" "java.lang.String[]".
func javaArrayName(name string) string {
	base := strings.TrimLeft(name, "[")
	dims := len(name) - len(base)
	if dims == 0 {
		return name
	}
	primitives := map[string]string{"B": "byte", "C": "char", "S": "short", "I": "int", "J": "long", "F": "float", "D": "double", "Z": "boolean"}
	if p, ok := primitives[base]; ok {
		base = p
	} else {
		base = strings.TrimSuffix(strings.TrimPrefix(base, "L"), ";")
	}
	return strings.ReplaceAll(base, "/", ".") + strings.Repeat("[]", dims)
}

func TestJavaArrayName(t *testing.T) {
	for in, want := range map[string]string{"[B": "byte[]", "[[J": "long[][]", "[Ljava.lang.String;": "java.lang.String[]",
		"[Ljava/lang/Object;": "java.lang.Object[]", "java.lang.String": "java.lang.String"} {
		if got := javaArrayName(in); got != want {
			t.Errorf("%q: %q, want %q", in, got, want)
		}
	}
}
