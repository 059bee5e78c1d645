package state

import "testing"

func TestCallerListsAreMadeForCalledMethodsOnly(t *testing.T) {
	var c callerLists
	for range 5 {
		c.add()
	}
	if c.len() != 5 || c.get(3) != nil {
		t.Fatalf("len %d, slot 3 %v", c.len(), c.get(3))
	}
	*c.list(3) = append(*c.list(3), callerCount{slot: 1, calls: 2})
	*c.list(1) = append(*c.list(1), callerCount{slot: 4, calls: 1})
	*c.list(3) = append(*c.list(3), callerCount{slot: 2, calls: 5})
	if len(c.lists) != 2 {
		t.Fatalf("%d lists made for two called slots", len(c.lists))
	}
	if got := c.get(3); len(got) != 2 || got[0] != (callerCount{1, 2}) || got[1] != (callerCount{2, 5}) {
		t.Fatalf("slot 3: %v", got)
	}
	if got := c.get(1); len(got) != 1 || got[0] != (callerCount{4, 1}) {
		t.Fatalf("slot 1: %v", got)
	}
	c.reset()
	if len(c.get(3)) != 0 || len(c.get(1)) != 0 || c.get(0) != nil {
		t.Fatal("lists not emptied by reset")
	}
}

// Past maxCallers callers, the least frequent one makes way, and the
// drill-in lists the callers most frequent first.
func TestCalledKeepsTheMostFrequentCallers(t *testing.T) {
	var mt methodTable
	mt.init(10e9, 100)
	for i := range maxCallers + 2 {
		mt.newSlot(provisionalText(string(rune('a'+i))), string(rune('a'+i)), 1)
	}
	callee := int32(0)
	for caller := int32(1); caller <= maxCallers; caller++ {
		mt.called(callee, caller, int64(caller))
	}
	mt.called(callee, maxCallers+1, 100) // takes the place of caller 1, the least frequent
	got := mt.callersOf(callee)
	if len(got) != maxCallers || got[0].Name != string(rune('a'+maxCallers+1)) || got[0].Calls != 101 {
		t.Fatalf("%+v", got)
	}
	for _, c := range got {
		if c.Name == "b" {
			t.Fatalf("caller 1 still listed: %+v", got)
		}
	}
}
