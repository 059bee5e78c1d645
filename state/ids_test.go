package state

import (
	"math"
	"testing"
)

func TestIDTableKeepsDenseAndOddIDsApart(t *testing.T) {
	var ids idTable
	set := []struct {
		id   int64
		slot int32
	}{
		{1, 0}, {2, 5}, {0, 7}, {1023, 8}, // dense
		{-4, 1}, {math.MaxInt64, 2}, {1 << 40, 3}, // a map
	}
	for _, s := range set {
		ids.set(s.id, s.slot, 10)
	}
	if len(ids.dense) > denseFloor {
		t.Fatalf("dense ids grew to %d for 10 methods", len(ids.dense))
	}
	for _, s := range set {
		if got, ok := ids.get(s.id); !ok || got != s.slot {
			t.Errorf("id %d: slot %d (%v), want %d", s.id, got, ok, s.slot)
		}
	}
	for _, id := range []int64{3, 1022, 1024, -1, math.MinInt64} {
		if got, ok := ids.get(id); ok {
			t.Errorf("id %d: slot %d, want none", id, got)
		}
	}
	// An id first seen beyond the bound, then within it as methods grew.
	ids.set(5000, 4, 10)
	ids.set(5000, 6, 2000)
	if got, _ := ids.get(5000); got != 6 || len(ids.other) != 3 {
		t.Errorf("id 5000: slot %d, %d ids in the map", got, len(ids.other))
	}
	ids.replace(5, 9)
	ids.replace(2, 9)
	if a, _ := ids.get(2); a != 9 {
		t.Errorf("replaced: id 2 on slot %d", a)
	}
	if b, _ := ids.get(math.MaxInt64); b != 9 {
		t.Errorf("replaced: id MaxInt64 on slot %d", b)
	}
	ids.reset()
	for _, s := range set {
		if _, ok := ids.get(s.id); ok {
			t.Errorf("id %d still known after a reset", s.id)
		}
	}
}
