package state

import (
	"math/rand/v2"
	"testing"
)

// TestPairTableAgreesWithAMap files items under random pairs, many of
// them colliding and negative, in a pairTable and in a map, through
// several growths, and checks that both find the same for pairs filed
// and for pairs never filed.
func TestPairTableAgreesWithAMap(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	type pair struct{ a, b int32 }
	var tab pairTable
	var items []pair // item -> its pair
	key := func(item int32) (int32, int32) { return items[item].a, items[item].b }
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
		_, filed := want[p]
		if !filed && r.IntN(2) == 0 {
			item := int32(len(items))
			items = append(items, p)
			tab.add(item, key)
			want[p] = item
		}
		got, ok := tab.get(p.a, p.b, key)
		w, wok := want[p]
		if ok != wok || got != w {
			t.Fatalf("step %d: get(%d, %d) = %d, %v; want %d, %v", i, p.a, p.b, got, ok, w, wok)
		}
	}
	if tab.used != len(want) {
		t.Fatalf("len %d, want %d", tab.used, len(want))
	}
	for p, w := range want {
		if got, ok := tab.get(p.a, p.b, key); !ok || got != w {
			t.Fatalf("get(%d, %d) = %d, %v; want %d", p.a, p.b, got, ok, w)
		}
	}
	if len(tab.entries) > 4*len(want) || 2*tab.used > len(tab.entries) {
		t.Fatalf("%d entries for %d pairs", len(tab.entries), len(want))
	}
}

func TestPairTableEmpty(t *testing.T) {
	var tab pairTable
	items := [][2]int32{{0, 0}}
	key := func(item int32) (int32, int32) { return items[item][0], items[item][1] }
	if _, ok := tab.get(0, 0, key); ok {
		t.Fatal("an empty table found a pair")
	}
	if tab.peek(0, 0) != -1 {
		t.Fatal("an empty table peeked an item")
	}
	tab.add(0, key)
	if v, ok := tab.get(0, 0, key); !ok || v != 0 {
		t.Fatalf("get(0, 0) = %d, %v after filing item 0 under it", v, ok)
	}
	if _, ok := tab.get(0, 1, key); ok {
		t.Fatal("found a pair never filed")
	}
}
