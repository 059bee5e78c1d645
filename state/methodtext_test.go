package state

import (
	"testing"

	"github.com/proftop/proftop/decode"
)

func TestMethodTextSlicesItsString(t *testing.T) {
	key := methodKey("com.example.Service", "run", "(I)V", 42)
	for _, tc := range []struct {
		what           string
		text           methodText
		key, name, sig string
	}{
		{"defined", keyText(key, len("com.example.Service"), len("run"), len("(I)V")), key, "run", "(I)V"},
		{"defined, no signature", keyText("a.b:0", 1, 1, 0), "a.b:0", "b", ""},
		{"provisional", provisionalText("\x00method#7\x000"), "\x00method#7\x000", "", ""},
		{"frame", frameText("pkg.Class.method(I)V", len("pkg.Class.method"), len("pkg.Class.")), "", "method", "(I)V"},
		{"frame without a dot", frameText("<main>", len("<main>"), len("<main>")), "", "", ""},
	} {
		tx := tc.text
		if tx.key() != tc.key || tx.name() != tc.name || tx.sig() != tc.sig {
			t.Errorf("%s: key %q name %q sig %q, want %q %q %q", tc.what, tx.key(), tx.name(), tx.sig(), tc.key, tc.name, tc.sig)
		}
	}
}

// A method defined before its class keeps its name and signature, read
// from its key, when the class's name arrives and the key changes.
func TestMethodTextFollowsItsClassDefinition(t *testing.T) {
	a := New(Options{})
	feed(a,
		&decode.MethodDef{Name: "get", Signature: "(I)V", ClassIDRef: 1, MethodID: 10, StartLineNumber: 40},
		&decode.ClassDef{ClassID: 1, Name: "com.acme.Cache"},
	)
	mt := &a.methods
	slot, ok := mt.ids.get(10)
	if !ok {
		t.Fatal("method 10 has no slot")
	}
	tx := mt.texts.at(slot)
	if want := methodKey("com.acme.Cache", "get", "(I)V", 40); tx.key() != want || tx.name() != "get" || tx.sig() != "(I)V" {
		t.Fatalf("key %q name %q sig %q, want %q get (I)V", tx.key(), tx.name(), tx.sig(), want)
	}
	if got := mt.name(slot); got != "com.acme.Cache.get" {
		t.Fatalf("display name %q", got)
	}
}
