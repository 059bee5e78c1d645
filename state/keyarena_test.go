package state

import (
	"strconv"
	"strings"
	"testing"

	"github.com/proftop/proftop/decode"
)

func TestKeyArenaKeepsCopiesThatOutliveTheirBuffer(t *testing.T) {
	var a keyArena
	var kept []string
	buf := []byte{}
	for i := range 5000 { // several chunks
		buf = append(buf[:0], "com.example.Service.operation"...)
		buf = strconv.AppendInt(buf, int64(i), 10)
		kept = append(kept, a.keep(buf))
	}
	long := strings.Repeat("x", keyChunk/16+1)
	kept = append(kept, a.keep([]byte(long)), a.keep(nil))
	for i, k := range kept[:5000] {
		if want := "com.example.Service.operation" + strconv.Itoa(i); k != want {
			t.Fatalf("key %d: %q, want %q", i, k, want)
		}
	}
	if kept[5000] != long || kept[5001] != "" {
		t.Fatal("a long key or an empty one is not kept as it was")
	}
}

// Defining the same methods again (a new stream) keeps no more key bytes:
// a known method's key is the one kept already.
func TestRedefinedMethodsKeepNoNewKeys(t *testing.T) {
	a := New(Options{})
	defs := []decode.Event{&decode.ClassDef{ClassID: 1, Name: "com.acme.Cache"}}
	for m := range 100 {
		defs = append(defs, &decode.MethodDef{Name: "op" + strconv.Itoa(m), ClassIDRef: 1, MethodID: int64(m + 1), StartLineNumber: 7})
	}
	a.Apply(defs, 1, decode.Clock{}, t0)
	used := len(a.methods.keys.chunk)
	a.Apply(defs, 2, decode.Clock{}, t0)
	if got := len(a.methods.keys.chunk); got != used {
		t.Fatalf("%d key bytes kept after defining the methods again, %d before", got, used)
	}
	slot, _ := a.methods.ids.get(42)
	if got := a.methods.name(slot); got != "com.acme.Cache.op41" {
		t.Fatalf("method 42 is named %q", got)
	}
}
