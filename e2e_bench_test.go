package main

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/proftop/proftop/client"
)

// cpuTimes is the CPU this process has used, in user space and in the
// kernel apart: the kernel's share is the socket (its reads and the TCP
// work on loopback that the reader's side does), which proftop's code
// does not choose.
func cpuTimes() (user, system time.Duration) {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano()), time.Duration(ru.Stime.Nano())
}

// processCPU is the CPU another process has used, from /proc (Linux only).
func processCPU(p *os.Process) time.Duration {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", p.Pid))
	if err != nil {
		return 0
	}
	fields := strings.Fields(string(data[strings.LastIndexByte(string(data), ')')+2:]))
	utime, _ := strconv.ParseInt(fields[11], 10, 64)
	stime, _ := strconv.ParseInt(fields[12], 10, 64)
	return time.Duration(utime+stime) * time.Second / 100 // USER_HZ
}

// BenchmarkEndToEnd measures events per second from the simulator (its own
// process, at saturation) through the loopback socket, framing and decoding
// into batches, and the CPU proftop's side uses for it (cpu-ns/event, the
// figure that holds on a busy machine; user space and kernel apart too),
// with the events each batch and each read system call carried. Targets:
// 3 M events/s and at most 150 ns of CPU per event in binary on a 2-core
// machine.
func BenchmarkEndToEnd(b *testing.B) {
	for _, format := range []client.FormatChoice{client.FormatBinary, client.FormatXML} {
		b.Run(string(format), func(b *testing.B) {
			port, sim := startSimulatorProcess(b, "--rate", "max")
			s := client.NewSession(client.Config{Host: "127.0.0.1", Port: port, Format: format})
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			go s.Run(ctx)
			// Warm up: connected, definitions sent, buffers grown.
			events := 0
			for events < 200_000 {
				bt := <-s.Batches()
				events += bt.Len()
				s.Recycle(bt)
			}
			startBytes := s.Status().Bytes
			startUser, startSystem := cpuTimes()
			startSim := processCPU(sim)
			startReads := readCalls()
			b.ResetTimer()
			events = 0
			batches := 0
			for events < b.N {
				bt := <-s.Batches()
				events += bt.Len()
				batches++
				s.Recycle(bt)
			}
			b.StopTimer()
			elapsed := b.Elapsed().Seconds()
			user, system := cpuTimes()
			user, system = user-startUser, system-startSystem
			cpu := (user + system).Seconds()
			simCPU := (processCPU(sim) - startSim).Seconds()
			bytes := s.Status().Bytes - startBytes
			b.ReportMetric(float64(events)/elapsed, "events/s")
			b.ReportMetric(float64(bytes)/elapsed/1e6, "MB/s")
			b.ReportMetric(100*cpu/elapsed, "proftop-cpu-%")
			b.ReportMetric(1e9*cpu/float64(events), "cpu-ns/event")
			b.ReportMetric(float64(user.Nanoseconds())/float64(events), "user-ns/event")
			b.ReportMetric(float64(system.Nanoseconds())/float64(events), "system-ns/event")
			b.ReportMetric(100*simCPU/elapsed, "simulator-cpu-%")
			b.ReportMetric(float64(events)/float64(batches), "events/batch")
			if reads := readCalls() - startReads; reads > 0 {
				b.ReportMetric(float64(events)/float64(reads), "events/read")
			}
		})
	}
}

// readCalls is the number of read system calls this process has made, from
// /proc (Linux only; 0 elsewhere).
func readCalls() int64 {
	data, _ := os.ReadFile("/proc/self/io")
	for _, l := range strings.Split(string(data), "\n") {
		if v, ok := strings.CutPrefix(l, "syscr: "); ok {
			n, _ := strconv.ParseInt(v, 10, 64)
			return n
		}
	}
	return 0
}
