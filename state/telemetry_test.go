package state

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/proftop/proftop/decode"
)

var tel0 = time.Date(2026, 11, 21, 9, 0, 0, 0, time.UTC)

// sec is the trace time of second n.
func sec(n int) decode.Ticks {
	return decode.Ticks(tel0.Add(time.Duration(n) * time.Second).UnixNano())
}

func seriesNamed(s *Snapshot, name string) *Series {
	for i := range s.Telemetry {
		if s.Telemetry[i].Name == name {
			return &s.Telemetry[i]
		}
	}
	return nil
}

func TestDeclaredSeriesAndTheirValues(t *testing.T) {
	a := New(Options{})
	evs := []decode.Event{
		&decode.TelemetrySeries{Time: sec(0), Series: 1, Name: "CPU load (process)", Unit: decode.UnitPercent, Divisor: 100},
		&decode.TelemetrySeries{Time: sec(0), Series: 2, Name: "CPU load (machine)", Unit: decode.UnitPercent, Divisor: 100},
		&decode.TelemetrySeries{Time: sec(0), Series: 4, Name: "Alone (in its group)", Unit: decode.UnitPlain, Divisor: 1},
		&decode.TelemetrySeries{Time: sec(0), Series: 3, Name: "Classes loaded", Unit: decode.UnitPlain, Divisor: 1},
	}
	for i := range 5 {
		evs = append(evs, &decode.TelemetryValue{Time: sec(i), Series: 1, Value: int64(1000 + 100*i)},
			&decode.TelemetryValue{Time: sec(i), Series: 2, Value: 5000}, &decode.TelemetryValue{Time: sec(i), Series: 3, Value: int64(4000 - i)})
	}
	evs = append(evs, &decode.TelemetryValue{Time: sec(5), Series: 99, Value: 1})
	a.Apply(evs, 1, decode.Clock{}, tel0)
	s := a.Snapshot(tel0, Query{CallersOf: -1})
	cpu := seriesNamed(s, "CPU load (process)")
	if cpu == nil || cpu.Unit != decode.UnitPercent || cpu.Divisor != 100 || cpu.Group != "CPU load" || len(cpu.Points) != 5 {
		t.Fatalf("%+v", cpu)
	}
	if last, _ := cpu.Last(); last.Value != 1400 || !last.At.Equal(tel0.Add(4*time.Second)) || cpu.Scaled(last.Value) != 14 {
		t.Fatalf("last %+v", last)
	}
	if cpu.Min != 1000 || cpu.Max != 1400 {
		t.Fatalf("min %d max %d", cpu.Min, cpu.Max)
	}
	if c := seriesNamed(s, "Classes loaded"); c.Group != "" || GroupMember(c) != "Classes loaded" {
		t.Fatalf("%+v", c)
	}
	if GroupMember(cpu) != "process" {
		t.Fatal(GroupMember(cpu))
	}
	if a := seriesNamed(s, "Alone (in its group)"); a.Group != "" {
		t.Fatalf("a group of one: %+v", a)
	}
	if s.TelemetryUndeclared != 1 {
		t.Fatalf("undeclared %d", s.TelemetryUndeclared)
	}
	// A new stream declares the same series under other ids: they go on.
	a.Apply([]decode.Event{
		&decode.TelemetrySeries{Time: sec(10), Series: 7, Name: "Classes loaded", Unit: decode.UnitPlain, Divisor: 1},
		&decode.TelemetryValue{Time: sec(10), Series: 7, Value: 4100},
		&decode.TelemetryValue{Time: sec(10), Series: 1, Value: 1}, // the old id means nothing now
	}, 2, decode.Clock{}, tel0)
	s = a.Snapshot(tel0, Query{CallersOf: -1})
	if c := seriesNamed(s, "Classes loaded"); len(c.Points) != 6 || c.Max != 4100 || len(s.Telemetry) != 4 {
		t.Fatalf("%+v", c)
	}
	if s.TelemetryUndeclared != 2 {
		t.Fatalf("undeclared %d", s.TelemetryUndeclared)
	}
}

// The memory pools a source sends become series of their own: used and
// committed bytes, heap and non-heap apart, grouped.
func TestPoolSeriesAreDerived(t *testing.T) {
	a := New(Options{})
	for i := range 3 {
		a.Apply([]decode.Event{
			&decode.MemoryPool{Time: sec(i), Name: "G1 Eden Space", Heap: 1, Used: int64(i+1) << 20, Committed: 64 << 20, Max: -1},
			&decode.MemoryPool{Time: sec(i), Name: "G1 Old Gen", Heap: 1, Used: 300 << 20, Committed: 512 << 20, Max: 1 << 30},
			&decode.MemoryPool{Time: sec(i), Name: "Metaspace", Used: 40 << 20, Committed: -1, Max: -1},
			&decode.MemoryPool{Time: sec(i), Name: "memsize of all objects", Heap: decode.PoolOther, Used: 3 << 20, Committed: -1, Max: -1},
		}, 1, decode.Clock{}, tel0)
	}
	s := a.Snapshot(tel0, Query{CallersOf: -1})
	var names []string
	for _, sr := range s.Telemetry {
		names = append(names, sr.Name+"/"+sr.Group)
		if !sr.Derived || sr.Unit != decode.UnitBytes || len(sr.Points) != 3 {
			t.Fatalf("%+v", sr)
		}
	}
	want := []string{"Heap used (G1 Eden Space)/Heap used", "Heap committed (G1 Eden Space)/Heap committed",
		"Heap used (G1 Old Gen)/Heap used", "Heap committed (G1 Old Gen)/Heap committed", "Non-heap used (Metaspace)/",
		"Memory used (memsize of all objects)/"}
	if !slices.Equal(names, want) {
		t.Fatalf("%q", names)
	}
	if e := seriesNamed(s, "Heap used (G1 Eden Space)"); e.Max != 3<<20 {
		t.Fatal(e.Max)
	}
}

// The window is kept point by point; before it, buckets merge two by two
// when they run out of room, so that a long run stays within the bound
// and still reaches back to its start.
func TestOlderPointsAreDownsampledWithinTheBound(t *testing.T) {
	a := New(Options{TelemetryWindow: time.Minute, TelemetryMemory: 64 << 10, MaxSeries: 16})
	a.Apply([]decode.Event{&decode.TelemetrySeries{Series: 1, Name: "x", Unit: decode.UnitPlain, Divisor: 1}}, 1, decode.Clock{}, tel0)
	const hours = 30
	evs := make([]decode.Event, 0, 4096)
	for i := range hours * 3600 {
		evs = append(evs, &decode.TelemetryValue{Time: sec(i), Series: 1, Value: int64(i % 1000)})
		if len(evs) == cap(evs) {
			a.Apply(evs, 1, decode.Clock{}, tel0)
			evs = evs[:0]
		}
	}
	a.Apply(evs, 1, decode.Clock{}, tel0)
	tt := &a.telemetry
	s := tt.order[0]
	if got := int64(len(s.recent))*pointBytes + int64(cap(s.older))*bucketBytes; got > 64<<10/16 {
		t.Fatalf("a series holds %d bytes, more than its share of the bound (%d)", got, 64<<10/16)
	}
	snap := a.Snapshot(tel0, Query{CallersOf: -1, Telemetry: "x"})
	x := seriesNamed(snap, "x")
	if n := len(x.Points); n < 60 || n > 61 {
		t.Fatalf("%d points in a window of a minute", n)
	}
	if !x.Older[0].From.Equal(tel0) {
		t.Fatalf("the oldest bucket starts at %v, not at the run's start", x.Older[0].From)
	}
	var count int64
	for i, b := range x.Older {
		count += b.Count
		if b.Min < 0 || b.Max > 999 || b.Mean < float64(b.Min) || b.Mean > float64(b.Max) {
			t.Fatalf("bucket %d: %+v", i, b)
		}
		if i > 0 && b.From.Before(x.Older[i-1].To) {
			t.Fatalf("bucket %d overlaps the one before", i)
		}
	}
	if count+int64(len(x.Points)) != hours*3600 {
		t.Fatalf("%d points accounted for, want %d", count+int64(len(x.Points)), hours*3600)
	}
	if x.Min != 0 || x.Max != 999 {
		t.Fatal(x.Min, x.Max)
	}
	// Without a focus, the older points stay out of the snapshot.
	if o := seriesNamed(a.Snapshot(tel0, Query{CallersOf: -1}), "x").Older; o != nil {
		t.Fatalf("%d older buckets without being asked", len(o))
	}
}

// Series beyond the bound are not kept, and said so.
func TestSeriesBeyondTheBound(t *testing.T) {
	a := New(Options{MaxSeries: 4})
	var evs []decode.Event
	for i := range 10 {
		evs = append(evs, &decode.TelemetrySeries{Series: int64(i), Name: fmt.Sprintf("s%d", i), Unit: decode.UnitPlain, Divisor: 1},
			&decode.TelemetryValue{Time: sec(1), Series: int64(i), Value: 5})
	}
	a.Apply(evs, 1, decode.Clock{}, tel0)
	s := a.Snapshot(tel0, Query{CallersOf: -1})
	if len(s.Telemetry) != 4 || s.TelemetryDropped != 6 || s.TelemetryUndeclared != 0 {
		t.Fatalf("%d series, %d dropped, %d undeclared", len(s.Telemetry), s.TelemetryDropped, s.TelemetryUndeclared)
	}
}

// Snapshots share the series until something changes, and a snapshot
// already taken never changes.
func TestTelemetrySnapshotsAreImmutable(t *testing.T) {
	a := New(Options{})
	a.Apply([]decode.Event{&decode.TelemetrySeries{Series: 1, Name: "x", Unit: decode.UnitPlain, Divisor: 1},
		&decode.TelemetryValue{Time: sec(1), Series: 1, Value: 1}}, 1, decode.Clock{}, tel0)
	s1 := a.Snapshot(tel0, Query{CallersOf: -1})
	s2 := a.Snapshot(tel0, Query{CallersOf: -1})
	if &s1.Telemetry[0] != &s2.Telemetry[0] {
		t.Fatal("nothing changed, yet the series were copied again")
	}
	a.Apply([]decode.Event{&decode.TelemetryValue{Time: sec(2), Series: 1, Value: 2}}, 1, decode.Clock{}, tel0)
	s3 := a.Snapshot(tel0, Query{CallersOf: -1})
	if len(s1.Telemetry[0].Points) != 1 || len(s3.Telemetry[0].Points) != 2 {
		t.Fatal("an earlier snapshot changed, or the new one missed the point")
	}
	// Points out of time order are dropped rather than drawn backwards.
	a.Apply([]decode.Event{&decode.TelemetryValue{Time: sec(1), Series: 1, Value: 9}}, 1, decode.Clock{}, tel0)
	if p := a.Snapshot(tel0, Query{CallersOf: -1}).Telemetry[0].Points; len(p) != 2 || p[1].Value != 2 {
		t.Fatalf("%+v", p)
	}
}

func TestTelemetryProblems(t *testing.T) {
	a := New(Options{})
	a.Apply([]decode.Event{
		&decode.TelemetryProblem{Spec: "jmx:bad", Problem: "no attribute"},                                   // refused before the stream
		&decode.TelemetryProblem{Time: sec(3), Spec: "jmx:a:type=X:Y", Problem: "no MBean matches a:type=X"}, // found while monitoring
	}, 1, decode.Clock{}, tel0)
	s := a.Snapshot(tel0, Query{CallersOf: -1})
	if len(s.TelemetryProblems) != 2 || s.TelemetryProblems[0].Spec != "jmx:a:type=X:Y" || !s.TelemetryProblems[1].Since.IsZero() {
		t.Fatalf("%+v", s.TelemetryProblems)
	}
	a.Apply([]decode.Event{&decode.TelemetryProblem{Time: sec(9), Spec: "jmx:a:type=X:Y"}}, 1, decode.Clock{}, tel0)
	if p := a.Snapshot(tel0, Query{CallersOf: -1}).TelemetryProblems; len(p) != 1 || p[0].Spec != "jmx:bad" {
		t.Fatalf("the problem was not cleared: %+v", p)
	}
	var evs []decode.Event
	for i := range 500 {
		evs = append(evs, &decode.TelemetryProblem{Spec: fmt.Sprint("jmx:", i), Problem: strings.Repeat("x", 10)})
	}
	a.Apply(evs, 1, decode.Clock{}, tel0)
	if n := len(a.Snapshot(tel0, Query{CallersOf: -1}).TelemetryProblems); n != maxProblems {
		t.Fatalf("%d problems kept", n)
	}
}

func TestProbesTable(t *testing.T) {
	a := New(Options{})
	st := func(frames ...string) decode.Stack {
		s := decode.Stack{Methods: frames}
		for range frames {
			s.Lines = append(s.Lines, 7)
		}
		return s
	}
	a.Apply([]decode.Event{
		&decode.Probe{Time: sec(1), Name: "jfr:bank.Transfer#state", Group: "RUNNING", Count: 3, Total: 30e6, Max: 15e6, Stack: st("a.run", "b.main")},
		&decode.Probe{Time: sec(1), Name: "jfr:bank.Transfer#state", Group: "RUNNING", Count: 1, Total: 50e6, Max: 50e6, Stack: st("c.run")},
		&decode.Probe{Time: sec(2), Name: "jfr:bank.Transfer#state", Group: "RUNNING", Count: 1, Total: 5e6, Max: 5e6, Stack: st("a.run", "b.main")},
		&decode.Probe{Time: sec(2), Name: "jfr:bank.Transfer#state", Group: "WAITING", Count: 2, Total: 2e6, Max: 1e6},
		&decode.Probe{Time: sec(2), Name: "jfr:bank.Transfer#state", Group: "WAITING", Count: 0, Total: 9e9, Max: 9e9},
	}, 1, decode.Clock{}, tel0)
	p := a.Snapshot(tel0, Query{CallersOf: -1}).Probes
	if len(p) != 2 {
		t.Fatalf("%+v", p)
	}
	r := p[0]
	if r.Group != "RUNNING" || r.Count != 5 || r.Total != 85*time.Millisecond || r.Avg != 17*time.Millisecond || r.Max != 50*time.Millisecond {
		t.Fatalf("%+v", r)
	}
	if len(r.HotSpots) != 2 || r.HotSpots[0].Stack[0].Method != "c.run" || r.HotSpots[1].Count != 4 || r.HotSpots[1].Total != 35*time.Millisecond {
		t.Fatalf("%+v", r.HotSpots)
	}
	if w := p[1]; w.Count != 2 || w.Max != time.Millisecond || len(w.HotSpots) != 1 || w.HotSpots[0].Stack != nil {
		t.Fatalf("%+v", w)
	}
	// Bounded: groups beyond the bound share a row, stacks beyond theirs an empty stack.
	var evs []decode.Event
	for i := range maxProbeRows + 50 {
		evs = append(evs, &decode.Probe{Time: sec(3), Name: "jfr:q", Group: fmt.Sprint(i), Count: 1, Total: 1, Max: 1, Stack: st(fmt.Sprint("m", i))})
	}
	for i := range maxHotSpots + 10 {
		evs = append(evs, &decode.Probe{Time: sec(3), Name: "jfr:q", Group: "0", Count: 1, Total: 1, Max: 1, Stack: st(fmt.Sprint("n", i))})
	}
	a.Apply(evs, 1, decode.Clock{}, tel0)
	p = a.Snapshot(tel0, Query{CallersOf: -1}).Probes
	if len(p) != maxProbeRows+1 || p[len(p)-1].Group != otherGroup || p[len(p)-1].Count != 52 {
		t.Fatalf("%d rows, last %+v", len(p), p[len(p)-1])
	}
	for _, r := range p {
		if r.Probe == "jfr:q" && r.Group == "0" && (len(r.HotSpots) != hotSpotsShown || r.HotSpots[0].Stack != nil || r.HotSpots[0].Count != 11) {
			t.Fatalf("stacks beyond the bound: %+v", r.HotSpots[0])
		}
	}
	a.Reset()
	if p := a.Snapshot(tel0, Query{CallersOf: -1}).Probes; len(p) != 0 {
		t.Fatalf("reset left %d rows", len(p))
	}
}

func TestNaturalCompare(t *testing.T) {
	names := []string{"X (10)", "X (2)", "X (1)", "Heap", "X (02)", "A10b", "A9b"}
	slices.SortStableFunc(names, NaturalCompare)
	if want := []string{"A9b", "A10b", "Heap", "X (1)", "X (2)", "X (02)", "X (10)"}; !slices.Equal(names, want) {
		t.Fatalf("%q", names)
	}
}
