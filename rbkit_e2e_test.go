package main

import (
	"fmt"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/proftop/proftop/internal/fixtures"
)

// proftop demo --rbkit in a terminal: the fake rbkit server's Ruby process
// fills threads, hot methods, objects and GC, the Monitors pane says why it
// is empty, and the keys toggle the profiler and show its state.
func TestRbkitInterfaceInTmux(t *testing.T) {
	tm := newTmux(t, 200, 50)
	tm.keys(fmt.Sprintf("%s demo --rbkit --refresh 300ms", proftopBin), "Enter")
	tm.waitFor("the panes to fill", 20*time.Second,
		"rbkit 127.0.0.1", "pid 4242", "pwd /srv/ledger", "C CPU sampling on", "M memory profiling on", "W CPU clock",
		"main", "Ledger#reconcile", "BigDecimal#+ <cfunc>", "in samples", "rbkit reports no locks", "Objects", "Ledger::Entry", "(no class)",
		"collections")
	tm.keys("W")
	tm.waitFor("the wall clock", 15*time.Second, "W wall clock", "sampling on the wall clock")
	tm.waitFor("sleeping sampled on the wall clock", 15*time.Second, "Kernel#sleep <cfunc>")
	tm.keys("C")
	tm.waitFor("CPU sampling off", 15*time.Second, "C CPU sampling off", "CPU sampling stopped")
	tm.keys("O")
	// The reply's notice ("asked for") gives way to "census arrived" as soon
	// as the census has come, which on a fast server is within a refresh:
	// the notice that stays is the one waited for.
	tm.waitFor("the census asked for and arrived", 15*time.Second, "census arrived: ", "objects, counted at")
	tm.keys("5")
	tm.waitFor("the census beside the classes", 15*time.Second, "CENSUS", "LIVE, LAST MINUTE", "v census")
	tm.keys("v")
	tm.waitFor("the census by class and site", 15*time.Second, "ALLOCATED AT", "ledger.rb:", "COUNT", "v classes")
	tm.keys("?")
	tm.waitFor("the commands in the help", 5*time.Second, "force a GC", "object-space snapshot", "memory profiling on/off")
	tm.keys("Escape")
	tm.waitFor("the panes again", 5*time.Second, "Threads · ", "Monitors · ") // titles the help does not have
	tm.keys("q")
	tm.waitFor("the shell", 10*time.Second, "$ ")
}

// At 80×24 the header still names the process, its pid and directory, and
// the footer offers rbkit's keys.
func TestRbkitSmallTerminal(t *testing.T) {
	tm := newTmux(t, 80, 24)
	tm.keys(fmt.Sprintf("%s demo --rbkit --refresh 300ms", proftopBin), "Enter")
	tm.waitFor("the header and the footer", 20*time.Second,
		"reconcile.rb  pid 4242", "pwd /srv/ledger", "C CPU sampling on", "C CPU · M memory · W clock · X GC · O snapshot")
	tm.keys("q")
	tm.waitFor("the shell", 10*time.Second, "$ ")
}

// proftop rbkit --batch against a recording's replay and a fake server:
// the same picture in text, with no terminal.
func TestRbkitBatchAndReplay(t *testing.T) {
	out, err := exec.Command(proftopBin, "replay", fixtures.Path(t, "rbkit/memory_profile.msgpack"), "--batch").CombinedOutput()
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	for _, want := range []string{"rbkit", "OBJECTS", "String", "(no class)", "UNKNOWN CLASS", "collections 10", "heap"} {
		if !strings.Contains(string(out), want) {
			t.Fatalf("replay of an rbkit recording lacks %q:\n%s", want, out)
		}
	}
}
