package state

import (
	"fmt"
	"math/rand"
	"regexp"
	"slices"
	"testing"
	"time"

	"github.com/proftop/proftop/decode"
)

// expectedPage works out a page from every row of the full snapshot of
// the same moment, as the interface's table lays out every row: the
// answer the aggregator's kept order must give.
func expectedPage(full *Snapshot, q *MethodPage) (rows []Method, ans MethodPageAnswer) {
	var listed, members []Method
	for _, m := range full.Methods {
		if full.Views && m.Sampler != q.Sampler {
			continue
		}
		listed = append(listed, m)
		if m.Line > 0 {
			ans.Lines = true
		}
		name := full.MethodName(&m)
		if q.Filter == nil || q.Filter.MatchString(name) != q.Invert {
			members = append(members, m)
		}
	}
	before := func(a, b *Method) bool {
		if q.Key == ByName {
			if na, nb := full.MethodName(a), full.MethodName(b); na != nb {
				return (na < nb) != q.Descending
			}
		} else if ka, kb := q.Key.Of(a), q.Key.Of(b); ka != kb {
			return (ka < kb) != q.Descending
		}
		return a.Slot < b.Slot
	}
	slices.SortFunc(members, func(a, b Method) int {
		if before(&a, &b) {
			return -1
		}
		return 1
	})
	ans.Listed, ans.Matched, ans.Selected = len(listed), len(members), -1
	if len(members) == 0 {
		return nil, ans
	}
	pos := -1
	if q.Chosen {
		for i := range members {
			if members[i].Slot == q.Selected {
				pos, ans.Chosen = i, true
			}
		}
	}
	if pos < 0 && q.Rank >= 0 {
		pos, ans.Chosen = min(q.Rank, len(members)-1), true
	}
	pos = max(pos, 0)
	n := max(q.Rows, 1)
	offset := min(max(q.Offset, pos-n+1), pos)
	offset = max(min(offset, len(members)-n), 0)
	ans.Pos, ans.Offset, ans.Selected = pos, offset, members[pos].Slot
	return members[offset:min(offset+n, len(members))], ans
}

// TestPagesFollowTheMethods checks the pages of a kept order against the
// full table at every step of a stream whose methods join and leave the
// window, are renamed as their classes arrive, merge, are sampled as well
// as measured (two views), and are reset: every column, both directions,
// filters, selections and scrolling.
func TestPagesFollowTheMethods(t *testing.T) {
	defer SetPageAboveForTest(SetPageAboveForTest(0))
	for _, head := range []int{256, 4} {
		t.Run(fmt.Sprintf("head=%d", head), func(t *testing.T) {
			defer func(old int) { headMin = old }(headMin)
			headMin = head
			pagesFollowTheMethods(t)
		})
	}
}

func pagesFollowTheMethods(t *testing.T) {
	rng := rand.New(rand.NewSource(7))
	a := New(Options{})
	const classes, methods, threads = 40, 1500, 20
	at := t0
	ticket := int32(0)
	now := decode.Ticks(1_000_000)
	var evs []decode.Event
	defined := 0
	define := func(n int) {
		for ; n > 0 && defined < methods; n-- {
			m := defined
			defined++
			// Some share a name (overloads), some have no line.
			evs = append(evs, &decode.MethodDef{Name: fmt.Sprintf("op%d", m%700), Signature: fmt.Sprintf("(I%d)V", m%3),
				ClassIDRef: int64(m%classes + 1), MethodID: int64(m + 1), StartLineNumber: int64(m % 5 * 10)})
		}
	}
	// Half the methods before their classes: renamed when these come.
	define(methods / 2)
	for c := range classes {
		evs = append(evs, &decode.ClassDef{ClassID: int64(c + 1), Name: fmt.Sprintf("com.example.C%d", c)})
	}
	filters := []*regexp.Regexp{nil, regexp.MustCompile(`C1`), regexp.MustCompile(`op[0-9]?5`), regexp.MustCompile(`^$`)}
	q := &MethodPage{Rank: -1, Rows: 20}
	recent := true
	for step := range 400 {
		define(rng.Intn(20))
		calls := rng.Intn(300)
		if step%50 < 5 {
			calls = 0 // quiet seconds: rows leave the window
		}
		for range calls {
			ticket++
			now += decode.Ticks(rng.Intn(1000))
			th := int64(rng.Intn(threads) + 1)
			meth := int64(rng.Intn(max(defined, 1)) + 1)
			evs = append(evs, &decode.MethodEntry{ThreadIDRef: th, MethodIDRef: meth, Ticket: ticket, Time: now},
				&decode.MethodExit{ThreadIDRef: th, Ticket: ticket, Time: now + decode.Ticks(rng.Intn(5000)), ThreadCPUTime: now})
		}
		if step > 100 && rng.Intn(4) == 0 {
			// Stack samples: a second view of the same source.
			st := decode.Stack{}
			for d := range rng.Intn(4) + 1 {
				st.Methods = append(st.Methods, fmt.Sprintf("com.example.S%d.run%d(I)V", rng.Intn(30), d))
				st.Lines = append(st.Lines, int64(rng.Intn(3)))
			}
			evs = append(evs, &decode.Sample{ThreadIDRef: 1, Time: now, Count: int64(rng.Intn(3)), Weight: decode.Ticks(rng.Intn(900)), Stack: st})
		}
		if rng.Intn(3) == 0 {
			at = at.Add(time.Duration(rng.Intn(2500)) * time.Millisecond)
		}
		a.Apply(evs, 1, decode.Clock{}, at)
		evs = evs[:0]
		if step == 250 {
			a.Reset()
		}
		// A new question now and then; else the one the previous answer
		// leaves, as the interface asks.
		switch r := rng.Intn(10); {
		case r == 0:
			q.Key, q.Descending = MethodKey(rng.Intn(int(ByCPU)+1)), rng.Intn(2) == 0
			q.Chosen, q.Rank, q.Offset = false, -1, 0
		case r == 1:
			q.Filter, q.Invert = filters[rng.Intn(len(filters))], rng.Intn(3) == 0
		case r == 2:
			q.Rank, q.Chosen = rng.Intn(600), false
		case r == 3:
			q.Offset = rng.Intn(700)
		case r == 4:
			q.Sampler = !q.Sampler
		case r == 5 && step%7 == 0:
			recent = !recent
		case r == 6:
			q.Rows = 1 + rng.Intn(60)
		case r == 7:
			q.Chosen, q.Selected = true, int32(rng.Intn(max(defined, 1))) // chosen long ago: anywhere now
		}
		full := a.Snapshot(at, Query{Recent: recent, CallersOf: -1})
		if step%40 >= 35 {
			// No page for a while (the view frozen): changes pile up.
			a.Release(full)
			continue
		}
		ask := *q
		got := a.Snapshot(at, Query{Recent: recent, CallersOf: -1, Methods: &ask})
		want, wantAns := expectedPage(full, q)
		if got.Page == nil {
			t.Fatalf("step %d: no page", step)
		}
		ans := *got.Page
		ans.Asked, ans.Samples, wantAns.Samples = MethodPage{}, 0, 0
		if ans != wantAns {
			t.Fatalf("step %d (%+v, recent %v): answer %+v, want %+v", step, *q, recent, ans, wantAns)
		}
		if !slices.Equal(got.Methods, want) {
			t.Fatalf("step %d (%+v, recent %v): rows\n%v\nwant\n%v", step, *q, recent, got.Methods, want)
		}
		if got.TotalSelf != full.TotalSelf || got.SamplerSelf != full.SamplerSelf || got.Views != full.Views {
			t.Fatalf("step %d: totals %v %v %v, want %v %v %v", step, got.TotalSelf, got.SamplerSelf, got.Views, full.TotalSelf, full.SamplerSelf, full.Views)
		}
		var samples int64
		for i := range full.Methods {
			samples += full.Methods[i].Samples
		}
		if got.Page.Samples != samples {
			t.Fatalf("step %d: %d samples, want %d", step, got.Page.Samples, samples)
		}
		a.Release(full)
		a.Release(got)
		// The interface asks next with what it was answered.
		q.Chosen, q.Selected, q.Offset, q.Rank = ans.Chosen, ans.Selected, ans.Offset, -1
	}
}

// TestPagesWhenEveryMethodChanges checks the pages against the full table
// through seconds in which every method is called, far more changes than
// the head keeps (rechoose), in every order.
func TestPagesWhenEveryMethodChanges(t *testing.T) {
	defer SetPageAboveForTest(SetPageAboveForTest(0))
	rng := rand.New(rand.NewSource(11))
	a := New(Options{})
	const methods, threads = 3000, 16
	var evs []decode.Event
	evs = append(evs, &decode.ClassDef{ClassID: 1, Name: "com.example.Busy"})
	for m := range methods {
		evs = append(evs, &decode.MethodDef{Name: fmt.Sprintf("op%d", m), ClassIDRef: 1, MethodID: int64(m + 1), StartLineNumber: int64(m%7 + 1)})
	}
	at, now, ticket := t0, decode.Ticks(1_000_000), int32(0)
	for step := range 40 {
		for m := range methods {
			if step%3 == 2 && m%3 != 0 {
				continue // a third of them called: the head's others stay
			}
			ticket++
			th := int64(rng.Intn(threads) + 1)
			now += decode.Ticks(rng.Intn(1000))
			evs = append(evs, &decode.MethodEntry{ThreadIDRef: th, MethodIDRef: int64(m + 1), Ticket: ticket, Time: now},
				&decode.MethodExit{ThreadIDRef: th, Ticket: ticket, Time: now + decode.Ticks(rng.Intn(100_000)), ThreadCPUTime: now})
		}
		at = at.Add(time.Second)
		a.Apply(evs, 1, decode.Clock{}, at)
		evs = evs[:0]
		// One order for a few seconds, so that it is kept, not made again.
		q := &MethodPage{Key: []MethodKey{BySelf, ByCalls, ByMax, ByName, ByMin}[step/8], Descending: step/4%2 == 0, Rank: -1, Rows: 25, Offset: step % 3 * 10}
		for _, recent := range []bool{step%8 < 6} {
			full := a.Snapshot(at, Query{Recent: recent, CallersOf: -1})
			ask := *q
			got := a.Snapshot(at, Query{Recent: recent, CallersOf: -1, Methods: &ask})
			want, _ := expectedPage(full, q)
			if !slices.Equal(got.Methods, want) {
				t.Fatalf("step %d (%+v, recent %v): rows\n%v\nwant\n%v", step, *q, recent, got.Methods, want)
			}
			a.Release(full)
			a.Release(got)
		}
	}
}

// TestPageKeepsTheUnchangedHeadAmongManyChanges is the case where more
// methods change than the head keeps while some of the head do not: those
// must stay in the page, ahead of the many that moved up less. The first
// 256 methods are called three times, the others once; then half of the
// first 256 are called again, and every other method once more.
func TestPageKeepsTheUnchangedHeadAmongManyChanges(t *testing.T) {
	defer SetPageAboveForTest(SetPageAboveForTest(0))
	a := New(Options{})
	const methods = 3000
	evs := []decode.Event{&decode.ClassDef{ClassID: 1, Name: "com.example.Head"}}
	for m := range methods {
		evs = append(evs, &decode.MethodDef{Name: fmt.Sprintf("op%d", m), ClassIDRef: 1, MethodID: int64(m + 1)})
	}
	now, ticket := decode.Ticks(1_000_000), int32(0)
	call := func(m, times int) {
		for range times {
			ticket++
			now += 10
			evs = append(evs, &decode.MethodEntry{ThreadIDRef: 1, MethodIDRef: int64(m + 1), Ticket: ticket, Time: now},
				&decode.MethodExit{ThreadIDRef: 1, Ticket: ticket, Time: now + 5})
		}
	}
	for m := range methods {
		call(m, map[bool]int{true: 3, false: 1}[m < 256])
	}
	// The row at rank 250 chosen: the page shows the end of the first
	// 256 rows and the start of the others.
	q := MethodPage{Key: ByCalls, Descending: true, Rank: 250, Rows: 40, Offset: 240}
	check := func(step string) {
		a.Apply(evs, 1, decode.Clock{}, t0)
		evs = evs[:0]
		full := a.Snapshot(t0, Query{CallersOf: -1})
		ask := q
		got := a.Snapshot(t0, Query{CallersOf: -1, Methods: &ask})
		if want, _ := expectedPage(full, &q); !slices.Equal(got.Methods, want) {
			t.Fatalf("%s: rows\n%v\nwant\n%v", step, got.Methods, want)
		}
		a.Release(full)
		a.Release(got)
	}
	check("first")
	for m := range methods {
		if m >= 256 || m%2 == 0 {
			call(m, 1)
		}
	}
	check("second")
}

// A page's filter matches a method as the pane shows it, as Java writes
// it, as well as the trace names it: /long finds wait(J)V.
func TestPageFilterMatchesMethodsAsShown(t *testing.T) {
	defer SetPageAboveForTest(SetPageAboveForTest(1)) // paged: the filter runs here
	a := New(Options{})
	evs := []decode.Event{&decode.ClassDef{ClassID: 1, Name: "java.lang.Object"},
		&decode.MethodDef{Name: "wait", Signature: "(J)V", ClassIDRef: 1, MethodID: 1},
		&decode.MethodDef{Name: "wait", Signature: "()V", ClassIDRef: 1, MethodID: 2}}
	for m := int64(1); m <= 2; m++ {
		evs = append(evs, &decode.MethodEntry{ThreadIDRef: 1, MethodIDRef: m, Ticket: int32(m), Time: ms(int(m))},
			&decode.MethodExit{ThreadIDRef: 1, Ticket: int32(m), Time: ms(int(m) + 1)})
	}
	a.Apply(evs, 1, decode.Clock{}, t0)
	for expr, want := range map[string]int{"long": 1, `\(J\)`: 1, `wait\(\)`: 1, "wait": 2} {
		q := MethodPage{Key: BySelf, Descending: true, Rank: -1, Rows: 25, Filter: regexp.MustCompile(expr)}
		s := a.Snapshot(t0, Query{CallersOf: -1, Methods: &q})
		if len(s.Methods) != want {
			t.Errorf("/%s: %d rows, want %d", expr, len(s.Methods), want)
		}
		a.Release(s)
	}
}
