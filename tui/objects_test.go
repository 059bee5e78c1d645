package tui

import (
	"slices"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/proftop/proftop/state"
)

// The live count's minute fits the sparkline's cells, each the peak of its
// seconds, the latest last.
func TestPerCell(t *testing.T) {
	for _, tc := range []struct {
		name    string
		history []int64
		cells   int
		want    []float64
	}{
		{"three a cell", []int64{1, 5, 2, 0, 0, 7}, 2, []float64{5, 7}},
		{"fewer values than cells", []int64{4, 2}, 5, []float64{4, 2}},
		{"the oldest run short", []int64{9, 1, 2, 3, 4}, 2, []float64{9, 4}},
		{"none", nil, 3, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := perCell(tc.history, tc.cells); !slices.Equal(got, tc.want) {
				t.Fatalf("got %v, want %v", got, tc.want)
			}
		})
	}
	minute := make([]int64, 60)
	minute[0] = 100 // the oldest second still shows
	if got := perCell(minute, sparkCells); len(got) != sparkCells || got[0] != 100 {
		t.Fatalf("a minute in %d cells: %v", sparkCells, got)
	}
}

// The objects' columns are those the data has something for.
func TestObjectColumns(t *testing.T) {
	allocated := state.ObjectClass{Class: "Foo", Allocs: 3}
	sized := state.ObjectClass{Class: "Foo", Allocs: 3, Bytes: 120}
	counted := state.ObjectClass{Class: "Foo", Counted: true}
	census := []state.CensusRow{{Class: "Foo", Count: 4, Bytes: -1}}
	bySize := state.ObjectClass{Class: "byte[]", Bytes: 3 << 20, BytesRate: 1 << 20, Sampled: true}
	for _, tc := range []struct {
		name string
		o    state.Objects
		want []string
	}{
		{"allocations without sizes (rbkit)", state.Objects{Classes: []state.ObjectClass{allocated}},
			[]string{"CLASS", "LIVE", "NEW/s", "FREED/s", "ALLOCATED", "LIVE, LAST MINUTE"}},
		{"and a census", state.Objects{Classes: []state.ObjectClass{allocated}, Census: census},
			[]string{"CLASS", "LIVE", "NEW/s", "FREED/s", "ALLOCATED", "CENSUS", "LIVE, LAST MINUTE"}},
		{"sizes", state.Objects{Classes: []state.ObjectClass{sized}},
			[]string{"CLASS", "LIVE", "NEW/s", "FREED/s", "BYTES/s", "ALLOCATED", "LIVE, LAST MINUTE"}},
		{"a census alone: LIVE is its count", state.Objects{Classes: []state.ObjectClass{counted}, Census: census},
			[]string{"CLASS", "LIVE", "NEW/s", "FREED/s", "LIVE, LAST MINUTE"}},
		{"sampled by size (the JVM agent: JFR): bytes only", state.Objects{Classes: []state.ObjectClass{bySize, bySize}},
			[]string{"CLASS", "BYTES/s"}},
		{"sampled by size, beside counts", state.Objects{Classes: []state.ObjectClass{bySize, sized}},
			[]string{"CLASS", "LIVE", "NEW/s", "FREED/s", "BYTES/s", "ALLOCATED", "LIVE, LAST MINUTE"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got []string
			for _, c := range objectColumns(&tc.o) {
				if !c.off {
					got = append(got, c.title)
				}
			}
			if !slices.Equal(got, tc.want) {
				t.Fatalf("columns %q, want %q", got, tc.want)
			}
			// Sorted by the live count, or by the bytes where no count is known.
			if def, byBytes := objectSortDefault(&tc.o), !slices.Contains(tc.want, "LIVE"); (def == objColBytesRate) != byBytes {
				t.Fatalf("sorted by default by column %d", def)
			}
		})
	}
}

// The census table gives the sites the width (their end tells them
// apart), the class its own; without sites the class takes it all.
func TestCensusTable(t *testing.T) {
	st := NewStyles(ThemeDark)
	o := state.Objects{CensusTotal: 3000, Census: []state.CensusRow{
		{Class: "String", Site: "/srv/ledger/app/models/ledger/report.rb:9", Count: 2000, Bytes: -1},
		{Class: "Ledger::Entry", Site: "/srv/ledger/app/models/ledger.rb:42", Count: 1000, Bytes: -1},
	}}
	lines := newTable(censusColumns(&o), 2).render(newCensusRows(&o), 78, 4, &st, false)
	screen := ansi.Strip(strings.Join(lines, "\n"))
	for _, w := range []string{"ALLOCATED AT", "models/ledger/report.rb:9", "Ledger::Entry", "67%", "app/models/ledger.rb:42"} {
		if !strings.Contains(screen, w) {
			t.Errorf("the census lacks %q:\n%s", w, screen)
		}
	}
	if strings.Contains(screen, "BYTES") {
		t.Errorf("bytes shown with no sizes:\n%s", screen)
	}
	o.Census[0].Site, o.Census[1].Site = "", ""
	lines = newTable(censusColumns(&o), 2).render(newCensusRows(&o), 78, 4, &st, false)
	if screen := ansi.Strip(lines[0]); strings.Contains(screen, "ALLOCATED AT") || !strings.HasPrefix(screen, "CLASS") {
		t.Errorf("without sites: %q", screen)
	}
}

// A class known by allocation samples alone (the JVM agent's) has bytes,
// not counts: its drill-in says its counts are unknown (–), not 0.
func TestObjectDetailOfASampledClass(t *testing.T) {
	st := PlainStyles()
	s := &state.Snapshot{Objects: state.Objects{Classes: []state.ObjectClass{{Class: "byte[]", Bytes: 6 << 30, BytesRate: 306 << 20, Sampled: true}}}}
	got := strings.Join(objectDetail("byte[]", s, &st), "\n")
	for _, want := range []string{"live –  allocated –", "new/s –", "bytes allocated 6GiB", "bytes/s 306MiB", "counts unknown"} {
		if !strings.Contains(got, want) {
			t.Errorf("no %q in\n%s", want, got)
		}
	}
	// Sampled, and counted too: the counts are known, as the table shows them.
	s.Objects.Classes[0].Allocs, s.Objects.Classes[0].Live = 40, 12
	got = strings.Join(objectDetail("byte[]", s, &st), "\n")
	if !strings.Contains(got, "live 12  allocated 40") || strings.Contains(got, "counts unknown") {
		t.Errorf("a sampled class with counts:\n%s", got)
	}
}
