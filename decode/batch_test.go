package decode

import (
	"bytes"
	"io"
	"testing"
)

// A batch reused for fills of every size (a burst, then small ones, then
// a burst again) gives back exactly what was put in; the chunks the burst
// needed are let go once trimEvery to twice as many small fills have not
// needed them, and small fills cost small chunks.
func TestBatchReuseAcrossFillSizes(t *testing.T) {
	evs := mixedEvents(3000, 9)
	var b Batch
	fill := func(n int) {
		t.Helper()
		b.Reset()
		d := NewBinaryDecoder(bytes.NewReader(encodeBinary(t, evs[:n], EncoderOptions{})), Options{})
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
		sameEvents(t, b.Events(), evs[:n])
	}
	slots := func() (n int) {
		for _, a := range b.arenas {
			if a == nil {
				continue
			}
			v := a.(interface{ slots() int })
			n += v.slots()
		}
		return n
	}
	fill(len(evs))
	burst := slots()
	if burst < len(evs) {
		t.Fatalf("%d slots for %d events", burst, len(evs))
	}
	for range 2 * trimEvery {
		fill(10)
	}
	if small := slots(); small > 10*firstChunk {
		t.Fatalf("after small fills the batch still holds %d slots (the burst held %d)", small, burst)
	}
	fill(len(evs))
	fill(1)
}

// slots is the events the arena can hold without growing.
func (a *arenaOf[T, PT]) slots() (n int) {
	for _, c := range a.chunks {
		n += len(c)
	}
	return n
}

// BenchmarkBatchAdd fills a batch with 4,096 events of the realistic mix
// and resets it, as the client's decoding goroutine does.
func BenchmarkBatchAdd(b *testing.B) {
	evs := mixedEvents(4096, 3)
	var batch Batch
	b.ReportAllocs()
	for b.Loop() {
		batch.Reset()
		for _, ev := range evs {
			batch.Add(ev)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(evs)), "ns/event")
}

// A batch holds as many events of a kind as it is given: its arena's
// chunk size was 16 shifted by the chunk's number, negative from the
// 60th chunk (about 15,000 events of one kind), and the batch panicked.
func TestBatchHoldsManyEventsOfAKind(t *testing.T) {
	var b Batch
	const n = 100_000
	for i := range n {
		b.Add(&MethodEntry{Ticket: int32(i)})
	}
	if b.Len() != n {
		t.Fatalf("%d events of %d", b.Len(), n)
	}
	for i, ev := range b.Events() {
		if e, ok := ev.(*MethodEntry); !ok || e.Ticket != int32(i) {
			t.Fatalf("event %d: %+v", i, ev)
		}
	}
}
