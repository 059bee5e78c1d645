package state

import (
	"fmt"
	"math/rand/v2"
	"strconv"
	"testing"
)

// TestNameIndexAgreesWithAMap files, refiles and removes slots under
// random names, many of them alike, in a nameIndex and in a map, through
// several growths and runs of removals, and checks after every step that
// both find the same for names filed and for names never filed.
func TestNameIndexAgreesWithAMap(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	var x nameIndex
	var names []string // slot -> its name
	of := func(slot int32) string { return names[slot] }
	want := map[string]int32{}
	draw := func() string {
		if r.IntN(4) == 0 {
			return strconv.Itoa(r.IntN(40)) // few: refiled and removed often
		}
		return "com.example.Service" + strconv.Itoa(r.IntN(3000)) + ".op" + strconv.Itoa(r.IntN(30))
	}
	for i := range 300_000 {
		name := draw()
		switch op := r.IntN(10); {
		case op < 5: // file a new slot under it, in place of any before
			slot := int32(len(names))
			names = append(names, name)
			x.set(name, slot, of)
			want[name] = slot
		case op < 8:
			x.remove(name, of)
			delete(want, name)
		}
		got, ok := x.get(name, of)
		w, wok := want[name]
		if ok != wok || (ok && got != w) {
			t.Fatalf("step %d: get(%q) = %d, %v; want %d, %v", i, name, got, ok, w, wok)
		}
		if gotB, okB := x.getBytes([]byte(name), of); okB != ok || gotB != got {
			t.Fatalf("step %d: getBytes(%q) = %d, %v; get gave %d, %v", i, name, gotB, okB, got, ok)
		}
	}
	if x.used != len(want) {
		t.Fatalf("used %d, want %d", x.used, len(want))
	}
	for name, w := range want {
		if got, ok := x.get(name, of); !ok || got != w {
			t.Fatalf("get(%q) = %d, %v; want %d", name, got, ok, w)
		}
	}
	if 2*x.used > len(x.entries) {
		t.Fatalf("%d entries for %d names: more than half full", len(x.entries), x.used)
	}
}

// TestNameIndexRenamedSlot: a slot whose name changed after it was filed
// is found by neither name, and its entry does not stop the new name
// being filed, found and removed.
func TestNameIndexRenamedSlot(t *testing.T) {
	var x nameIndex
	names := []string{"class#5.run", "com.example.Other.run"}
	of := func(slot int32) string { return names[slot] }
	x.set(names[0], 0, of)
	x.set(names[1], 1, of)
	names[0] = "com.example.Job.run" // its class named since
	if _, ok := x.get("class#5.run", of); ok {
		t.Error("the old name still finds the renamed slot")
	}
	if _, ok := x.get("com.example.Job.run", of); ok {
		t.Error("the new name finds a slot never filed under it")
	}
	x.set("com.example.Job.run", 0, of)
	if got, ok := x.get("com.example.Job.run", of); !ok || got != 0 {
		t.Errorf("get(new name) = %d, %v; want 0", got, ok)
	}
	x.remove("com.example.Job.run", of)
	if _, ok := x.get("com.example.Job.run", of); ok {
		t.Error("a removed name is still found")
	}
	if got, ok := x.get("com.example.Other.run", of); !ok || got != 1 {
		t.Errorf("get(other) = %d, %v; want 1", got, ok)
	}
}

func TestNameIndexEmpty(t *testing.T) {
	var x nameIndex
	of := func(int32) string { t.Fatal("an empty index read a name"); return "" }
	if _, ok := x.get("a", of); ok {
		t.Error("found a name in an empty index")
	}
	if _, ok := x.getBytes([]byte("a"), of); ok {
		t.Error("found a name in an empty index")
	}
	x.remove("a", of)
}

// A name being built is looked up without a copy of it: a method's key is
// longer than the 32 bytes a conversion may keep on the stack.
func TestNameIndexGetBytesAllocatesNothing(t *testing.T) {
	var x nameIndex
	names := []string{"com.example.module7.Service1234.operation56789(Ljava/lang/String;)V:42"}
	of := func(slot int32) string { return names[slot] }
	x.set(names[0], 0, of)
	b := []byte(names[0])
	if n := testing.AllocsPerRun(100, func() {
		if _, ok := x.getBytes(b, of); !ok {
			t.Fatal("not found")
		}
	}); n != 0 {
		t.Fatalf("%v allocations a lookup", n)
	}
}

// methodIndexFaults checks the method table's indexes: every key in byKey
// finds a live slot whose key it is, filed under that key's hash; used
// slots of either index are counted right; and following the merges from
// any slot ends, at a live slot.
func methodIndexFaults(mt *methodTable) error {
	for name, x := range map[string]*nameIndex{"byKey": &mt.byKey, "byDisplay": &mt.byDisplay} {
		used := 0
		for _, e := range x.entries {
			if e.slot == 0 {
				continue
			}
			used++
			slot := e.slot - 1
			if int(slot) >= mt.stats.len() {
				return fmt.Errorf("%s: slot %d of %d", name, slot, mt.stats.len())
			}
			if name != "byKey" {
				continue
			}
			if mt.stats.at(slot).dead {
				return fmt.Errorf("byKey finds slot %d, merged into %d", slot, mt.info.at(slot).into)
			}
			if key := mt.keyOf(slot); x.hashString(key) != e.hash {
				return fmt.Errorf("byKey files slot %d under another hash than its key %q", slot, key)
			}
		}
		if used != x.used {
			return fmt.Errorf("%s counts %d entries, holds %d", name, x.used, used)
		}
	}
	for slot := range mt.stats.len() {
		s := int32(slot)
		for steps := 0; mt.stats.at(s).dead; steps++ {
			if steps > mt.stats.len() {
				return fmt.Errorf("the merges from slot %d go round", slot)
			}
			s = mt.info.at(s).into
		}
	}
	return nil
}
