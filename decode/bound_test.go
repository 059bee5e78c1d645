package decode

import (
	"bytes"
	"strings"
	"testing"
	"unicode/utf8"
)

// A long string keeps its two ends around a marker, within the bound and
// cut between runes; two that differ only in their middles stay apart.
func TestBoundString(t *testing.T) {
	if s := BoundString("short", 4096); s != "short" {
		t.Fatal(s)
	}
	long := "com.example." + strings.Repeat("é", 600_000) + ".run"
	b := BoundString(long, 4096)
	if len(b) > 4096 || len(b) < 4000 || !utf8.ValidString(b) || !strings.HasPrefix(b, "com.example.é") || !strings.HasSuffix(b, "é.run") ||
		!strings.Contains(b, " bytes elided #") {
		t.Fatalf("%d bytes: %.80q…%q", len(b), b, b[len(b)-80:])
	}
	other := "com.example." + strings.Repeat("é", 300_000) + "x" + strings.Repeat("é", 299_999) + "é.run"
	if len(other) != len(long)+1 || BoundString(other, 4096) == b {
		t.Fatal("two long names made one")
	}
	if BoundString(long, 4096) != b {
		t.Fatal("not deterministic")
	}
	for _, max := range []int{96, 100, 4097} {
		if s := BoundString(strings.Repeat("ab", 5000), max); len(s) > max {
			t.Fatalf("max %d: %d bytes", max, len(s))
		}
	}
}

// Every decoder bounds the strings of its events: a thread named with a
// megabyte, in both encodings, becomes 4 KiB; with MaxString -1
// (proftop decode) it stays whole.
func TestDecodersBoundStrings(t *testing.T) {
	name := strings.Repeat("n", 1<<20)
	var bin bytes.Buffer
	enc := NewEncoder(&bin, EncoderOptions{})
	enc.Encode(&ThreadStart{ThreadID: 1, ThreadName: name, GroupName: name})
	enc.Encode(&MonContendedEnter{ThreadIDRef: 1, ObjIDRef: 2, Stack: Stack{Methods: []string{"a.B.c", name}, Lines: []int64{1, 2}}})
	enc.Flush()
	var xml bytes.Buffer
	w := NewXMLWriter(&xml)
	w.Write(&ThreadStart{ThreadID: 1, ThreadName: name, GroupName: name})
	w.Write(&MonContendedEnter{ThreadIDRef: 1, ObjIDRef: 2, Stack: Stack{Methods: []string{"a.B.c", name}, Lines: []int64{1, 2}}})
	w.Flush()
	for _, tc := range []struct {
		format Format
		data   []byte
	}{{FormatBinary, bin.Bytes()}, {FormatXML, xml.Bytes()}} {
		for _, max := range []int{0, -1} {
			d := NewDecoder(tc.format, bytes.NewReader(tc.data), Options{MaxString: max})
			ev, err := d.Next()
			if err != nil {
				t.Fatalf("%v: %v", tc.format, err)
			}
			ts := ev.(*ThreadStart)
			want := DefaultMaxString
			if max < 0 {
				want = len(name)
			}
			if len(ts.ThreadName) > want || len(ts.ThreadName) < want-100 || len(ts.GroupName) != len(ts.ThreadName) {
				t.Fatalf("%v, MaxString %d: names of %d and %d bytes", tc.format, max, len(ts.ThreadName), len(ts.GroupName))
			}
			ev, err = d.Next()
			if err != nil {
				t.Fatalf("%v: %v", tc.format, err)
			}
			st := ev.(*MonContendedEnter).Stack
			if len(st.Methods) != 2 || st.Methods[0] != "a.B.c" || len(st.Methods[1]) > want || len(st.Methods[1]) < want-100 {
				t.Fatalf("%v, MaxString %d: frames %d bytes", tc.format, max, len(st.Methods[1]))
			}
		}
	}
}
