package state

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"syscall"
	"testing"
	"time"

	"github.com/proftop/proftop/decode"
	"github.com/proftop/proftop/simulator"
)

// heapInUse is the live heap after a collection.
func heapInUse() int64 {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return int64(ms.HeapAlloc)
}

// reportMinute reports what a minute of history costs: the history's own
// estimate, the live heap its pictures hold (measured by dropping them),
// and the CPU time a picture takes.
func reportMinute(b *testing.B, h *History, cpu time.Duration, pictures int) {
	n, est, _, capacity := h.Usage()
	keep := h.Pictures()
	h.pics, h.deadlocks = nil, nil
	with := heapInUse()
	runtime.KeepAlive(keep)
	keep = nil
	without := heapInUse()
	b.ReportMetric(float64(est)/(1<<20)*60/float64(n), "MiB/min-estimated")
	b.ReportMetric(float64(with-without)/(1<<20)*60/float64(n), "MiB/min-heap")
	b.ReportMetric(float64(cpu.Microseconds())/float64(pictures)/1000, "ms-cpu/picture")
	b.ReportMetric(capacity.Minutes(), "minutes-in-128MiB")
}

// cpuTime is this process's CPU time so far (every goroutine, the
// collector's included): on a loaded machine, wall time says little.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkHistoryMinuteSimulated: a minute of the simulated service (55
// threads, a thread poll a second, 20,000 events a second), a picture a
// second.
func BenchmarkHistoryMinuteSimulated(b *testing.B) {
	for b.Loop() {
		w := simulator.NewWorld(simulator.Config{Seed: 1, Start: t0})
		a := New(Options{})
		h := NewHistory(HistoryOptions{})
		r := NewRecorder(a, h)
		var bt decode.Batch
		var took time.Duration
		for s := 1; s <= 60; s++ {
			end := t0.Add(time.Duration(s) * time.Second)
			for w.Now().Before(end) {
				bt.Add(w.Next())
				if bt.Len() == 4096 {
					a.Apply(bt.Events(), 1, decode.Clock{}, w.Now())
					bt.Reset()
				}
			}
			a.Apply(bt.Events(), 1, decode.Clock{}, end)
			bt.Reset()
			start := cpuTime()
			r.Take(end)
			took += cpuTime() - start
		}
		reportMinute(b, h, took, 60)
	}
}

// BenchmarkHistoryMinuteLarge: a minute of a JVM of 10,000 threads and
// 100,000 methods: every second a thread poll of every thread (20-frame
// stacks, a tenth of them changed) and 20,000 stack samples, a picture a
// second.
func BenchmarkHistoryMinuteLarge(b *testing.B) {
	const threads, methods, depth = 10_000, 100_000, 20
	rng := rand.New(rand.NewPCG(1, 2))
	names := make([]string, methods)
	for i := range names {
		names[i] = fmt.Sprintf("com.example.module%d.Service%d.operation%d", i%37, i%2000, i)
	}
	randomStack := func() decode.Stack {
		st := decode.Stack{Methods: make([]string, depth), Lines: make([]int64, depth)}
		base := rng.IntN(methods)
		for i := range st.Methods {
			// Stacks share their outer frames, as a real application's do.
			st.Methods[i] = names[(base/(i+1)+i*7919)%methods]
			st.Lines[i] = int64(i + 1)
		}
		return st
	}
	for b.Loop() {
		a := New(Options{})
		h := NewHistory(HistoryOptions{})
		r := NewRecorder(a, h)
		var evs []decode.Event
		for t := range threads {
			evs = append(evs, &decode.ThreadStart{ThreadID: int64(t + 1), ThreadName: fmt.Sprintf("worker-%d", t), GroupName: "main"})
		}
		stacks := make([]decode.Stack, threads)
		for t := range stacks {
			stacks[t] = randomStack()
		}
		a.Apply(evs, 1, decode.Clock{}, t0)
		var took time.Duration
		for s := 1; s <= 60; s++ {
			end := t0.Add(time.Duration(s) * time.Second)
			at := decode.Clock{}.FromTime(end)
			evs = evs[:0]
			for t := range threads {
				st := decode.Stack{}
				flags := decode.ThreadStackUnchanged
				if s == 1 || rng.IntN(10) == 0 {
					stacks[t] = randomStack()
					st, flags = stacks[t], 0
				}
				state := decode.StateRunning
				if t%20 == 0 {
					state = decode.StateBlocked
				}
				evs = append(evs, &decode.ThreadState{ThreadIDRef: int64(t + 1), Time: at, State: state, Flags: flags, CPUTime: decode.Ticks(s) * 1e7,
					LockObjIDRef: int64(t%20) * 0x100, LockOwner: int64(t/20*20 + 2), Stack: st})
			}
			evs = append(evs, &decode.ThreadPoll{Time: at, Threads: threads, Flags: decode.PollComplete})
			for range 20_000 {
				t := rng.IntN(threads)
				evs = append(evs, &decode.Sample{ThreadIDRef: int64(t + 1), Time: at, Count: 1, Weight: 1e6, Stack: stacks[t]})
			}
			a.Apply(evs, 1, decode.Clock{}, end)
			start := cpuTime()
			r.Take(end)
			took += cpuTime() - start
		}
		reportMinute(b, h, took, 60)
	}
}
