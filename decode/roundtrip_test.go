package decode

import (
	"bytes"
	"errors"
	"io"
	"reflect"
	"testing"
	"testing/iotest"
)

func encodeBinary(t testing.TB, evs []Event, opts EncoderOptions) []byte {
	t.Helper()
	var buf bytes.Buffer
	enc := NewEncoder(&buf, opts)
	for _, ev := range evs {
		if err := enc.Encode(ev); err != nil {
			t.Fatalf("encode %s: %v", ev.Kind(), err)
		}
	}
	if err := enc.Flush(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func encodeXML(t testing.TB, evs []Event) []byte {
	t.Helper()
	var buf bytes.Buffer
	w := NewXMLWriter(&buf)
	for _, ev := range evs {
		if err := w.Write(ev); err != nil {
			t.Fatalf("xml %s: %v", ev.Kind(), err)
		}
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// decodeAll reads every event, cloned, until EOF; it fails on any error.
func decodeAll(t testing.TB, d Decoder) []Event {
	t.Helper()
	var out []Event
	for {
		ev, err := d.Next()
		if err == io.EOF {
			return out
		}
		if err != nil {
			t.Fatalf("after %d events: %v", len(out), err)
		}
		out = append(out, Clone(ev))
	}
}

func sameEvents(t *testing.T, got, want []Event) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("got %d events, want %d", len(got), len(want))
	}
	for i := range want {
		if !reflect.DeepEqual(normalize(got[i]), normalize(want[i])) {
			t.Fatalf("event %d:\n got %#v\nwant %#v", i, got[i], want[i])
		}
	}
}

// normalize makes empty and nil stacks compare equal.
func normalize(ev Event) Event {
	sp := specOf(ev.Kind())
	if sp.stack < 0 {
		return ev
	}
	c := Clone(ev)
	st := fieldAt[Stack](sp.base(c), sp.fields[sp.stack].off)
	if len(st.Methods) == 0 {
		st.Methods, st.Lines = nil, nil
	}
	return c
}

func TestEveryKindRoundTripsThroughBinary(t *testing.T) {
	for _, big := range []bool{false, true} {
		for _, k := range wireKinds() {
			if k == KindEncoding {
				continue // switches the charset; covered by TestCharsets
			}
			want := []Event{populated(k, 1), populated(k, 2)}
			switch k {
			case KindUnknown:
				want = []Event{&Unknown{ID: 1099, Size: 17}}
			case KindFrequency:
				want = []Event{&Frequency{Frequency: 2_400_000_000}, &Frequency{Frequency: 1e9}}
			}
			data := encodeBinary(t, want, EncoderOptions{BigEndian: big})
			got := decodeAll(t, NewBinaryDecoder(bytes.NewReader(data), Options{}))
			sameEvents(t, got, want)
		}
	}
}

func TestEveryKindRoundTripsThroughXML(t *testing.T) {
	for _, k := range Kinds() {
		if k == KindUnknown || k == KindEncoding {
			continue
		}
		want := []Event{populated(k, 1), minimal(k)}
		if k == KindFrequency {
			want = []Event{&Frequency{Frequency: 1e9}, &Frequency{Frequency: 1e9}}
		}
		data := encodeXML(t, want)
		got := decodeAll(t, NewXMLDecoder(bytes.NewReader(data), Options{}))
		sameEvents(t, got, want)
	}
}

// A binary message and the equivalent XML element decode to the same value.
func TestBinaryAndXMLDecodeToTheSameEvents(t *testing.T) {
	evs := mixedEvents(3000, 7)
	fromBinary := decodeAll(t, NewBinaryDecoder(bytes.NewReader(encodeBinary(t, evs, EncoderOptions{})), Options{}))
	fromXML := decodeAll(t, NewXMLDecoder(bytes.NewReader(encodeXML(t, evs)), Options{}))
	sameEvents(t, fromXML, fromBinary)
	sameEvents(t, fromBinary, evs)
}

// splitReader returns its data in two reads, the first ending at split.
type splitReader struct {
	data  []byte
	split int
	pos   int
}

func (s *splitReader) Read(p []byte) (int, error) {
	if s.pos == len(s.data) {
		return 0, io.EOF
	}
	end := len(s.data)
	if s.pos < s.split {
		end = s.split
	}
	n := copy(p, s.data[s.pos:end])
	s.pos += n
	return n, nil
}

// Reads may end anywhere: inside a header, a string, an array. Every split
// point must give the same events.
func TestSplitAtEveryOffset(t *testing.T) {
	evs := append([]Event{&Frequency{Frequency: 1e9}}, mixedEvents(40, 3)...)
	for _, tc := range []struct {
		name string
		data []byte
		open func(io.Reader) Decoder
	}{
		{"binary", encodeBinary(t, evs, EncoderOptions{}), func(r io.Reader) Decoder { return NewBinaryDecoder(r, Options{}) }},
		{"binary-big-endian", encodeBinary(t, evs, EncoderOptions{BigEndian: true}), func(r io.Reader) Decoder { return NewBinaryDecoder(r, Options{}) }},
		{"xml", encodeXML(t, evs), func(r io.Reader) Decoder { return NewXMLDecoder(r, Options{}) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			want := decodeAll(t, tc.open(bytes.NewReader(tc.data)))
			sameEvents(t, want, evs)
			for split := 0; split <= len(tc.data); split++ {
				got := decodeAll(t, tc.open(&splitReader{data: tc.data, split: split}))
				if len(got) != len(want) {
					t.Fatalf("split at %d: %d events, want %d", split, len(got), len(want))
				}
			}
			sameEvents(t, decodeAll(t, tc.open(iotest.OneByteReader(bytes.NewReader(tc.data)))), want)
			sameEvents(t, decodeAll(t, tc.open(iotest.HalfReader(bytes.NewReader(tc.data)))), want)
		})
	}
}

var errTimeout = errors.New("i/o timeout")

// flakyReader returns a timeout instead of data every few reads, as a
// socket with a read deadline does.
type flakyReader struct {
	r     io.Reader
	calls int
}

func (f *flakyReader) Read(p []byte) (int, error) {
	f.calls++
	if f.calls%3 == 0 {
		return 0, errTimeout
	}
	if len(p) > 7 {
		p = p[:7]
	}
	return f.r.Read(p)
}

// A reader error in the middle of a message is returned as is; the next
// call resumes without losing or repeating anything.
func TestInterruptedReaderResumes(t *testing.T) {
	evs := mixedEvents(200, 11)
	for _, tc := range []struct {
		name string
		data []byte
		open func(io.Reader) Decoder
	}{
		{"binary", encodeBinary(t, evs, EncoderOptions{}), func(r io.Reader) Decoder { return NewBinaryDecoder(r, Options{}) }},
		{"xml", encodeXML(t, evs), func(r io.Reader) Decoder { return NewXMLDecoder(r, Options{}) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := tc.open(&flakyReader{r: bytes.NewReader(tc.data)})
			var got []Event
			timeouts := 0
			for {
				ev, err := d.Next()
				if err == io.EOF {
					break
				}
				if errors.Is(err, errTimeout) {
					timeouts++
					continue
				}
				if err != nil {
					t.Fatal(err)
				}
				got = append(got, Clone(ev))
			}
			if timeouts == 0 {
				t.Fatal("the reader never timed out: the test proves nothing")
			}
			sameEvents(t, got, evs)
		})
	}
}

func TestBatchOwnsItsEvents(t *testing.T) {
	evs := mixedEvents(500, 5)
	d := NewBinaryDecoder(bytes.NewReader(encodeBinary(t, evs, EncoderOptions{})), Options{})
	var b Batch
	for {
		ev, err := d.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		b.Add(ev)
	}
	sameEvents(t, b.Events(), evs)
	b.Reset()
	if b.Len() != 0 {
		t.Fatalf("Len after Reset = %d", b.Len())
	}
	// Reused, the batch must give the same again.
	d = NewBinaryDecoder(bytes.NewReader(encodeBinary(t, evs, EncoderOptions{})), Options{})
	for {
		ev, err := d.Next()
		if err == io.EOF {
			break
		}
		b.Add(ev)
	}
	sameEvents(t, b.Events(), evs)
}

func TestTimeOfAnEvent(t *testing.T) {
	if tm, ok := Time(&MonWait{MonitorWait{Time: 42}}); !ok || tm != 42 {
		t.Fatalf("%d %v", tm, ok)
	}
	if tm, ok := Time(&GCStart{ThreadMoment{Time: 7}}); !ok || tm != 7 {
		t.Fatalf("%d %v", tm, ok)
	}
	if _, ok := Time(&MethodDef{}); ok {
		t.Fatal("methodDef has no time")
	}
}

// Timeouts inside a header extension do not lose the decoder's place.
func TestHeaderExtensionResumesAfterTimeouts(t *testing.T) {
	var buf bytes.Buffer
	enc := NewEncoder(&buf, EncoderOptions{HeaderExtension: []byte("an extension of some length")})
	want := []Event{&Custom{Body: "one"}, &Custom{Body: "two"}}
	for _, ev := range want {
		enc.Encode(ev)
	}
	enc.Flush()
	d := NewBinaryDecoder(&flakyReader{r: iotest.OneByteReader(bytes.NewReader(buf.Bytes()))}, Options{})
	var got []Event
	for {
		ev, err := d.Next()
		if err == io.EOF {
			break
		}
		if errors.Is(err, errTimeout) {
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, Clone(ev))
	}
	sameEvents(t, got, want)
}
