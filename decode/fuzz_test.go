package decode

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

var writeCorpus = flag.Bool("write-fuzz-corpus", false, "rewrite the checked-in seed corpora under testdata/fuzz")

// drain decodes until the end or a fatal error, checking the error contract;
// it returns clones of the events.
func drain(t *testing.T, d Decoder) []Event {
	var out []Event
	for range 100000 {
		ev, err := d.Next()
		if err == io.EOF {
			return out
		}
		if err != nil {
			var de *Error
			if !errors.As(err, &de) {
				t.Fatalf("error of type %T: %v", err, err)
			}
			if de.Offset < 0 {
				t.Fatalf("negative offset: %v", err)
			}
			if de.Fatal {
				if _, again := d.Next(); again == nil {
					t.Fatalf("a fatal error did not stick: %v", err)
				}
				return out
			}
			continue
		}
		out = append(out, Clone(ev))
	}
	t.Fatal("the decoder does not come to an end")
	return nil
}

// reencode checks that the decoded events survive a trip through both
// encoders unchanged.
func reencode(t *testing.T, evs []Event) {
	var wire, xml []Event
	for _, ev := range evs {
		switch u, _ := ev.(*Unknown); {
		case ev.Kind() == KindEncoding || ev.Kind() == KindFrequency:
			continue // they change how what follows is read
		case u != nil && u.Element == "":
			wire = append(wire, ev)
		case u != nil:
			xml = append(xml, ev)
		default:
			wire = append(wire, ev)
			xml = append(xml, ev)
		}
	}
	var bin bytes.Buffer
	enc := NewEncoder(&bin, EncoderOptions{})
	for _, ev := range wire {
		if err := enc.Encode(ev); err != nil {
			t.Fatalf("cannot re-encode %#v: %v", ev, err)
		}
	}
	enc.Flush()
	if got := drain(t, NewBinaryDecoder(&bin, Options{})); !sameValues(got, wire) {
		t.Fatalf("binary re-encoding changed\n%#v\ninto\n%#v", wire, got)
	}
	var text bytes.Buffer
	w := NewXMLWriter(&text)
	for _, ev := range xml {
		if err := w.Write(ev); err != nil {
			t.Fatalf("cannot write %#v as XML: %v", ev, err)
		}
	}
	w.Flush()
	if got := drain(t, NewXMLDecoder(&text, Options{})); !sameValues(got, xml) {
		t.Fatalf("XML re-encoding changed\n%#v\ninto\n%#v\n%s", xml, got, text.String())
	}
}

func sameValues(a, b []Event) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if !reflect.DeepEqual(normalize(a[i]), normalize(b[i])) {
			return false
		}
	}
	return true
}

func binarySeeds(t testing.TB) [][]byte {
	evs := mixedEvents(60, 1)
	all := encodeBinary(t, evs, EncoderOptions{})
	return append([][]byte{
		all,
		encodeBinary(t, mixedEvents(20, 2), EncoderOptions{BigEndian: true}),
		encodeBinary(t, []Event{&Encoding{Encoding: "KOI8-R"}, &Custom{Body: "Привет"}, &Frequency{Frequency: 3}}, EncoderOptions{}),
		stream(rawMessage(1035, 0, enteredBody(1000, cstr("a.b"), le64(3)))),
		stream(rawMessage(1009, 5)),
		stream(rawMessage(30000, 0, le64(42)), rawMessage(1004, 0, cstr("a"), le64(9), []byte("extra"))),
		[]byte("0TBF\x01\x00\x01\x01\x10\x00\x00\x00abcd"),
		encodeBinary(t, append(telemetryEvents(), &Custom{Body: "proftop:telemetryValue/1?series=x"}), EncoderOptions{}),
		encodeBinary(t, virtualEvents(), EncoderOptions{}),
		// A threadState of 1.1, ending before the attributes 1.2 appended.
		stream(rawMessage(1101, 0, le64(5), le64(100), cstr("parked"), le32(0), le64(0x1234), cstr("a.B"), le64(9), le64(-1), le32(0))),
	}, stackSeeds(t)...)
}

// virtualEvents are the messages of a listing of virtual threads.
func virtualEvents() []Event {
	return []Event{populated(KindThreadState, 3), populated(KindThreadGroup, 4), populated(KindVirtualThreads, 5),
		populated(KindSourceNote, 6), populated(KindVirtualPinned, 7)}
}

func xmlSeeds(t testing.TB) [][]byte {
	return [][]byte{
		encodeXML(t, mixedEvents(60, 1)),
		[]byte(`<?xml version="1.0" encoding="KOI8-R"?><TRACE><custom body="` + "\xf0\xd2" + `"/></TRACE>`),
		[]byte(`<TRACE><monWait threadIdRef="3" time="5.5" stackDepth="1"><frame method="a&amp;b" line="8"/></monWait><x y="&#x41;"><z/></x>`),
		[]byte(`<!-- c --><!DOCTYPE T [<!ENTITY a "b">]><TRACE><![CDATA[<x>]]><threadEnd threadIdRef="1"/></TRACE><TRACE>`),
		[]byte(`<TRACE><threadEnd threadIdRef=1/>`),
		encodeXML(t, append(telemetryEvents(), &Custom{Body: "proftop:probe/1?probe=p&frame=x"})),
		encodeXML(t, virtualEvents()),
		[]byte("<?xml version=\"1.0\"?>\n<root><threadEnd threadIdRef=\"1\"/></root>"),
		[]byte(`<TRACE><threadEnd threadIdRef="1" threadIdRef="2" time="1.0"/><threadEnd threadIdRef="3"/>`),
	}
}

func FuzzBinaryDecoder(f *testing.F) {
	for _, s := range binarySeeds(f) {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		reencode(t, drain(t, NewBinaryDecoder(bytes.NewReader(data), Options{MaxMessageSize: 1 << 20})))
		// The stack table changes nothing but the speed.
		with := transcript(NewBinaryDecoder(bytes.NewReader(data), Options{MaxMessageSize: 1 << 20}))
		if without := transcript(perFrame(data)); !reflect.DeepEqual(with, without) {
			t.Fatalf("with the stack table\n%v\nframe by frame\n%v", with, without)
		}
	})
}

func FuzzXMLDecoder(f *testing.F) {
	for _, s := range xmlSeeds(f) {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		reencode(t, drain(t, NewXMLDecoder(bytes.NewReader(data), Options{MaxMessageSize: 1 << 20})))
	})
}

// TestWriteFuzzCorpus refreshes the checked-in seed corpora (go test
// -run WriteFuzzCorpus -write-fuzz-corpus).
func TestWriteFuzzCorpus(t *testing.T) {
	if !*writeCorpus {
		t.Skip("only with -write-fuzz-corpus")
	}
	for name, seeds := range map[string][][]byte{"FuzzBinaryDecoder": binarySeeds(t), "FuzzXMLDecoder": xmlSeeds(t)} {
		dir := filepath.Join("testdata", "fuzz", name)
		// Only the seeds are rewritten: inputs the fuzzer found stay.
		old, _ := filepath.Glob(filepath.Join(dir, "seed-*"))
		for _, f := range old {
			os.Remove(f)
		}
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		for i, s := range seeds {
			body := fmt.Sprintf("go test fuzz v1\n[]byte(%q)\n", s)
			if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("seed-%02d", i)), []byte(body), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
}
