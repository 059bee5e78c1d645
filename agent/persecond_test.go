package agent

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/proftop/proftop/decode"
)

// A JFR field's per-second sums (PerSecond): each event in the second it
// ended in, whenever JFR delivers it, and each second handed out once, when
// the recording has delivered past its end. The cases run in one JVM.
func TestTelemetryPerSecondSums(t *testing.T) {
	many := func(format string, from, to int) string {
		var b strings.Builder
		for i := from; i < to; i++ {
			fmt.Fprintf(&b, format, i)
		}
		return b.String()
	}
	cases := []struct {
		name, script, want string
	}{
		{"each event in the second it ended in, handed out once complete",
			"first 10\nadd 10.2 100\nadd 10.9 50\nadd 11.1 7\ncomplete 10.95\ncomplete 11.5\ncomplete 11.6\ncomplete 12.0\n",
			"10 150\n11 7\n"},
		{"a batch delivered late, after a pause, split by the events' own seconds",
			"first 10\nadd 10.5 100\nadd 11.5 100\nadd 12.5 100\nadd 13.2 100\ncomplete 13.3\n",
			"10 100\n11 100\n12 100\n"},
		{"a second without events is a 0",
			"first 10\nadd 10.5 5\ncomplete 14.1\n",
			"10 5\n11 0\n12 0\n13 0\n"},
		{"an event in a second the recording saw in part is not counted",
			"first 11\nadd 10.7 100\nadd 11.2 3\ncomplete 12.5\n",
			"11 3\n"},
		{"an event later than its second counts in the first one not handed out",
			"first 10\nadd 10.5 1\ncomplete 11.2\nadd 10.9 2\nadd 11.3 4\ncomplete 12\n",
			"10 1\n11 6\n"},
		{"events out of order among the seconds waiting",
			"first 10\nadd 10.1 1\nadd 12.5 1\nadd 11.5 2\ncomplete 13\n",
			"10 1\n11 2\n12 1\n"},
		{"a long silence: its last 300 seconds",
			"first 10\nadd 10.5 1\ncomplete 11\ncomplete 1000\n",
			"10 1\n" + many("%d 0\n", 700, 1000)},
		{"more seconds waiting than the bound: the newest takes the rest",
			"first 0\n" + many("add %d.5 1\n", 0, 65) + "complete 66\n",
			many("%d 1\n", 0, 63) + "63 2\n64 0\n65 0\n"},
	}
	classpath := checkClasspath(t, "PerSecondCheck")
	var script strings.Builder
	for i, c := range cases {
		fmt.Fprintf(&script, "case %d\n%s", i, c.script)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, "java", "-cp", classpath, "io.proftop.agent.PerSecondCheck")
	cmd.Stdin = strings.NewReader(script.String())
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	got := strings.Split(string(out), "case ")[1:]
	if len(got) != len(cases) {
		t.Fatalf("%d cases ran of %d:\n%s", len(got), len(cases), out)
	}
	for i, c := range cases {
		if g := strings.TrimPrefix(got[i], fmt.Sprintf("%d\n", i)); g != c.want {
			t.Errorf("%s:\n got %q\nwant %q", c.name, g, c.want)
		}
	}
}

// A thread's CPU over an interval is shared among its samples; those
// running the agent's code count, and their share is the agent's: sent to
// no stack. Before, they were left out of the count and the application's
// one sample among nine of the agent's took the whole 50 ms.
func TestSamplerLeavesTheAgentsShareOut(t *testing.T) {
	classpath := checkClasspath(t, "SamplerCheck")
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, "java", "-cp", classpath, "io.proftop.agent.SamplerCheck").Output()
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	events, clock := decodeEvents(t, bytes.NewReader(out))
	var samples []string
	for _, ev := range events {
		if s, ok := ev.(*decode.Sample); ok {
			samples = append(samples, fmt.Sprintf("%s ×%d %v", s.Stack.Methods[0], s.Count, clock.Duration(s.Weight)))
		}
	}
	if want := []string{"java.util.HashMap.get ×1 5ms"}; !slices.Equal(samples, want) {
		t.Fatalf("samples sent %q, want %q", samples, want)
	}
}

// checkClasspath compiles testdata/NAME.java, a check of the agent's
// classes from inside their package, against the agent's jar, and returns
// the class path that runs it: the jar and the check's classes.
func checkClasspath(t *testing.T, name string) string {
	t.Helper()
	_, jar := workload(t)
	classes := t.TempDir()
	if out, err := exec.Command("javac", "--release", "17", "-cp", jar, "-d", classes, "testdata/"+name+".java").CombinedOutput(); err != nil {
		t.Fatalf("javac: %v\n%s", err, out)
	}
	return jar + string(os.PathListSeparator) + classes
}

// Each poll sends a thread's counts of blocks and waits as of that poll,
// whether or not the poll looked at its stack again: in a JVM of more
// threads than a poll looks at again (any Tomcat), the counts sent were
// as old as the stack, and a thread blocked anew at every poll read as
// one block of seconds.
func TestPollsSendTheCountsOfTheirMoment(t *testing.T) {
	classpath := checkClasspath(t, "PollCountsCheck")
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, "java", "-cp", classpath, "io.proftop.agent.PollCountsCheck").Output()
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	var sent []int64
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		var got, real int64
		if _, err := fmt.Sscan(line, &got, &real); err != nil {
			t.Fatalf("%q: %v", line, err)
		}
		if got > real || got <= 0 {
			t.Fatalf("a poll sent %d blocks, the JVM counts %d after it:\n%s", got, real, out)
		}
		sent = append(sent, got)
	}
	// The waiter blocks about twice a poll (the lock is held 300 ms at a
	// time, polls come 700 ms apart): the counts sent rise, at most a poll
	// or two standing still on a loaded machine.
	rises := 0
	for i := 1; i < len(sent); i++ {
		if sent[i] > sent[i-1] {
			rises++
		}
	}
	if len(sent) < 6 || rises < len(sent)-3 {
		t.Fatalf("counts sent %v: they should rise from poll to poll", sent)
	}
}
