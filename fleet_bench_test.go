package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// residentMemory is another process's resident set now (VmRSS) or at its
// peak (VmHWM), from /proc (Linux only).
func residentMemory(p *os.Process, field string) int64 {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", p.Pid))
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(data), "\n") {
		if strings.HasPrefix(line, field+":") {
			kb, _ := strconv.ParseInt(strings.Fields(line)[1], 10, 64)
			return kb << 10
		}
	}
	return 0
}

// fleetTally keeps the latest of each JVM's JSON documents.
type fleetTally struct {
	mu     sync.Mutex
	events map[string]int64
	live   map[string]bool
}

func (f *fleetTally) read(sc *bufio.Scanner) {
	for sc.Scan() {
		var doc struct {
			Host   string
			State  string
			Events int64
		}
		if json.Unmarshal(sc.Bytes(), &doc) != nil {
			continue
		}
		f.mu.Lock()
		f.events[doc.Host], f.live[doc.Host] = doc.Events, doc.State == "live"
		f.mu.Unlock()
	}
}

func (f *fleetTally) totals() (events int64, live int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for h, n := range f.events {
		events += n
		if f.live[h] {
			live++
		}
	}
	return events, live
}

// BenchmarkFleet watches N simulated JVMs (one simulator process offering
// N agents, each connection its own JVM) with the real binary in batch
// JSON mode, a snapshot of the fleet a second, and reports proftop's CPU
// (from /proc) per wall second and per event, and its resident memory at
// the end. b.N is the seconds measured, after 70 s of warm-up (ended
// threads stay listed for a minute of trace time, so memory levels off
// only then): run with -benchtime 30x.
func BenchmarkFleet(b *testing.B) {
	for _, tc := range []struct{ agents, rate int }{{10, 20_000}, {100, 2_000}, {100, 20_000}} {
		b.Run(fmt.Sprintf("agents=%d/rate=%d", tc.agents, tc.rate), func(b *testing.B) {
			port, sim := startSimulatorProcess(b, "--agents", strconv.Itoa(tc.agents), "--rate", strconv.Itoa(tc.rate), "--deadlock-every", "-1s")
			hosts := make([]string, tc.agents)
			for i := range hosts {
				hosts[i] = fmt.Sprintf("127.0.0.1/%d", i+1)
			}
			cmd := exec.Command(proftopBin, "--host", strings.Join(hosts, ","), "--port", strconv.Itoa(port), "--batch", "--json", "--refresh", "1s")
			out, err := cmd.StdoutPipe()
			if err != nil {
				b.Fatal(err)
			}
			if err := cmd.Start(); err != nil {
				b.Fatal(err)
			}
			defer func() { cmd.Process.Kill(); cmd.Wait() }()
			tally := &fleetTally{events: map[string]int64{}, live: map[string]bool{}}
			sc := bufio.NewScanner(out)
			sc.Buffer(nil, 1<<20)
			go tally.read(sc)
			time.Sleep(70 * time.Second)
			b.ResetTimer()
			startEvents, _ := tally.totals()
			startCPU, startSim, start := processCPU(cmd.Process), processCPU(sim), time.Now()
			time.Sleep(time.Duration(b.N) * time.Second)
			elapsed := time.Since(start).Seconds()
			cpu, simCPU := (processCPU(cmd.Process) - startCPU).Seconds(), (processCPU(sim) - startSim).Seconds()
			b.StopTimer()
			events, live := tally.totals()
			events -= startEvents
			b.ReportMetric(float64(live), "live-JVMs")
			b.ReportMetric(float64(events)/elapsed, "events/s")
			b.ReportMetric(cpu/elapsed, "proftop-cpu-s/s")
			b.ReportMetric(1e9*cpu/max(float64(events), 1), "cpu-ns/event")
			b.ReportMetric(float64(residentMemory(cmd.Process, "VmRSS"))/(1<<20), "RSS-MiB")
			b.ReportMetric(float64(residentMemory(cmd.Process, "VmHWM"))/(1<<20), "peak-RSS-MiB")
			b.ReportMetric(simCPU/elapsed, "simulator-cpu-s/s")
		})
	}
}
