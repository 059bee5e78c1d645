package decode

import (
	"bytes"
	"testing"
)

// A sample written before its flags existed (the JVM agent's, older
// recordings) decodes with no flags, even after one that had them: the
// attributes added at the end are optional; one of a later writer, with
// attributes after those this decoder knows, decodes too.
func TestSampleWithoutFlagsFromAnEarlierWriter(t *testing.T) {
	body := func(flags ...[]byte) [][]byte {
		b := [][]byte{le64(7), le64(100), le64(3), le64(50), le32(1), cstr("a.B.c"), le64(12)}
		return append(b, flags...)
	}
	data := stream(
		rawMessage(1100, 0, body(le32(SampleCalls|SampleAggregate))...),
		rawMessage(1100, 0, body()...),
		rawMessage(1100, 0, body(le32(SampleAggregate|SampleTotal), le64(40), le64(0), le64(0), []byte("later"))...),
	)
	evs := drain(t, NewBinaryDecoder(bytes.NewReader(data), Options{}))
	if len(evs) != 3 {
		t.Fatalf("%d events", len(evs))
	}
	for i, want := range []int32{SampleCalls | SampleAggregate, 0, SampleAggregate | SampleTotal} {
		s := evs[i].(*Sample)
		if s.Flags != want || s.Count != 3 || s.Stack.Methods[0] != "a.B.c" || s.Total != []Ticks{0, 0, 40}[i] {
			t.Errorf("sample %d: %+v, want flags %d", i, s, want)
		}
	}
	// A body cut inside an attribute that is not optional stays an error.
	short := stream(rawMessage(1100, 0, le64(7), le64(100)))
	d := NewBinaryDecoder(bytes.NewReader(short), Options{})
	if _, err := d.Next(); err == nil {
		t.Fatal("a sample without its count decodes")
	}
}
