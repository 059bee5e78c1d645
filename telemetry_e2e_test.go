package main

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"
)

// The Telemetry and Probes panes of the real binary in a terminal, against
// the simulator's task runtime: charts in the grid's third row, a series
// that cannot be read said at the top, a group large, a probe's hot spots;
// one line per series at 80×24; ASCII charts with --charset ascii.
func TestTelemetryInTmux(t *testing.T) {
	port := startSimulator(t, "--deadlock-every", "-1s")
	tm := newTmux(t, 200, 60)
	tm.keys(fmt.Sprintf("%s --host 127.0.0.1 --port %d --refresh 300ms --telemetry bogus:x", proftopBin, port), "Enter")
	tm.waitFor("the telemetry and probes in the grid", 20*time.Second,
		"Telemetry · last 5m00s", "Probes · since the start", "Live threads", "Heap used ×3 Σ", "⚠ bogus:x: the simulated profiler",
		"TaskState#state", "WAITING_FOR_CHILDREN", "⣿")
	tm.keys("7", "/")
	tm.keys("-l", "in Non")
	tm.keys("Enter", "Enter")
	tm.waitFor("a group large, each member with its scale", 10*time.Second,
		"Drill-in: Telemetry", "Group Tasks in Non-blocking Queue · 4 series · the chart shows their sum",
		"Tasks in Non-blocking Queue (1)  last", "Tasks in Non-blocking Queue (4)  last", "now")
	tm.keys("Escape") // alone: an escape followed at once by a key reads as alt+key
	tm.waitFor("the panes again", 5*time.Second, "Probes · since the start")
	tm.keys("8", "Enter")
	tm.waitFor("a probe row's hot spots", 10*time.Second, "Drill-in: Probes", "Hot spots", "at aeminium.runtime")
	tm.keys("q") // back from the drill-in
	tm.waitFor("the panes again", 5*time.Second, "Probes · since the start")
	tm.keys("q")
	tm.waitFor("the shell", 5*time.Second, "$ ")

	small := newTmux(t, 80, 24)
	small.keys(fmt.Sprintf("%s --host 127.0.0.1 --port %d --refresh 300ms", proftopBin, port), "Enter")
	small.waitFor("the threads pane", 15*time.Second, "1 Threads")
	small.keys("7")
	screen := small.waitFor("one line per series", 10*time.Second, "7 Telemetry", "SERIES", "TREND", "Live threads", "Classes loaded")
	for i, line := range strings.Split(strings.TrimRight(screen, "\n"), "\n") {
		if n := len([]rune(line)); n > 80 {
			t.Fatalf("line %d has %d cells: %q", i, n, line)
		}
	}
	small.keys("q")
	small.waitFor("the shell", 5*time.Second, "$ ")

	ascii := newTmux(t, 200, 60)
	ascii.keys(fmt.Sprintf("%s --host 127.0.0.1 --port %d --refresh 300ms --charset ascii", proftopBin, port), "Enter")
	screen = ascii.waitFor("ASCII charts", 20*time.Second, "Telemetry - last 5m00s", "Heap used x3 sum", "###")
	for _, r := range screen {
		if r > 0x7e {
			t.Fatalf("%q on an ASCII screen:\n%s", r, screen)
		}
	}
	ascii.keys("q")
}

// Batch mode: the snapshots carry the telemetry and the probes; what the
// agent cannot read goes to standard error, and the rest goes on.
func TestTelemetryInBatchMode(t *testing.T) {
	out, errs, code := run(t, nil, "demo", "--batch", "--json", "-n", "3", "--refresh", "1s",
		"--telemetry", "jmx:java.lang:type=Threading:ThreadCount", "--probe", "jfr:bank.Transfer#state")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	for spec, kind := range map[string]string{"jmx:java.lang:type=Threading:ThreadCount": "telemetry", "jfr:bank.Transfer#state": "probe"} {
		if want := fmt.Sprintf("proftop: %s %q: the simulated profiler has no MBeans", kind, spec); strings.Count(errs, want) != 1 {
			t.Fatalf("standard error should say once %q:\n%s", want, errs)
		}
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	var doc struct {
		Picture struct {
			Telemetry []struct {
				Name, Unit string
				Divisor    float64
				Points     []struct {
					At    time.Time
					Value int64
				}
			}
			TelemetryProblems []struct{ Spec, Problem string }
			Probes            []struct {
				Probe, Group string
				Count        int64
				HotSpots     []struct{ Stack []struct{ Method string } }
			}
		}
	}
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &doc); err != nil {
		t.Fatal(err)
	}
	p := doc.Picture
	names := map[string]bool{}
	for _, s := range p.Telemetry {
		names[s.Name] = len(s.Points) > 0 && s.Unit != "" && s.Divisor > 0 && !s.Points[0].At.IsZero()
	}
	for _, want := range []string{"Live threads", "Process CPU load", "Heap used (G1 Eden Space)", "Occupied Queues", "No of Atomic Tasks Handled (4)"} {
		if !names[want] {
			t.Fatalf("no points of %q in %v", want, names)
		}
	}
	if len(p.TelemetryProblems) != 2 || len(p.Probes) == 0 || p.Probes[0].Count == 0 || len(p.Probes[0].HotSpots) == 0 {
		t.Fatalf("problems %+v, probes %+v", p.TelemetryProblems, p.Probes)
	}
	text, _, code := run(t, nil, "demo", "--batch", "-n", "2", "--refresh", "1s")
	if code != 0 || !strings.Contains(text, "TELEMETRY (") || !strings.Contains(text, "Live threads") || !strings.Contains(text, "PROBES (4") {
		t.Fatalf("exit %d, text snapshot:\n%s", code, text)
	}
}
