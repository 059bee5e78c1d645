package state

import (
	"encoding/json"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/proftop/proftop/decode"
)

// Objects by class: allocations and frees attributed by remembering each
// live object's class, frees of objects never seen counted apart, objects
// without a class in a row of their own, rates over the window, and the
// live count's history.
func TestObjectsByClass(t *testing.T) {
	a := New(Options{})
	evs := []decode.Event{
		&decode.ClassDef{ClassID: 1, Name: "Foo"},
		&decode.ClassDef{ClassID: 2, Name: "String"},
	}
	for i := int64(1); i <= 10; i++ {
		evs = append(evs, &decode.ObjAlloc{ObjID: 100 + i, ClassIDRef: 1, Size: 24, Time: ms(int(i) * 100)})
	}
	for i := int64(1); i <= 4; i++ {
		evs = append(evs, &decode.ObjAlloc{ObjID: 200 + i, ClassIDRef: 2, Time: ms(1500)})
	}
	evs = append(evs,
		&decode.ObjAlloc{ObjID: 300, Time: ms(1600)}, // no class
		&decode.ObjFree{ObjIDRef: 101, Time: ms(2000)},
		&decode.ObjFree{ObjIDRef: 102, Time: ms(2000)},
		&decode.ObjFree{ObjIDRef: 999, Time: ms(2000)}, // never seen
	)
	feed(a, evs...)
	s := a.Snapshot(t0, Query{CallersOf: -1})
	if !s.HasObjects {
		t.Fatal("no objects")
	}
	byName := map[string]ObjectClass{}
	for _, c := range s.Objects.Classes {
		byName[c.Class] = c
	}
	foo := byName["Foo"]
	// Over the 1.9 s since the first object, not the whole window.
	if foo.Live != 8 || foo.Allocs != 10 || foo.Frees != 2 || foo.Bytes != 240 || !near(foo.AllocRate, 10/1.9) || !near(foo.FreeRate, 2/1.9) ||
		s.Objects.Window != 1900*time.Millisecond {
		t.Errorf("Foo %+v over %v", foo, s.Objects.Window)
	}
	if len(foo.History) != objectsHistory || foo.History[len(foo.History)-1] != 8 {
		t.Errorf("Foo's history ends %v", foo.History[len(foo.History)-3:])
	}
	if byName["String"].Live != 4 || byName[noClass].Live != 1 {
		t.Errorf("String %+v, no class %+v", byName["String"], byName[noClass])
	}
	if s.Objects.Untracked != 1 || s.Objects.Tracked != 13 {
		t.Errorf("tracked %d, untracked frees %d", s.Objects.Tracked, s.Objects.Untracked)
	}
	// The window moves on: the rates fall to 0, the live counts stay.
	feed(a, &decode.ObjAlloc{ObjID: 400, ClassIDRef: 2, Time: ms(30_000)})
	s = a.Snapshot(t0, Query{CallersOf: -1})
	for _, c := range s.Objects.Classes {
		if c.Class == "Foo" && (c.AllocRate != 0 || c.Live != 8) {
			t.Errorf("Foo 28 s later %+v", c)
		}
	}
}

// The objects remembered are bounded: beyond, allocations count but are
// not remembered, and their frees count apart.
func TestObjectsAreBounded(t *testing.T) {
	a := New(Options{MaxTrackedObjects: 3, MaxClasses: 2})
	var evs []decode.Event
	for i := int64(1); i <= 5; i++ {
		evs = append(evs, &decode.ClassDef{ClassID: i, Name: "C" + string(rune('0'+i))}, &decode.ObjAlloc{ObjID: i, ClassIDRef: i, Time: ms(0)})
	}
	for i := int64(1); i <= 5; i++ {
		evs = append(evs, &decode.ObjFree{ObjIDRef: i, Time: ms(10)})
	}
	feed(a, evs...)
	o := a.Snapshot(t0, Query{CallersOf: -1}).Objects
	if len(o.Classes) != 3 || o.Overflow != 3 || o.Dropped != 2 || o.Untracked != 2 || o.Tracked != 0 {
		t.Fatalf("%d classes (%+v), overflow %d, dropped %d, untracked %d, tracked %d", len(o.Classes), o.Classes, o.Overflow, o.Dropped, o.Untracked, o.Tracked)
	}
}

// A census replaces the one before, and its classes are listed (with
// nothing allocated: the census counted them); sampled allocations give
// rates by bytes.
func TestCensusAndAllocationSamples(t *testing.T) {
	a := New(Options{})
	feed(a,
		&decode.ObjectCensus{Time: ms(0), Census: 1, Class: "Foo", Site: "a.rb:3", Count: 5, Bytes: 200, MaxCount: -1},
		&decode.ObjectCensus{Time: ms(0), Census: 2, Class: "Foo", Site: "a.rb:3", Count: 7, Bytes: 280, MaxCount: -1},
		&decode.ObjectCensus{Time: ms(0), Census: 2, Class: "Bar", Count: 1, Bytes: -1, MaxCount: -1},
		&decode.Allocation{Time: ms(500), Class: "byte[]", Count: -1, Bytes: 4 << 20},
	)
	o := a.Snapshot(t0, Query{CallersOf: -1}).Objects
	if len(o.Census) != 2 || o.Census[0].Count != 7 || o.CensusTotal != 8 {
		t.Fatalf("census %+v total %d", o.Census, o.CensusTotal)
	}
	if len(o.Classes) != 3 || o.Classes[0].Class != "Bar" || o.Classes[1].Class != "Foo" || o.Classes[0].Allocs+o.Classes[1].Allocs != 0 {
		t.Fatalf("classes %+v", o.Classes)
	}
	// Over a second (the least span): the first sample came just now.
	if c := o.Classes[2]; !c.Sampled || c.BytesRate != float64(4<<20) || c.Allocs != 0 {
		t.Fatalf("sampled %+v", c)
	}
}

// A class's history runs oldest first across the ring's wrap, and classes
// are listed by name, a class added between two snapshots included.
func TestObjectsHistoryAndOrder(t *testing.T) {
	a := New(Options{})
	feed(a, &decode.ClassDef{ClassID: 1, Name: "Zeta"}, &decode.ClassDef{ClassID: 2, Name: "Beta"})
	// One more live Zeta each second for 70 s: more than the ring holds.
	for i := int64(0); i < 70; i++ {
		feed(a, &decode.ObjAlloc{ObjID: 100 + i, ClassIDRef: 1, Time: ms(int(i) * 1000)})
	}
	feed(a, &decode.ObjAlloc{ObjID: 1, ClassIDRef: 2, Time: ms(69_500)})
	s := a.Snapshot(t0, Query{CallersOf: -1})
	if got := classNames(s.Objects.Classes); got != "Beta,Zeta" {
		t.Fatalf("classes %s", got)
	}
	h := s.Objects.Classes[1].History
	for i := range h {
		if want := int64(70 - objectsHistory + 1 + i); h[i] != want {
			t.Fatalf("Zeta's history %v: [%d] should be %d", h, i, want)
		}
	}
	feed(a, &decode.ClassDef{ClassID: 3, Name: "Alpha"}, &decode.ObjAlloc{ObjID: 2, ClassIDRef: 3, Time: ms(69_600)})
	s = a.Snapshot(t0, Query{CallersOf: -1})
	if got := classNames(s.Objects.Classes); got != "Alpha,Beta,Zeta" {
		t.Fatalf("classes after Alpha %s", got)
	}
	if h2 := s.Objects.Classes[2].History; &h2[0] == &h[0] {
		t.Error("a snapshot's histories share memory with the one before")
	}
}

func classNames(cs []ObjectClass) string {
	var names []string
	for _, c := range cs {
		names = append(names, c.Class)
	}
	return strings.Join(names, ",")
}

func near(got, want float64) bool { return math.Abs(got-want) < 1e-9*max(1, math.Abs(want)) }

// The rates divide by the span the window covers: from the first object
// until the window has passed, then the window's seconds before the
// current one and the part of it passed; never less than a second.
func TestObjectRatesOverTheSpanCovered(t *testing.T) {
	for _, tc := range []struct {
		name      string
		first     int // ms of the first object; one more object each 10 ms until now
		now       int // ms
		want      float64
		shownSpan time.Duration
	}{
		{"after 4.8 s", 200, 5000, 100, 4800 * time.Millisecond},
		{"within the first second", 0, 500, 50, time.Second},
		{"the window passed, at a second's start", 0, 30_000, 100, 10 * time.Second},
		{"the window passed, half into a second", 0, 30_500, 100, 10 * time.Second},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := New(Options{})
			evs := []decode.Event{&decode.ClassDef{ClassID: 1, Name: "Foo"}}
			for at := tc.first; at < tc.now; at += 10 {
				evs = append(evs, &decode.ObjAlloc{ObjID: int64(at + 1), ClassIDRef: 1, Time: ms(at)})
			}
			evs = append(evs, &decode.ObjFree{ObjIDRef: 1 << 40, Time: ms(tc.now)}) // the trace's now
			feed(a, evs...)
			o := a.Snapshot(t0, Query{CallersOf: -1}).Objects
			if len(o.Classes) != 1 || math.Abs(o.Classes[0].AllocRate-tc.want) > 2.5 || o.Window != tc.shownSpan {
				t.Fatalf("classes %+v over %v; want %v/s over %v", o.Classes, o.Window, tc.want, tc.shownSpan)
			}
		})
	}
}

// A source that has reported no free (the JVM agent: allocation samples,
// and the lock objects it names) leaves the frees out of JSON rather than
// saying 0; once one reports a free, every class's frees are in, zeros
// too.
func TestFreesUnknownUntilReported(t *testing.T) {
	a := New(Options{})
	feed(a,
		&decode.ClassDef{ClassID: 1, Name: "Foo"},
		&decode.ObjAlloc{ObjID: 7, ClassIDRef: 1, Time: ms(100)},
		&decode.Allocation{Time: ms(500), Class: "byte[]", Count: 3, Bytes: 4 << 20},
	)
	o := a.Snapshot(t0, Query{CallersOf: -1}).Objects
	js, err := json.Marshal(o)
	if err != nil {
		t.Fatal(err)
	}
	if o.FreesReported || strings.Contains(string(js), `"freed`) || !strings.Contains(string(js), `"allocated":3`) {
		t.Fatalf("no free reported yet: %s", js)
	}
	feed(a, &decode.ClassDef{ClassID: 2, Name: "Bar"}, &decode.ObjAlloc{ObjID: 8, ClassIDRef: 2, Time: ms(600)}, &decode.ObjFree{ObjIDRef: 8, Time: ms(700)})
	o = a.Snapshot(t0, Query{CallersOf: -1}).Objects
	js, _ = json.Marshal(o)
	if !o.FreesReported || strings.Count(string(js), `"freed":`) != 3 || !strings.Contains(string(js), `"class":"Bar","live":0,"allocated":1,"freed":1`) {
		t.Fatalf("a free reported: %s", js)
	}
	var back Objects
	if err := json.Unmarshal(js, &back); err != nil || !back.FreesReported || len(back.Classes) != 3 {
		t.Fatalf("read back %+v, %v", back, err)
	}
}
