package tui

import (
	"slices"
	"testing"

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
	counted := state.ObjectClass{Class: "Foo"}
	census := []state.CensusRow{{Class: "Foo", Count: 4, Bytes: -1}}
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
		})
	}
}
