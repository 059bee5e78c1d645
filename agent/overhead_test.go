package agent

import (
	"bufio"
	"context"
	"fmt"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/proftop/proftop/client"
	"github.com/proftop/proftop/state"
)

// benchRun runs the workload's bench mode for seconds and returns its
// operations per second. With connect, proftop's client watches it through
// the agent the whole time (decoding and aggregating, as the interface does).
func benchRun(b *testing.B, seconds, warmup int, agentArgs string, connect bool) float64 {
	classes, jar := workload(b)
	args := []string{"-cp", classes, "Workload", "bench", strconv.Itoa(seconds), strconv.Itoa(warmup)}
	portFile := filepath.Join(b.TempDir(), "port")
	if agentArgs != "" {
		args = append([]string{fmt.Sprintf("-javaagent:%s=port=0,portfile=%s%s", jar, portFile, agentArgs)}, args...)
	}
	cmd := exec.Command("java", args...)
	stdout, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	defer cmd.Process.Kill()
	if connect {
		at, err := waitForPort(portFile, 20*time.Second, cmd.Process.Pid)
		if err != nil {
			b.Fatal(err)
		}
		s := client.NewSession(client.Config{Host: "127.0.0.1", Port: at.Port})
		agg := state.New(state.Options{})
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		go agg.Feed(s)
		go s.Run(ctx)
		go func() { // take snapshots as the interface would, once a second
			for ctx.Err() == nil {
				time.Sleep(time.Second)
				agg.Release(agg.Snapshot(time.Now(), state.Query{Recent: true, CallersOf: -1}))
			}
		}()
	}
	sc := bufio.NewScanner(stdout)
	for sc.Scan() {
		if n, ok := strings.CutPrefix(sc.Text(), "ops "); ok {
			ops, _ := strconv.ParseFloat(n, 64)
			cmd.Wait()
			return ops / float64(seconds)
		}
	}
	b.Fatal("the workload printed no ops")
	return 0
}

// BenchmarkAgentOverhead compares the workload's throughput without the
// agent, with the agent loaded and nobody connected, and with proftop
// connected (default settings), in alternating rounds; it reports medians
// and the slowdowns. proftop connects as the workload starts; throughput
// is counted after a warm-up that lets the one-time cost of connecting
// (starting JFR, compiling its parser) pass, for steady state: the figure
// a user watching for minutes pays. Target: at most 3% slower connected.
// Run with -benchtime 1x; it takes about 5 minutes.
func BenchmarkAgentOverhead(b *testing.B) {
	const rounds, seconds, warmup = 5, 15, 12
	for b.Loop() {
		var none, idle, connected []float64
		for range rounds {
			none = append(none, benchRun(b, seconds, warmup, "", false))
			idle = append(idle, benchRun(b, seconds, warmup, ",poll=1s", false))
			connected = append(connected, benchRun(b, seconds, warmup, ",poll=1s", true))
		}
		median := func(v []float64) float64 { slices.Sort(v); return v[len(v)/2] }
		n, i, c := median(none), median(idle), median(connected)
		b.ReportMetric(n, "ops/s-no-agent")
		b.ReportMetric(i, "ops/s-agent-idle")
		b.ReportMetric(c, "ops/s-proftop-connected")
		b.ReportMetric(100*(n-i)/n, "idle-slowdown-%")
		b.ReportMetric(100*(n-c)/n, "connected-slowdown-%")
		b.Logf("no agent %v\nidle %v\nconnected %v", none, idle, connected)
	}
}
