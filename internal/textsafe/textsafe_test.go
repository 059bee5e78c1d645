package textsafe

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestInert(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"plain ascii", "plain ascii"},
		{"evil\x1b]0;x\x07", `evil\x1b]0;x\x07`},
		{"line\nbreak\ttab", `line\x0abreak\x09tab`},
		{"c1 \u009b31m", `c1 \x9b31m`},
		{"名前\u202e\xff", `名前\u202e\xff`},
		{"zero\u200bwidth\u2066isolate", `zero\u200bwidth\u2066isolate`},
		{"café ünïcode", "café ünïcode"},
	} {
		if got := Inert(tc.in); got != tc.want {
			t.Errorf("Inert(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// JSON escaped by EscapeJSON decodes to the same values, and holds
// nothing a terminal would act on.
func TestEscapeJSON(t *testing.T) {
	for _, s := range []string{"plain", "c1 \u009b31m and \u0085", "bidi \u202egnp.exe", "isolate \u2067x\u2069", "bom \ufeff", "ls \u2028 ps \u2029", "名前", "del \x7f here"} {
		doc, err := json.Marshal(map[string]string{"name": s})
		if err != nil {
			t.Fatal(err)
		}
		out := EscapeJSON(doc)
		var back map[string]string
		if err := json.Unmarshal(out, &back); err != nil || back["name"] != s {
			t.Fatalf("%q: %s decodes to %q, %v", s, out, back["name"], err)
		}
		if r, ok := firstDangerous(out); ok {
			t.Fatalf("%q: %s still holds %U", s, out, r)
		}
	}
	clean := []byte(`{"a":"b"}`)
	if out := EscapeJSON(clean); &out[0] != &clean[0] {
		t.Fatal("a clean document was copied")
	}
}

func firstDangerous(b []byte) (rune, bool) {
	for _, r := range string(b) {
		if Dangerous(r) || r < 0x20 || r == 0x7f {
			return r, true
		}
	}
	return 0, false
}

func FuzzEscapeJSON(f *testing.F) {
	for _, s := range []string{"", "a\u202eb", "\x7f", "\u0085\u009f", "\xff\xfe", `"quoted\"`, "名\u2028"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		doc, err := json.Marshal([]string{s})
		if err != nil {
			t.Skip()
		}
		out := EscapeJSON(doc)
		var back []string
		if err := json.Unmarshal(out, &back); err != nil {
			t.Fatalf("%q: %s is not JSON: %v", s, out, err)
		}
		var want strings.Builder // encoding/json's: each invalid byte a U+FFFD
		for _, r := range s {
			want.WriteRune(r)
		}
		if len(back) != 1 || back[0] != want.String() {
			t.Fatalf("%q: %s decodes to %q", s, out, back)
		}
		if r, ok := firstDangerous(out); ok {
			t.Fatalf("%q: %s holds %U", s, out, r)
		}
		if in := Inert(s); !utf8.ValidString(in) {
			t.Fatalf("Inert(%q) = %q, not UTF-8", s, in)
		}
		if r, ok := firstDangerous([]byte(Inert(s))); ok {
			t.Fatalf("Inert(%q) holds %U", s, r)
		}
	})
}
