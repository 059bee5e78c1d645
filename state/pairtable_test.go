package state

import (
	"math/rand/v2"
	"testing"
)

// TestPairTableAgreesWithAMap sets and looks up random pairs, many of
// them colliding and negative, in a pairTable and in a map, through
// several growths, and checks that both answer the same.
func TestPairTableAgreesWithAMap(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	type pair struct{ a, b int32 }
	var tab pairTable
	want := map[pair]int32{}
	draw := func() pair {
		switch r.IntN(3) {
		case 0: // few distinct values: many pairs share a half
			return pair{int32(r.IntN(50)) - 1, int32(r.IntN(50)) - 1}
		case 1: // far apart, negative too
			return pair{r.Int32() - 1<<30, -r.Int32()}
		}
		return pair{int32(r.IntN(5000)), int32(r.IntN(5000))}
	}
	for i := range 200_000 {
		p := draw()
		if r.IntN(2) == 0 {
			v := int32(r.IntN(1 << 20))
			tab.set(p.a, p.b, v)
			want[p] = v
		}
		got, ok := tab.get(p.a, p.b)
		w, wok := want[p]
		if ok != wok || got != w {
			t.Fatalf("step %d: get(%d, %d) = %d, %v; want %d, %v", i, p.a, p.b, got, ok, w, wok)
		}
	}
	if tab.len() != len(want) {
		t.Fatalf("len %d, want %d", tab.len(), len(want))
	}
	for p, w := range want {
		if got, ok := tab.get(p.a, p.b); !ok || got != w {
			t.Fatalf("get(%d, %d) = %d, %v; want %d", p.a, p.b, got, ok, w)
		}
	}
	if len(tab.entries) > 4*len(want) || 2*tab.used > len(tab.entries) {
		t.Fatalf("%d entries for %d pairs", len(tab.entries), len(want))
	}
}

func TestPairTableEmpty(t *testing.T) {
	var tab pairTable
	if _, ok := tab.get(0, 0); ok {
		t.Fatal("an empty table found a pair")
	}
	tab.set(0, 0, 0)
	if v, ok := tab.get(0, 0); !ok || v != 0 {
		t.Fatalf("get(0, 0) = %d, %v after set(0, 0, 0)", v, ok)
	}
	if _, ok := tab.get(0, 1); ok {
		t.Fatal("found a pair never set")
	}
}
