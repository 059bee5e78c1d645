package decode

import (
	"bytes"
	"io"
	"reflect"
	"testing"
)

// AppendNext gives what Next and then Add give, whether an event is
// decoded in place or copied, into batches reused after Reset (their
// storage holding the events of the fill before) and handed over between
// two events, as a live client sends its batch before it waits.
func TestAppendNextMatchesNextAndAdd(t *testing.T) {
	evs := mixedEvents(6000, 11)
	for _, big := range []bool{false, true} {
		data := encodeBinary(t, evs, EncoderOptions{BigEndian: big})
		var want Batch
		for _, ev := range decodeAll(t, NewBinaryDecoder(bytes.NewReader(data), Options{})) {
			want.Add(ev)
		}

		var batches [2]Batch
		cur := 0
		asked := 0
		batch := func() *Batch { asked++; return &batches[cur] }
		d := NewBinaryDecoder(bytes.NewReader(data), Options{})
		placed, n := 0, 0
		check := func() {
			got := batches[cur].Events()
			if !reflect.DeepEqual(got, want.Events()[n:n+len(got)]) {
				t.Fatalf("big-endian %v: the batch of events %d to %d differs from Next and Add", big, n, n+len(got))
			}
			n += len(got)
			batches[cur].Reset()
			cur = 1 - cur
		}
		appendAll(t, d, batch, func() {
			if d.placed {
				placed++
			}
			if batches[cur].Len() == 377 {
				check()
			}
		})
		check()
		if n != want.Len() {
			t.Fatalf("big-endian %v: %d events appended, %d decoded", big, n, want.Len())
		}
		if asked < n {
			t.Fatalf("the batch was asked for %d times for %d events", asked, n)
		}
		if big && placed > 0 || !big && placed < n/3 {
			t.Fatalf("big-endian %v: %d of %d events decoded in place", big, placed, n)
		}
	}
}

// appendAll appends every event with AppendNext until EOF, calling after
// once each is in; it fails on any error.
func appendAll(t *testing.T, d *BinaryDecoder, batch func() *Batch, after func()) {
	t.Helper()
	for {
		err := d.AppendNext(batch)
		if err == io.EOF {
			return
		}
		if err != nil {
			t.Fatal(err)
		}
		after()
	}
}

// countingReader hands out one byte a read, counting the reads.
type countingReader struct {
	data  []byte
	reads int
}

func (r *countingReader) Read(p []byte) (int, error) {
	r.reads++
	if len(r.data) == 0 {
		return 0, io.EOF
	}
	if len(p) == 0 {
		return 0, nil
	}
	p[0], r.data = r.data[0], r.data[1:]
	return 1, nil
}

// The batch is asked for only once the event's bytes have all been read:
// a read may wait, and a live client sends its batch before it waits.
func TestAppendNextAsksForTheBatchAfterReading(t *testing.T) {
	r := &countingReader{data: encodeBinary(t, mixedEvents(500, 3), EncoderOptions{})}
	d := NewBinaryDecoder(r, Options{})
	var b Batch
	readsWhenAsked := -1
	batch := func() *Batch { readsWhenAsked = r.reads; return &b }
	appendAll(t, d, batch, func() {
		if readsWhenAsked != r.reads {
			t.Fatalf("event %d: the batch was asked for after read %d, the event's last read was %d", b.Len(), readsWhenAsked, r.reads)
		}
	})
	if b.Len() != 500 {
		t.Fatalf("%d events", b.Len())
	}
}

// A stack seen before is added in place with the stack table's names, full
// so that an append by a consumer copies them; the lines are the event's.
func TestAppendNextSharesKnownStacks(t *testing.T) {
	st := Stack{Methods: []string{"a.B.c", "d.E.f"}, Lines: []int64{1, 2}}
	var evs []Event
	for i := range 4 {
		evs = append(evs, &MonContendedEnter{ThreadIDRef: int64(i), Stack: Stack{Methods: st.Methods, Lines: []int64{int64(i), 2}}})
	}
	d := NewBinaryDecoder(bytes.NewReader(encodeBinary(t, evs, EncoderOptions{})), Options{})
	var b Batch
	placed := 0
	for range evs {
		if err := d.AppendNext(func() *Batch { return &b }); err != nil {
			t.Fatal(err)
		}
		if d.placed {
			placed++
		}
	}
	if placed != 2 {
		t.Fatalf("%d events placed: a stack is remembered on its second sighting, so the last two should be", placed)
	}
	if !reflect.DeepEqual(b.Events(), evs) {
		t.Fatalf("got %+v", b.Events())
	}
	last := b.Events()[3].(*MonContendedEnter)
	if cap(last.Stack.Methods) != len(last.Stack.Methods) {
		t.Fatal("a shared stack's names have room after them: an append would write into the table")
	}
}
