package state

import (
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/proftop/proftop/decode"
)

// wideTrace hands over a wide picture's events in batches, made as they
// go as a replayed file's are: 10,000 threads, 100,000 methods of 2,000
// classes, 1,000 monitors (half contended, half waited on), then ten
// seconds in which every method is called once a second.
func wideTrace(batch func([]decode.Event)) {
	const threads, methods, classes, monitors = 10_000, 100_000, 2_000, 1_000
	var evs []decode.Event
	flush := func() {
		batch(evs)
		evs = nil
	}
	for c := range classes {
		evs = append(evs, &decode.ClassDef{ClassID: int64(c + 1), Name: fmt.Sprintf("com.example.module%d.Service%d", c%37, c)})
	}
	for m := range methods {
		evs = append(evs, &decode.MethodDef{Name: fmt.Sprintf("operation%d", m), ClassIDRef: int64(m%classes + 1), MethodID: int64(m + 1), StartLineNumber: int64(m % 900)})
	}
	for t := range threads {
		evs = append(evs, &decode.ThreadStart{ThreadID: int64(t + 1), ThreadName: fmt.Sprintf("worker-%d", t), GroupName: "main", Time: decode.Ticks(t)})
	}
	flush()
	st := decode.Stack{Methods: make([]string, 12), Lines: make([]int64, 12)}
	for i := range st.Methods {
		st.Methods[i] = fmt.Sprintf("com.example.module%d.Service%d.operation%d", i, i, i)
	}
	now := decode.Ticks(t0.UnixNano())
	for mon := range monitors {
		owner := int64(mon%threads + 1)
		evs = append(evs, &decode.ObjAlloc{ObjID: int64(0x1000 + mon), ClassIDRef: int64(mon%classes + 1)})
		if mon%2 == 0 {
			waiter := int64((mon+threads/2)%threads + 1)
			evs = append(evs, &decode.MonContendedEnter{ThreadIDRef: waiter, ObjIDRef: int64(0x1000 + mon), ThreadOwner: owner, Time: now, Stack: st})
		} else {
			evs = append(evs, &decode.MonWait{MonitorWait: decode.MonitorWait{ThreadIDRef: owner, ObjIDRef: int64(0x1000 + mon), Timeout: 100, Time: now, Stack: st}})
		}
	}
	flush()
	ticket := int32(1)
	for range 10 {
		for m := range methods {
			th := int64(m%threads + 1)
			ticket++
			evs = append(evs, &decode.MethodEntry{ThreadIDRef: th, MethodIDRef: int64(m + 1), Ticket: ticket, Time: now},
				&decode.MethodExit{ThreadIDRef: th, Ticket: ticket, Time: now + decode.Ticks(m%5000), ThreadCPUTime: now})
			now += decode.Ticks(time.Second) / methods
			if len(evs) >= 8192 {
				flush()
			}
		}
	}
	flush()
}

// writeWideFile writes the wide trace as a binary file in a temporary
// directory and returns its path.
func writeWideFile(b *testing.B) string {
	path := filepath.Join(b.TempDir(), "wide.trcbin")
	f, err := os.Create(path)
	if err != nil {
		b.Fatal(err)
	}
	enc := decode.NewEncoder(f, decode.EncoderOptions{})
	wideTrace(func(evs []decode.Event) {
		for _, ev := range evs {
			if err := enc.Encode(ev); err != nil {
				b.Fatal(err)
			}
		}
	})
	if err := enc.Flush(); err != nil {
		b.Fatal(err)
	}
	if err := f.Close(); err != nil {
		b.Fatal(err)
	}
	return path
}

// replayWide reads the wide file and, unless decodeOnly, aggregates it
// in batches of 4,096 as a replay does, the interface taking a snapshot of
// the default view every trace second and releasing the one before: the
// page of methods a 200×60 screen shows, by self time, as the interface
// asks for it (tui's methodQuestion).
func replayWide(b *testing.B, path string, decodeOnly bool) (*Aggregator, time.Time) {
	f, err := os.Open(path)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	d := decode.NewBinaryDecoder(f, decode.Options{})
	var a *Aggregator
	if !decodeOnly {
		a = New(Options{})
	}
	var batch decode.Batch
	var prev *Snapshot
	at, nextSecond := time.Time{}, time.Time{}
	flush := func() {
		if !decodeOnly && batch.Len() > 0 {
			a.Apply(batch.Events(), 1, d.Clock(), at)
			if !at.Before(nextSecond) {
				s := a.Snapshot(at, Query{Recent: true, CallersOf: -1, Methods: &widePage})
				a.Release(prev)
				prev, nextSecond = s, at.Add(time.Second)
			}
		}
		batch.Reset()
	}
	for {
		ev, err := d.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			b.Fatal(err)
		}
		if t, ok := ev.(*decode.MethodExit); ok {
			at = time.Unix(0, int64(t.Time))
		}
		if decodeOnly {
			continue
		}
		batch.Add(ev)
		if batch.Len() == 4096 {
			flush()
		}
	}
	flush()
	return a, at
}

// widePage is the methods pane's question on a 200×60 screen.
var widePage = MethodPage{Key: BySelf, Descending: true, Rank: -1, Rows: 25}

// BenchmarkWideDecode is the baseline of BenchmarkWideReplay: decoding the
// wide file alone.
func BenchmarkWideDecode(b *testing.B) {
	path := writeWideFile(b)
	cpu := processCPU()
	for b.Loop() {
		replayWide(b, path, true)
	}
	b.ReportMetric(float64((processCPU()-cpu).Milliseconds())/float64(b.N), "cpu-ms/op")
	if fi, err := os.Stat(path); err == nil {
		b.SetBytes(fi.Size())
	}
}

// BenchmarkWideReplay replays the wide file (10,000 threads, 100,000
// methods all in the window, 1,000 monitors; 2.2 M events) to its picture,
// with the soft memory limit (--memory-limit) at 100 MiB and with none,
// and reports the CPU time and, at the end, the resident memory and live
// heap. Targets: at
// most twice BenchmarkWideDecode's CPU time; at most 100 MiB resident.
func BenchmarkWideReplay(b *testing.B) {
	path := writeWideFile(b)
	for _, limit := range []int64{100 << 20, math.MaxInt64} {
		name := "limit=none"
		if limit != math.MaxInt64 {
			name = fmt.Sprintf("limit=%dMiB", limit>>20)
		}
		b.Run(name, func(b *testing.B) {
			defer debug.SetMemoryLimit(debug.SetMemoryLimit(limit))
			replayWideFile(b, path)
		})
	}
}

func replayWideFile(b *testing.B, path string) {
	var cpu time.Duration
	for b.Loop() {
		start := processCPU()
		a, at := replayWide(b, path, false)
		s := a.Snapshot(at, Query{Recent: true, CallersOf: -1})
		cpu += processCPU() - start
		b.StopTimer()
		resident := rss(b)
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		b.ReportMetric(float64(resident)/(1<<20), "MiB-RSS")
		b.ReportMetric(float64(peakRSS(b))/(1<<20), "MiB-peak-RSS")
		b.ReportMetric(float64(ms.HeapAlloc)/(1<<20), "MiB-live-heap")
		b.ReportMetric(float64(len(s.Threads)), "threads")
		b.ReportMetric(float64(len(s.Methods)), "methods")
		b.ReportMetric(float64(len(s.Monitors)), "monitors")
		runtime.KeepAlive(a)
		b.StartTimer()
	}
	b.ReportMetric(float64(cpu.Milliseconds())/float64(b.N), "cpu-ms/op")
	if fi, err := os.Stat(path); err == nil {
		b.SetBytes(fi.Size())
	}
}

// peakRSS is the largest resident set size this process has had, from
// /proc (Linux): run one benchmark per process for it to mean anything.
func peakRSS(b *testing.B) int64 {
	data, err := os.ReadFile("/proc/self/status")
	if err != nil {
		b.Skip("no /proc/self/status")
	}
	for _, line := range strings.Split(string(data), "\n") {
		if strings.HasPrefix(line, "VmHWM:") {
			kb, _ := strconv.ParseInt(strings.Fields(line)[1], 10, 64)
			return kb << 10
		}
	}
	return 0
}
