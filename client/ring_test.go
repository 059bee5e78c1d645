package client

import (
	"bytes"
	"io"
	"syscall"
	"testing"
	"time"

	"github.com/proftop/proftop/decode"
	"github.com/proftop/proftop/simulator"
)

// The ring keeps the latest events within its bound, with every
// definition, as a trace that decodes.
func TestStreamRingKeepsTheLatestEventsAsATrace(t *testing.T) {
	day := time.Date(2026, 11, 21, 9, 0, 0, 0, time.UTC)
	w := simulator.NewWorld(simulator.Config{Seed: 1, Start: day})
	ring := NewStreamRing(256<<10, 1<<20)
	var last decode.Event
	var lastAt time.Time
	for range 100 {
		b := &Batch{Stream: 1}
		for range 1000 {
			b.Add(w.Next())
		}
		ring.Add(b)
		last = decode.Clone(b.Events()[b.Len()-1])
		for _, ev := range b.Events() {
			if tk, ok := decode.Time(ev); ok {
				lastAt = b.Clock.Time(tk)
			}
		}
	}
	c := ring.Contents()
	if c.Compressed > 256<<10 || c.Bytes < 2*c.Compressed {
		t.Fatalf("%d bytes of trace kept in %d", c.Bytes, c.Compressed)
	}
	// The span is of the events kept, by the trace's clock (the simulated
	// day, not the moment the test ran): each chunk from its first event.
	if !c.From.After(day) || c.From.After(day.Add(time.Minute)) || !c.To.Equal(lastAt) || !c.To.After(c.From) {
		t.Fatalf("the ring says it holds %v to %v, of events from %v to %v", c.From, c.To, day, lastAt)
	}
	var out bytes.Buffer
	if n, err := c.WriteTo(&out); err != nil || n != c.Bytes {
		t.Fatalf("wrote %d of %d: %v", n, c.Bytes, err)
	}
	dec, err := decode.Open(&out, decode.Options{})
	if err != nil {
		t.Fatal(err)
	}
	kinds := map[decode.Kind]int{}
	var final decode.Event
	for {
		ev, err := dec.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		kinds[ev.Kind()]++
		final = decode.Clone(ev)
	}
	if kinds[decode.KindMethodDef] == 0 || kinds[decode.KindThreadStart] == 0 || kinds[decode.KindMethodEntry] == 0 {
		t.Fatalf("kinds %v", kinds)
	}
	if kinds[decode.KindMethodEntry] > 60_000 {
		t.Fatalf("%d method entries: the oldest were not dropped", kinds[decode.KindMethodEntry])
	}
	if final.Kind() != last.Kind() {
		t.Fatalf("the last event is a %v, want %v", final.Kind(), last.Kind())
	}
	// A new stream starts the ring again.
	b := &Batch{Stream: 2}
	b.Add(&decode.ThreadStart{ThreadID: 1, ThreadName: "main"})
	ring.Add(b)
	if c := ring.Contents(); len(c.chunks) != 0 || c.Bytes > 100 || c.Compressed != 0 {
		t.Fatalf("after a new stream: %d chunks, %d bytes", len(c.chunks), c.Bytes)
	}
}

// A batch with no event dated (definitions, or a trace that counts from
// its own start) is dated by its arrival.
func TestStreamRingDatesUndatedEventsByTheirArrival(t *testing.T) {
	ring := NewStreamRing(1<<20, 1<<20)
	before := time.Now()
	b := &Batch{Stream: 1}
	b.Add(&decode.ThreadStart{ThreadID: 1, ThreadName: "main"})
	b.Add(&decode.MethodEntry{ThreadIDRef: 1, MethodIDRef: 1, Time: 5_000})
	b.Add(&decode.MethodExit{ThreadIDRef: 1, Time: 9_000})
	ring.Add(b)
	if c := ring.Contents(); c.From.Before(before) || c.To.Before(c.From) || c.To.After(time.Now()) {
		t.Fatalf("the ring says it holds %v to %v, filled from %v", c.From, c.To, before)
	}
}

// The ring is dated by the events it keeps, not by the definitions that
// come with them: a process is dated by its start, hours before, and a
// bundle said it held 3h0m1s of raw stream for a second of it. A batch
// of definitions alone moves nothing.
func TestStreamRingIsDatedByItsEventsNotItsDefinitions(t *testing.T) {
	ring := NewStreamRing(1<<20, 1<<20)
	at := time.Date(2026, 11, 27, 9, 0, 0, 0, time.UTC)
	ticks := func(d time.Duration) decode.Ticks { return decode.Ticks(at.Add(d).UnixNano()) }
	b := &Batch{Stream: 1}
	b.Add(&decode.ProcessCreate{PID: 7, Time: ticks(-3 * time.Hour)})
	b.Add(&decode.ThreadStart{ThreadID: 1, ThreadName: "main", Time: ticks(-3 * time.Hour)})
	b.Add(&decode.MethodExit{ThreadIDRef: 1, Time: ticks(time.Second)})
	b.Add(&decode.MethodEntry{ThreadIDRef: 1, MethodIDRef: 1, Time: ticks(0)})
	ring.Add(b)
	defs := &Batch{Stream: 1}
	defs.Add(&decode.ThreadStart{ThreadID: 2, ThreadName: "late", Time: ticks(-time.Hour)})
	ring.Add(defs)
	if c := ring.Contents(); !c.From.Equal(at) || !c.To.Equal(at.Add(time.Second)) {
		t.Fatalf("the ring says it holds %v to %v, want %v to %v", c.From, c.To, at, at.Add(time.Second))
	}
}

// BenchmarkStreamRing encodes and compresses the simulated service's
// events into the ring, and reports how much trace a MiB of ring holds.
func BenchmarkStreamRing(b *testing.B) {
	w := simulator.NewWorld(simulator.Config{Seed: 1, Start: time.Date(2026, 11, 21, 9, 0, 0, 0, time.UTC)})
	var batches []*Batch
	for range 256 {
		bt := &Batch{Stream: 1}
		for range 4096 {
			bt.Add(w.Next())
		}
		batches = append(batches, bt)
	}
	ring := NewStreamRing(1<<40, 1<<30)
	events := 0
	b.ReportAllocs()
	cpu := func() time.Duration {
		var ru syscall.Rusage
		syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
		return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	}
	start := cpu()
	for b.Loop() {
		for _, bt := range batches {
			ring.Add(bt)
			events += bt.Len()
		}
	}
	used := cpu() - start
	c := ring.Contents()
	b.ReportMetric(float64(used.Nanoseconds())/float64(events), "ns-cpu/event")
	b.ReportMetric(float64(c.Bytes)/float64(c.Compressed), "ratio")
	b.ReportMetric(float64(c.Compressed)/float64(events), "ring-bytes/event")
}
