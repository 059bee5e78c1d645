package main

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"
)

// The fleet in a terminal: three simulated JVMs (one deadlocks now and
// then), one that drops while watched and one port that refuses. The
// overview counts them by state and names the deadlocked host in its
// banner; Enter opens a JVM's panes, Esc comes back, q quits.
func TestFleetInTmux(t *testing.T) {
	deadlocking := startSimulator(t, "--seed", "1", "--deadlock-every", "6s", "--deadlock-for", "60s")
	quiet := startSimulator(t, "--seed", "2", "--deadlock-every", "-1s")
	other := startSimulator(t, "--seed", "3", "--deadlock-every", "-1s")
	dropping, proc := startSimulatorProcess(t, "--seed", "4", "--deadlock-every", "-1s")
	refused := freePort(t)
	hosts := make([]string, 0, 5)
	for _, p := range []int{deadlocking, quiet, other, dropping, refused} {
		hosts = append(hosts, fmt.Sprintf("127.0.0.1:%d", p))
	}
	tm := newTmux(t, 160, 40)
	tm.keys(fmt.Sprintf("%s --host %s --refresh 300ms --reconnect-max 1s", proftopBin, strings.Join(hosts, ",")), "Enter")
	tm.waitFor("the overview", 15*time.Second, "fleet of 5 JVMs", "● 4 live", "● 1 reconnecting", "Fleet · 5", "TOP METHOD",
		"connection refused", hosts[0], hosts[4])
	tm.waitFor("the deadlock banner", 30*time.Second, "DEADLOCK on "+hosts[0]+":", "Account@", "deadlocked 1 JVM") // the locks' packages as initials when the line is short

	// One JVM drops: its row says so, the others stay live.
	proc.Kill()
	screen := tm.waitFor("the drop", 15*time.Second, "● 3 live", "● 2 reconnecting")
	for _, line := range strings.Split(screen, "\n") {
		if strings.Contains(line, hosts[3]) && !strings.Contains(line, "reconnecting") {
			t.Fatalf("the dropped JVM's row: %q\n%s", line, screen)
		}
	}

	// Filter to the deadlocked JVM, open it: its own panes and banner.
	tm.keys("/")
	tm.keys("-l", strconv.Itoa(deadlocking))
	tm.keys("Enter")
	tm.waitFor("the filter", 5*time.Second, "Fleet · 1 (of 5) /"+strconv.Itoa(deadlocking))
	tm.keys("Enter")
	screen = tm.waitFor("the JVM's panes", 15*time.Second, "Threads", "Hot methods", "Monitors", "● streaming", "DEADLOCK:", "esc q fleet")
	if strings.Contains(screen, "Fleet ·") {
		t.Fatalf("the overview is still shown:\n%s", screen)
	}
	// Its keys are its own: a drill-in, left with esc, then esc to the fleet.
	tm.keys("3", "Enter")
	tm.waitFor("a monitor drill-in", 5*time.Second, "Drill-in: Monitors")
	tm.keys("Escape")
	tm.waitFor("the JVM's panes again", 5*time.Second, "esc q fleet")
	tm.keys("Escape")
	tm.waitFor("the overview again", 5*time.Second, "Fleet · 1 (of 5)", "fleet of 5 JVMs")
	// Another JVM, left with q.
	tm.keys("Escape")
	tm.waitFor("the filter cleared", 5*time.Second, "Fleet · 5 ·")
	tm.keys("Down")
	tm.keys("Enter")
	tm.waitFor("the second JVM's panes", 10*time.Second, "● streaming", "esc q fleet", "DEADLOCK elsewhere (1 JVM")
	tm.keys("q")
	tm.waitFor("the overview", 5*time.Second, "Fleet · 5")
	tm.keys("q")
	tm.waitFor("the shell", 5*time.Second, "$ ")
	if tm.run("display-message", "-p", "-t", "e2e", "#{alternate_on}") != "0\n" {
		t.Fatal("the terminal was not restored")
	}
}

// 80×24: nothing overflows, the banner and the selected JVM's error fit.
func TestFleetAt80x24(t *testing.T) {
	a := startSimulator(t, "--seed", "5")
	refused := freePort(t)
	tm := newTmux(t, 80, 24)
	tm.keys(fmt.Sprintf("%s --host 127.0.0.1:%d,127.0.0.1:%d --refresh 300ms", proftopBin, a, refused), "Enter")
	tm.waitFor("the overview", 15*time.Second, "fleet of 2 JVMs", "● 1 live", "● 1 reconnecting", "? help")
	tm.keys("Down")
	screen := tm.waitFor("the refused JVM's error", 5*time.Second, "reconnecting (attempt", "connection refused by 127.0.0.1:"+strconv.Itoa(refused))
	for i, line := range strings.Split(strings.TrimRight(screen, "\n"), "\n") {
		if n := len([]rune(line)); n > 80 {
			t.Fatalf("line %d has %d cells: %q", i, n, line)
		}
	}
	tm.keys("?")
	tm.waitFor("the help", 5*time.Second, "open the JVM's panes", "back to the fleet")
	tm.keys("x", "q")
	tm.waitFor("the shell", 5*time.Second, "$ ")
}

// --batch --json: one document per JVM per snapshot, a refused one among them.
func TestFleetBatchJSON(t *testing.T) {
	a, b := startSimulator(t, "--seed", "6"), startSimulator(t, "--seed", "7")
	refused := freePort(t)
	out, errs, code := run(t, nil, "--host", fmt.Sprintf("127.0.0.1:%d,127.0.0.1:%d/1,127.0.0.1:%d", a, b, refused),
		"--batch", "--json", "-n", "2", "--refresh", "700ms")
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if code != 0 || len(lines) != 6 {
		t.Fatalf("exit %d, %d lines, want 2 snapshots of 3 JVMs\n%s\n%s", code, len(lines), out, errs)
	}
	for i, l := range lines[3:] {
		var doc struct {
			Host    string
			State   string
			Cause   string
			Events  int64
			Picture struct{ Threads int }
		}
		if err := json.Unmarshal([]byte(l), &doc); err != nil {
			t.Fatal(err)
		}
		wantHost := []string{fmt.Sprintf("127.0.0.1:%d", a), fmt.Sprintf("127.0.0.1:%d/1", b), fmt.Sprintf("127.0.0.1:%d", refused)}[i]
		if doc.Host != wantHost {
			t.Fatalf("document %d is of %q, want %q", i, doc.Host, wantHost)
		}
		live := i < 2
		if live && (doc.State != "live" || doc.Events == 0 || doc.Picture.Threads == 0) || !live && (doc.State != "reconnecting" || !strings.Contains(doc.Cause, "refused")) {
			t.Fatalf("%s", l)
		}
	}
	// Nobody answers and nobody is retried: exit status 1, each one's reason.
	_, errs, code = run(t, nil, "--host", fmt.Sprintf("127.0.0.1:%d,127.0.0.1:%d", refused, freePort(t)), "--batch", "-n", "3", "--reconnect=false")
	if code != 1 || strings.Count(errs, "connection refused") != 2 {
		t.Fatalf("exit %d: %s", code, errs)
	}
}

// proftop demo --agents N watches its N simulated JVMs as a fleet; with
// --agent, the one named alone.
func TestDemoOfSeveralJVMsIsAFleet(t *testing.T) {
	out, errs, code := run(t, nil, "demo", "--agents", "3", "--batch", "-n", "1", "--refresh", "500ms")
	if code != 0 || !strings.Contains(out, "fleet of 3 JVMs") || strings.Count(out, " live ") < 3 {
		t.Fatalf("exit %d:\n%s\n%s", code, out, errs)
	}
	out, errs, code = run(t, nil, "demo", "--agents", "3", "--agent", "2", "--batch", "-n", "1", "--refresh", "500ms")
	if code != 0 || strings.Contains(out, "fleet of") || !strings.Contains(out, "pid 4259") {
		t.Fatalf("--agent 2: exit %d:\n%.600s\n%s", code, out, errs)
	}
}
