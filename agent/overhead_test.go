package agent

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os"
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

// BenchmarkAgentOverheadOnTomcat measures what watching costs Tomcat, as a
// paired comparison: two identical Tomcats, both with the agent loaded,
// under the same ab load at the same time, proftop connected to one of
// them, which one alternating round by round. Each round's figure is the
// watched Tomcat's requests per second over the other's; the median of
// the rounds is reported, for a CPU-bound page (index.jsp) and for one
// that contends on a monitor at every request (contend.jsp, where the
// agent reports every contention). proftop connects, then the load starts
// after a warm-up, so the figure is the steady cost of watching. Target:
// under 2% slower. Run with -benchtime 1x; about 8 minutes.
func BenchmarkAgentOverheadOnTomcat(b *testing.B) {
	const rounds, warmup, seconds, clients = 8, 5 * time.Second, 10 * time.Second, 8
	_, jar := workload(b)
	var cats [2]*tomcat
	var ports [2]int
	for i := range cats {
		portFile := filepath.Join(b.TempDir(), "port")
		cats[i] = startTomcat(b, liveJIT, fmt.Sprintf("-javaagent:%s=port=0,portfile=%s", jar, portFile))
		at, err := waitForPort(portFile, 20*time.Second, cats[i].PID)
		if err != nil {
			b.Fatal(err)
		}
		ports[i] = at.Port
	}
	for b.Loop() {
		for _, page := range []string{"/index.jsp", "/contend.jsp"} {
			// Warm both up under the load first: the JIT.
			one, other := startAB(b, cats[0].URL(page), clients, seconds), startAB(b, cats[1].URL(page), clients, seconds)
			one.Wait()
			other.Wait()
			var ratios, cpuRatios []float64
			for r := range rounds {
				watched := r % 2
				s := client.NewSession(client.Config{Host: "127.0.0.1", Port: ports[watched]})
				agg := state.New(state.Options{})
				ctx, cancel := context.WithCancel(context.Background())
				go agg.Feed(s)
				go s.Run(ctx)
				go func() { // snapshots as the interface takes them
					for ctx.Err() == nil {
						time.Sleep(time.Second)
						agg.Release(agg.Snapshot(time.Now(), state.Query{Recent: true, CallersOf: -1}))
					}
				}()
				time.Sleep(warmup)
				cpuWatched, cpuOther := processCPU(b, cats[watched].PID), processCPU(b, cats[1-watched].PID)
				threadsWatched, threadsOther := threadCPU(cats[watched].PID), threadCPU(cats[1-watched].PID)
				a, c := startAB(b, cats[watched].URL(page), clients, seconds), startAB(b, cats[1-watched].URL(page), clients, seconds)
				with, without := a.Wait(), c.Wait()
				cpuWatched, cpuOther = processCPU(b, cats[watched].PID)-cpuWatched, processCPU(b, cats[1-watched].PID)-cpuOther
				extra := cpuByThreadKind(threadsWatched, threadCPU(cats[watched].PID), threadsOther, threadCPU(cats[1-watched].PID))
				cancel()
				ratio := with.RPS / without.RPS
				ratios = append(ratios, ratio)
				// CPU time per request: what watching costs inside the
				// watched JVM, whatever share of the cores each Tomcat got.
				perWatched := cpuWatched / time.Duration(max(with.Complete, 1))
				perOther := cpuOther / time.Duration(max(without.Complete, 1))
				cpuRatio := float64(perWatched) / float64(perOther)
				cpuRatios = append(cpuRatios, cpuRatio)
				b.Logf("%s round %d: watched Tomcat %d %.0f/s, the other %.0f/s: %.3f; CPU a request %v against %v: %.3f; more CPU watched, by thread: %s",
					page, r, watched, with.RPS, without.RPS, ratio, perWatched, perOther, cpuRatio, extra)
				time.Sleep(2 * time.Second) // the agent stops recording
			}
			median := medianOf(ratios)
			name := strings.TrimSuffix(strings.TrimPrefix(page, "/"), ".jsp")
			b.ReportMetric(100*(1-median), name+"-slowdown-%")
			b.Logf("%s: ratios %v, median %.4f: %.2f%% slower watched", page, ratios, median, 100*(1-median))
			cpuMedian := medianOf(cpuRatios)
			b.ReportMetric(100*(cpuMedian-1), name+"-cpu-per-request-%")
			b.Logf("%s: CPU a request, watched over the other: %v, median %.4f: %.2f%% more CPU a request watched",
				page, cpuRatios, cpuMedian, 100*(cpuMedian-1))
		}
	}
}

// medianOf is the median of an even or odd number of values.
func medianOf(values []float64) float64 {
	sorted := slices.Clone(values)
	slices.Sort(sorted)
	n := len(sorted)
	if n%2 == 1 {
		return sorted[n/2]
	}
	return (sorted[n/2-1] + sorted[n/2]) / 2
}

// processCPU is the CPU time a process has used, its threads' user and
// system time together (/proc/PID/stat, in clock ticks of 10 ms).
func processCPU(tb testing.TB, pid int) time.Duration {
	tb.Helper()
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		tb.Fatal(err)
	}
	// The command name, in parentheses, may hold spaces: count fields after it.
	fields := strings.Fields(string(data[bytes.LastIndexByte(data, ')')+1:]))
	if len(fields) < 13 {
		tb.Fatalf("/proc/%d/stat: %q", pid, data)
	}
	utime, _ := strconv.ParseInt(fields[11], 10, 64)
	stime, _ := strconv.ParseInt(fields[12], 10, 64)
	return time.Duration(utime+stime) * 10 * time.Millisecond
}

// threadCPU is the CPU time each thread of a process has used, by the
// thread's name as the kernel keeps it (its first 15 bytes), threads of
// one name together.
func threadCPU(pid int) map[string]time.Duration {
	out := map[string]time.Duration{}
	tasks, _ := os.ReadDir(fmt.Sprintf("/proc/%d/task", pid))
	for _, task := range tasks {
		data, err := os.ReadFile(fmt.Sprintf("/proc/%d/task/%s/stat", pid, task.Name()))
		if err != nil {
			continue // ended meanwhile
		}
		open, end := bytes.IndexByte(data, '('), bytes.LastIndexByte(data, ')')
		if open < 0 || end < open {
			continue
		}
		fields := strings.Fields(string(data[end+1:]))
		if len(fields) < 13 {
			continue
		}
		utime, _ := strconv.ParseInt(fields[11], 10, 64)
		stime, _ := strconv.ParseInt(fields[12], 10, 64)
		// Numbered threads of one kind (C2 CompilerThread0, GC Thread#1) together.
		name := strings.TrimRight(string(data[open+1:end]), "0123456789#")
		out[name] += time.Duration(utime+stime) * 10 * time.Millisecond
	}
	return out
}

// cpuByThreadKind says, by kind of thread, how much more CPU the watched
// process's threads used than the other's over the same span, the largest
// differences first.
func cpuByThreadKind(watched0, watched1, other0, other1 map[string]time.Duration) string {
	diff := map[string]time.Duration{}
	for name, d := range watched1 {
		diff[name] += d - watched0[name]
	}
	for name, d := range other1 {
		diff[name] -= d - other0[name]
	}
	names := make([]string, 0, len(diff))
	for name, d := range diff {
		if d >= 50*time.Millisecond || d <= -50*time.Millisecond {
			names = append(names, name)
		}
	}
	slices.SortFunc(names, func(a, b string) int { return int(diff[b] - diff[a]) })
	var parts []string
	for _, name := range names {
		parts = append(parts, fmt.Sprintf("%s %v", name, diff[name]))
	}
	return strings.Join(parts, ", ")
}
