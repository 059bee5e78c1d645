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

// Ids beyond the dense bound are kept up to a bound of their own, however
// many a peer sends; remap moves every id of merged slots at once.
func TestIDTableBoundsOddIDsAndRemaps(t *testing.T) {
	var ids idTable
	for id := int64(1 << 40); id < 1<<40+100_000; id++ {
		ids.set(id, 1, 10)
	}
	if n := len(ids.other); n != denseFloor {
		t.Fatalf("%d odd ids kept, want %d", n, denseFloor)
	}
	ids.set(5, 2, 10)
	ids.remap(func(slot int32) int32 { return slot + 10 })
	if s, ok := ids.get(5); !ok || s != 12 {
		t.Fatalf("dense id 5: %d %v", s, ok)
	}
	if s, ok := ids.get(1 << 40); !ok || s != 11 {
		t.Fatalf("odd id: %d %v", s, ok)
	}
}
