package main

import (
	"fmt"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// tmuxSession drives a shell in a detached tmux server of its own.
type tmuxSession struct {
	t      *testing.T
	socket string
}

func newTmux(t *testing.T, w, h int) *tmuxSession {
	t.Helper()
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Fatal("tmux is needed for the interface tests: apt-get install tmux (.ci/run installs it)")
	}
	s := &tmuxSession{t: t, socket: fmt.Sprintf("proftop-e2e-%d", time.Now().UnixNano())}
	s.run("new-session", "-d", "-s", "e2e", "-x", strconv.Itoa(w), "-y", strconv.Itoa(h), "env", "PS1=$ ", "TERM=xterm-256color", "bash", "--norc", "--noprofile")
	t.Cleanup(func() { exec.Command("tmux", "-L", s.socket, "kill-server").Run() })
	return s
}

func (s *tmuxSession) run(args ...string) string {
	s.t.Helper()
	out, err := exec.Command("tmux", append([]string{"-L", s.socket}, args...)...).CombinedOutput()
	if err != nil {
		s.t.Fatalf("tmux %v: %v\n%s", args, err, out)
	}
	return string(out)
}

func (s *tmuxSession) keys(keys ...string) {
	s.run(append([]string{"send-keys", "-t", "e2e"}, keys...)...)
}
func (s *tmuxSession) screen() string { return s.run("capture-pane", "-p", "-t", "e2e") }

// waitForLast polls the screen until every string is on its last line,
// which it returns.
func (s *tmuxSession) waitForLast(what string, d time.Duration, want ...string) string {
	s.t.Helper()
	return lastLine(s.waitUntil(what+" on the last line", d, func(screen string) bool { return containsAll(lastLine(screen), want) }))
}

// waitFor polls the screen until every string is on it.
func (s *tmuxSession) waitFor(what string, d time.Duration, want ...string) string {
	s.t.Helper()
	return s.waitUntil(what, d, func(screen string) bool { return containsAll(screen, want) })
}

// waitUntil polls the screen until done says so of it, and returns it.
func (s *tmuxSession) waitUntil(what string, d time.Duration, done func(screen string) bool) string {
	s.t.Helper()
	deadline := time.Now().Add(d)
	for {
		screen := s.screen()
		if done(screen) {
			return screen
		}
		if time.Now().After(deadline) {
			s.t.Fatalf("timed out waiting for %s; the screen:\n%s", what, screen)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func containsAll(s string, want []string) bool {
	for _, w := range want {
		if !strings.Contains(s, w) {
			return false
		}
	}
	return true
}

// The real binary in a terminal against the simulator: the four panes
// fill, a monitor drills in, the view freezes, q quits and the terminal is
// as it was.
func TestInterfaceInTmux(t *testing.T) {
	port := startSimulator(t, "--deadlock-every", "8s", "--deadlock-for", "4s")
	tm := newTmux(t, 200, 60)
	tm.keys("echo before-proftop", "Enter")
	tm.waitFor("the shell", 5*time.Second, "before-proftop")
	tm.keys(fmt.Sprintf("%s --host 127.0.0.1 --port %d --refresh 300ms", proftopBin, port), "Enter")
	screen := tm.waitFor("the panes to fill", 15*time.Second,
		"Threads", "Hot methods", "Monitors", "GC", "Objects", "http-nio-8080-exec", "com.acme.shop", "collections", "● streaming", "binary",
		"by CPU time ▼", "by self time ▼", "by time blocked ▼", "G1 Eden Space", "byte[]")
	if tm.run("display-message", "-p", "-t", "e2e", "#{alternate_on}") != "1\n" {
		t.Fatalf("not on the alternate screen:\n%s", screen)
	}
	tm.waitFor("the deadlock banner", 20*time.Second, "DEADLOCK:", "com.acme.billing.Account")
	// Drill into the deadlocked monitor.
	tm.keys("3", "/")
	tm.keys("-l", "Account")
	tm.keys("Enter", "Enter")
	tm.waitFor("the monitor drill-in", 5*time.Second, "Drill-in: Monitors", "Owner", "Waiters", "BLOCKED for", "at com.acme.billing.Account")
	tm.keys("Escape")
	tm.waitFor("the panes again", 5*time.Second, "Monitors", "/Account")
	// Once its threads are killed, the deadlock leaves a line saying when it was.
	tm.waitFor("the line of the deadlock cleared", 20*time.Second, "last deadlock: pool-2-thread")
	tm.keys("Space")
	tm.waitFor("the PAUSED badge", 5*time.Second, "PAUSED")
	tm.keys("q")
	screen = tm.waitFor("the shell again", 5*time.Second, "before-proftop", "$ ")
	if strings.Contains(screen, "Hot methods") || tm.run("display-message", "-p", "-t", "e2e", "#{alternate_on}") != "0\n" {
		t.Fatalf("the terminal was not restored:\n%s", screen)
	}
	// The shell still echoes what is typed: the terminal modes are back.
	tm.keys("echo after-proftop", "Enter")
	tm.waitFor("a working shell", 5*time.Second, "after-proftop")
}

// 80×24, the size of a default SSH terminal: one pane at a time, nothing
// overflows, and a wrong port says so on screen and retries.
func TestInterfaceAt80x24(t *testing.T) {
	tm := newTmux(t, 80, 24)
	tm.keys(fmt.Sprintf("%s --host 127.0.0.1 --port %d --refresh 300ms", proftopBin, freePort(t)), "Enter")
	tm.waitFor("the connection error", 10*time.Second, "reconnecting", "connection refused")
	tm.keys("q")
	tm.waitFor("the shell", 5*time.Second, "$ ")

	tm.keys("clear", "Enter")
	tm.keys(fmt.Sprintf("%s demo --refresh 300ms", proftopBin), "Enter")
	screen := tm.waitFor("the threads pane", 15*time.Second, "1 Threads", "http-nio-8080-exec")
	for i, line := range strings.Split(strings.TrimRight(screen, "\n"), "\n") {
		if n := len([]rune(line)); n > 80 {
			t.Fatalf("line %d has %d cells: %q", i, n, line)
		}
	}
	tm.keys("4")
	tm.waitFor("the GC pane", 10*time.Second, "collections", "heap")
	tm.keys("q")
	tm.waitFor("the shell", 5*time.Second, "$ ")
}

// At 80×24 a newcomer finds every key: the help fits (scrolling for the
// rest), the footer always offers ? and q, a sort names its column in
// the title, the filter matches states, and q leaves a drill-in before it
// quits.
func TestInterfaceKeysAt80x24(t *testing.T) {
	tm := newTmux(t, 80, 24)
	tm.keys(fmt.Sprintf("%s demo --refresh 300ms", proftopBin), "Enter")
	tm.waitFor("the threads pane", 15*time.Second, "1 Threads", "http-nio-8080-exec", "by CPU time")
	// The footer, once drawn (a loaded machine may capture the terminal
	// in the middle of its first frames): the screen's last line.
	if last := tm.waitForLast("the footer", 5*time.Second, "? help", "q quit"); strings.Contains(last, "│") {
		t.Fatalf("the footer is inside a pane: %q", last)
	}
	tm.keys("?")
	tm.waitFor("the help", 5*time.Second, "Help", "Panes", "Tables", "scroll")
	tm.keys("Down", "Down", "Down", "Down", "Down", "Down", "Down", "Down", "Down", "Down", "Down", "Down")
	tm.waitFor("the rest of the help", 5*time.Second, "View", "freeze the view")
	tm.keys("x")
	tm.waitFor("the panes again", 5*time.Second, "1 Threads")
	tm.keys(">")
	tm.waitFor("the sort by the next column", 5*time.Second, "by time blocked")
	tm.keys("/")
	tm.keys("-l", "blocked")
	tm.keys("Enter")
	screen := tm.waitFor("the filter on states", 10*time.Second, "/blocked", "blocked      ")
	for _, line := range strings.Split(screen, "\n") {
		if strings.Contains(line, "http-nio-8080-exec") && !strings.Contains(line, "blocked") {
			t.Fatalf("/blocked shows a thread that is not blocked: %q\n%s", line, screen)
		}
	}
	tm.keys("Enter")
	tm.waitFor("a thread's drill-in", 5*time.Second, "Drill-in: Threads", "esc q back")
	tm.keys("q")
	tm.waitFor("the panes after q in a drill-in", 5*time.Second, "1 Threads", "/blocked")
	tm.keys("q")
	tm.waitFor("the shell", 5*time.Second, "$ ")
}

// A terminal resized while proftop runs is left clean when it quits, as
// less and vim leave it.
func TestQuitAfterResize(t *testing.T) {
	tm := newTmux(t, 120, 40)
	tm.keys("clear; echo before-proftop", "Enter")
	tm.waitFor("the shell", 5*time.Second, "before-proftop")
	tm.keys(fmt.Sprintf("%s demo --refresh 200ms", proftopBin), "Enter")
	tm.waitFor("the interface", 15*time.Second, "Threads", "http-nio-8080-exec")
	tm.run("resize-window", "-t", "e2e", "-x", "100", "-y", "30")
	tm.waitFor("the smaller frame", 5*time.Second, "1 Threads")
	tm.run("resize-window", "-t", "e2e", "-x", "130", "-y", "45")
	time.Sleep(500 * time.Millisecond) // a frame at the new size
	tm.keys("q")
	screen := tm.waitFor("the shell again", 5*time.Second, "before-proftop", "$ ")
	if strings.Contains(screen, "http-nio") || strings.Contains(screen, "Threads") || strings.Contains(screen, "╭") {
		t.Fatalf("pieces of the interface are left on the shell's screen:\n%s", screen)
	}
}

// pastLine is the screen's line that says which moment of the past it
// shows ("" when none).
func pastLine(screen string) string {
	for _, l := range strings.Split(screen, "\n") {
		if strings.Contains(l, "PAST -") || strings.Contains(l, "PAUSED") {
			return l
		}
	}
	return ""
}

func lastLine(screen string) string {
	lines := strings.Split(strings.TrimRight(screen, "\n"), "\n")
	return lines[len(lines)-1]
}

// Freeze, step back to a deadlock that has since cleared, see it as it
// was, and write a triage bundle of it that replay reopens.
func TestTimeTravelAndBundleInTmux(t *testing.T) {
	port := startSimulator(t, "--deadlock-every", "8s", "--deadlock-for", "4s")
	dir := t.TempDir()
	tm := newTmux(t, 120, 40)
	tm.keys("cd "+dir, "Enter")
	tm.keys(fmt.Sprintf("%s --host 127.0.0.1 --port %d --refresh 300ms", proftopBin, port), "Enter")
	tm.waitFor("the deadlock banner", 30*time.Second, "DEADLOCK:", "com.acme.billing.Account")
	tm.waitFor("the deadlock cleared", 30*time.Second, "last deadlock: pool-2-thread")
	tm.keys("Space")
	tm.waitFor("the timeline", 5*time.Second, "PAUSED", "history ", "D")
	// Step back mark by mark (contention peaks are marks too) to the deadlock.
	var screen string
	for i := 0; ; i++ {
		before := pastLine(tm.screen())
		tm.keys("N")
		// Each step drawn before the next is asked for: on a loaded
		// machine a step not yet on screen was stepped past.
		for wait := time.Now().Add(3 * time.Second); time.Now().Before(wait); time.Sleep(50 * time.Millisecond) {
			if screen = tm.screen(); pastLine(screen) != before || strings.Contains(screen, "no mark that way") {
				break
			}
		}
		if strings.Contains(screen, "PAST -") && strings.Contains(screen, "DEADLOCK:") {
			break
		}
		if i == 30 || strings.Contains(screen, "no mark that way") {
			t.Fatalf("no mark led back to the deadlock:\n%s", screen)
		}
	}
	// Every pane shows that moment: the deadlocked monitor's drill-in.
	tm.keys("3", "/")
	tm.keys("-l", "Account")
	tm.keys("Enter", "Enter")
	tm.waitFor("the past monitor's drill-in", 5*time.Second, "Drill-in: Monitors", "part of a deadlock", "PAST -")
	tm.keys("Escape")
	// Escape then w at once would read as alt+w: the next key waits for the panes.
	tm.waitFor("the panes at that moment", 5*time.Second, "Monitors · ", "/Account", "PAST -")
	tm.keys("w")
	screen = tm.waitFor("the bundle", 30*time.Second, "bundle written:")
	bundles, _ := filepath.Glob(filepath.Join(dir, "proftop-bundle-*.tar.gz"))
	if len(bundles) != 1 {
		t.Fatalf("bundles %v\n%s", bundles, screen)
	}
	tm.keys("q")
	tm.waitFor("the shell", 5*time.Second, "$ ")
	out, errs, code := run(t, nil, "replay", bundles[0], "--batch", "--json", "--history")
	if code != 0 || !strings.Contains(out, `"marks":["deadlock"`) || !strings.Contains(out, `"sinceStart":{"calls":`) {
		t.Fatalf("exit %d\n%.2000s\n%s", code, out, errs)
	}
	// proftop replay reopens it: a past moment has its call tree, and the
	// drill-in of its hottest method its figures of then.
	tm.keys("clear; "+proftopBin+" replay "+bundles[0], "Enter")
	tm.waitFor("the bundle reopened", 30*time.Second, "Threads", "■ ended")
	tm.keys("Space")
	tm.waitFor("frozen", 5*time.Second, "PAUSED", "history ")
	tm.keys("Home", "Right", "Right", "Right", "2")
	tm.waitFor("a past moment", 5*time.Second, "PAST -", "Hot methods")
	tm.keys("t")
	screen = tm.waitFor("its call tree", 10*time.Second, "Call tree · the ", "all threads", "com.acme.shop")
	if strings.Contains(screen, "no stacks") {
		t.Fatalf("a past moment of the reopened bundle has no call tree:\n%s", screen)
	}
	tm.keys("Escape")
	tm.waitFor("the methods at that moment", 5*time.Second, "Hot methods", "PAST -")
	tm.keys("g", "Enter")
	screen = tm.waitFor("the past method's drill-in", 5*time.Second, "Drill-in: Hot methods", "Over the last", "Since watching began, as of then")
	if strings.Contains(screen, "calls 0 ") {
		t.Fatalf("the hottest method of a past moment shows no calls:\n%s", screen)
	}
	tm.keys("q", "q")
	tm.waitFor("the shell", 5*time.Second, "$")
}

// 200×60: every pane at once, nothing overflowing; the footer offers the
// keys of the pane at hand only, and a key of another pane says where it
// acts; the help fits whole, its notes flowed to the width.
func TestInterfaceAt200x60(t *testing.T) {
	tm := newTmux(t, 200, 60)
	tm.keys(fmt.Sprintf("%s demo --refresh 300ms", proftopBin), "Enter")
	screen := tm.waitFor("the grid", 15*time.Second, "Threads · ", "Hot methods · ", "Monitors · ", "╭─ GC ", "Objects · ", "Telemetry · ", "Probes · ",
		"http-nio-8080-exec", "OutputStreamManager", "q quit") // the footer too: a frame whole, not caught half drawn
	for i, line := range strings.Split(strings.TrimRight(screen, "\n"), "\n") {
		if n := len([]rune(line)); n > 200 {
			t.Fatalf("line %d has %d cells: %q", i, n, line)
		}
	}
	footer := lastLine(screen)
	if !strings.Contains(footer, "? help") || !strings.Contains(footer, "q quit") || strings.Contains(footer, "span") || strings.Contains(footer, "group locks") {
		t.Fatalf("the threads' footer: %q", footer)
	}
	tm.keys("2")
	tm.waitFor("the methods' keys in the footer", 5*time.Second, "c span", "t call tree")
	tm.keys("3")
	tm.waitFor("the monitors' keys in the footer", 5*time.Second, "m group locks")
	tm.keys("8", "m")
	tm.waitFor("m away from the monitors", 5*time.Second, "m groups the monitors by class and site: 3 goes there")
	tm.keys("?")
	screen = tm.waitFor("the help", 5*time.Second, "Help · any key closes", "Panes", "Sort and filter", "History (frozen)", "Marks on the timeline")
	for _, line := range strings.Split(screen, "\n") {
		if strings.HasPrefix(line, "│") && len(strings.Fields(strings.Trim(line, "│ "))) == 1 && strings.Contains(line, ".") {
			t.Fatalf("a note wrapped to one word: %q\n%s", line, screen)
		}
	}
	tm.keys("x")
	tm.waitFor("the grid again", 5*time.Second, "Probes · ")
	tm.keys("q")
	tm.waitFor("the shell", 5*time.Second, "$ ")
}

// --charset ascii at 80×24: not one byte beyond ASCII on the screen, in
// the panes, the help or the GC pane's meter and sparklines.
func TestInterfaceASCIIAt80x24(t *testing.T) {
	tm := newTmux(t, 80, 24)
	tm.keys(fmt.Sprintf("%s demo --charset ascii --refresh 300ms", proftopBin), "Enter")
	ascii := func(what, screen string) {
		t.Helper()
		for i, r := range screen {
			if r > 0x7e || r < 0x20 && r != '\n' {
				t.Fatalf("%s: %q at %d:\n%s", what, r, i, screen)
			}
		}
	}
	ascii("the threads", tm.waitFor("the threads pane", 15*time.Second, "1 Threads", "http-nio-8080-exec", "by CPU time v"))
	tm.keys("4")
	ascii("the GC pane", tm.waitFor("the GC pane", 10*time.Second, "collections", "heap used"))
	tm.keys("3")
	ascii("the monitors", tm.waitFor("the monitors", 10*time.Second, "Monitors", "@7f3a"))
	tm.keys("?")
	ascii("the help", tm.waitFor("the help", 5*time.Second, "Help", "Panes", "Tables"))
	tm.keys("x")
	tm.waitFor("the panes again", 5*time.Second, "Monitors")
	tm.keys("q")
	tm.waitFor("the shell", 5*time.Second, "$ ")
}

// replay - reads a pipe: given the terminal instead, it says so rather
// than wait for a trace to be typed.
func TestReplayOfATerminalOnStandardInput(t *testing.T) {
	tm := newTmux(t, 150, 10)
	tm.keys(proftopBin+" replay -", "Enter")
	tm.waitFor("the refusal", 10*time.Second, "standard input is a terminal: pipe a trace into it", "$ ")
}
