package state

import (
	"slices"
	"testing"
	"time"

	"github.com/proftop/proftop/decode"
	"github.com/proftop/proftop/simulator"
)

// windowByBruteForce is the recent table worked out from every slot, the
// way the window is defined: the live methods with anything in the window.
func windowByBruteForce(mt *methodTable) ([]Method, selfTotals) {
	var out []Method
	var total selfTotals
	for slot := range mt.stats.len() {
		w := mt.windowOf(int32(slot))
		if !w.has() || mt.stats.at(int32(slot)).dead {
			continue
		}
		out = append(out, mt.methodRow(slot, &w))
		if mt.stats.at(int32(slot)).sampler {
			total.sampled += w.self
		} else {
			total.measured += w.self
		}
	}
	return out, total
}

func bySlot(rows []Method) []Method {
	rows = slices.Clone(rows)
	slices.SortFunc(rows, func(a, b Method) int { return int(a.Slot - b.Slot) })
	return rows
}

// Recent tables patched from released snapshots hold what the window
// holds, through seconds closing and expiring, idle gaps longer than the
// window, merged method slots, a reset and a switch of view.
func TestPatchedRecentTablesEqualTheWindow(t *testing.T) {
	w := simulator.NewWorld(simulator.Config{Seed: 7, Start: t0})
	a := New(Options{Window: 4 * time.Second})
	var prev *Snapshot
	at := t0
	for round := range 120 {
		var evs []decode.Event
		for range 2000 {
			evs = append(evs, decode.Clone(w.Next()))
		}
		switch round {
		case 30:
			// Method ids 1 and 2 of a new stream both name the same method:
			// the second merges into the first.
			evs = append(evs,
				&decode.ClassDef{ClassID: 900, Name: "com.acme.Merged"},
				&decode.MethodDef{Name: "twice", ClassIDRef: 900, MethodID: 1_000_001},
				&decode.MethodEntry{ThreadIDRef: 1, MethodIDRef: 1_000_002, Ticket: 1 << 30, Time: decode.Ticks(w.Now().UnixNano())},
				&decode.MethodExit{ThreadIDRef: 1, Ticket: 1 << 30, Time: decode.Ticks(w.Now().UnixNano() + 5)},
				&decode.MethodDef{Name: "twice", ClassIDRef: 900, MethodID: 1_000_002})
		case 60:
			a.Reset()
		}
		a.Apply(evs, 1, decode.Clock{}, at)
		step := 300 * time.Millisecond
		if round == 80 {
			step = 10 * time.Second // idle longer than the window
		}
		at = at.Add(step)
		q := Query{CallersOf: -1, Recent: round%25 != 24}
		got := a.Snapshot(at, q)
		if q.Recent {
			a.mu.Lock()
			want, total := windowByBruteForce(&a.methods)
			a.mu.Unlock()
			if !slices.Equal(bySlot(got.Methods), want) {
				t.Fatalf("round %d: %d rows, want %d:\n%+v\n%+v", round, len(got.Methods), len(want), bySlot(got.Methods), want)
			}
			if got.TotalSelf != time.Duration(total.measured+total.sampled) {
				t.Fatalf("round %d: total self %v, want %v", round, got.TotalSelf, time.Duration(total.measured+total.sampled))
			}
		}
		a.Release(prev)
		prev = got
	}
}

// One method a second joins the window and, four seconds later, leaves it:
// the rows moved by a departure keep their figures, and tables released
// after the journal was cut (kept short here) are rebuilt right.
func TestRecentTableFollowsMethodsJoiningAndLeaving(t *testing.T) {
	defer func(floor int) { journalFloor = floor }(journalFloor)
	journalFloor = 3 // cut the journal often
	a := New(Options{Window: 4 * time.Second})
	evs := []decode.Event{&decode.ClassDef{ClassID: 1, Name: "com.acme.Step"}}
	for m := range 40 {
		evs = append(evs, &decode.MethodDef{Name: "s" + string(rune('A'+m)), ClassIDRef: 1, MethodID: int64(m + 1)})
	}
	a.Apply(evs, 1, decode.Clock{}, t0)
	var held []*Snapshot
	for sec := range 40 {
		at := t0.Add(time.Duration(sec) * time.Second)
		tt := decode.Ticks(at.UnixNano())
		a.Apply([]decode.Event{
			&decode.MethodEntry{ThreadIDRef: 1, MethodIDRef: int64(sec + 1), Ticket: int32(sec + 1), Time: tt},
			&decode.MethodExit{ThreadIDRef: 1, Ticket: int32(sec + 1), Time: tt + decode.Ticks(sec+1)},
		}, 1, decode.Clock{}, at)
		got := a.Snapshot(at.Add(500*time.Millisecond), Query{CallersOf: -1, Recent: true})
		a.mu.Lock()
		want, _ := windowByBruteForce(&a.methods)
		a.mu.Unlock()
		if len(want) != min(sec+1, 4) {
			t.Fatalf("second %d: %d methods in the window by brute force", sec, len(want))
		}
		if !slices.Equal(bySlot(got.Methods), want) {
			t.Fatalf("second %d:\n%+v\nwant\n%+v", sec, bySlot(got.Methods), want)
		}
		// Release the snapshot of two seconds before, and now and then
		// one held for much longer.
		held = append(held, got)
		if len(held) > 2 && sec%9 != 0 {
			a.Release(held[len(held)-3])
			held[len(held)-3] = nil
		}
		if sec == 30 {
			a.Release(held[9])
		}
	}
}
