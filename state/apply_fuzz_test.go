package state

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"testing"
	"time"

	"github.com/proftop/proftop/decode"
)

// FuzzApply feeds whatever a binary stream decodes to through the
// aggregator, in runs of events as a source hands them over, with the
// snapshots the interface takes (a page of methods, and every row): no
// input may make it panic, however its threads, methods, monitors and
// stacks refer to each other (ids never defined, negative, reused; calls
// that never end; waits on thousands of objects), the monitor table's
// lists must agree with its map, the method table's indexes must find
// live slots by their keys, and thread rows brought up to date must equal
// rows made anew. The call tree, the thread index and
// reading ahead (warm.go) are on this path.
func FuzzApply(f *testing.F) {
	if data, err := os.ReadFile("../testdata/sample.trcbin"); err == nil {
		f.Add(data)
	}
	f.Add(fuzzApplySeed())
	f.Fuzz(func(t *testing.T, data []byte) {
		d := decode.NewBinaryDecoder(bytes.NewReader(data), decode.Options{})
		a := New(Options{MaxThreads: 64, MaxMethods: 256, MaxMonitors: 32, MaxTreeNodes: 128, TraceTime: true})
		page := MethodPage{Key: BySelf, Descending: true, Rank: -1, Rows: 10}
		var batch decode.Batch
		at := t0
		flush := func() {
			a.Apply(batch.Events(), 1, d.Clock(), at)
			batch.Reset()
			at = at.Add(700 * time.Millisecond)
			q := page
			paged := Query{Recent: true, CallersOf: 0, Methods: &q}
			s := a.Snapshot(at, paged)
			if err := threadRowFaults(a, s, paged); err != nil {
				t.Fatal(err)
			}
			// Released last: the next paged snapshot brings its thread rows up to date.
			a.Release(a.Snapshot(at, Query{CallersOf: -1, AllStacks: true}))
			a.Release(s)
			if err := monitorListFaults(&a.monitors); err != nil {
				t.Fatal(err)
			}
			if err := methodIndexFaults(&a.methods); err != nil {
				t.Fatal(err)
			}
		}
		for n := 0; n < 20_000; n++ {
			ev, err := d.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				var de *decode.Error
				if errors.As(err, &de) && !de.Fatal {
					continue
				}
				break
			}
			batch.Add(ev)
			if batch.Len() == 50 {
				flush()
			}
		}
		flush()
	})
}

// fuzzApplySeed is a stream in which method calls, monitors, waits and
// samples of a few threads interleave, some ids never defined, a class
// named twice.
func fuzzApplySeed() []byte {
	var buf bytes.Buffer
	enc := decode.NewEncoder(&buf, decode.EncoderOptions{})
	st := decode.Stack{Methods: []string{"a.B.c", "a.B.d", "a.E.f"}, Lines: []int64{1, 2, 3}}
	evs := []decode.Event{&decode.ClassDef{ClassID: 1, Name: "a.B"}}
	for m := range 6 {
		evs = append(evs, &decode.MethodDef{Name: fmt.Sprintf("m%d", m), ClassIDRef: int64(m%2 + 1), MethodID: int64(m + 1)})
	}
	now := decode.Ticks(1_000_000)
	for i := range 60 {
		th := int64(i%4 + 1)
		now += 1000
		evs = append(evs, &decode.MethodEntry{ThreadIDRef: th, MethodIDRef: int64(i%7 + 1), Ticket: int32(i), Time: now})
		switch i % 5 {
		case 0:
			evs = append(evs, &decode.MonContendedEnter{ThreadIDRef: th, ObjIDRef: int64(i%3 + 10), ThreadOwner: th%4 + 1, Time: now, Stack: st})
		case 1:
			evs = append(evs, &decode.MonContendedEntered{ThreadIDRef: th, ObjIDRef: int64(i%3 + 10), Time: now + 10, Stack: st})
		case 2:
			evs = append(evs, &decode.MonWait{MonitorWait: decode.MonitorWait{ThreadIDRef: th, ObjIDRef: int64(i + 100), Timeout: 5, Time: now, Stack: st}})
		case 3:
			evs = append(evs, &decode.Sample{ThreadIDRef: th, Time: now, Count: 1, Weight: 100, Stack: st})
		}
		if i%20 == 19 { // a poll: the stream becomes a polled one
			evs = append(evs, &decode.ThreadState{ThreadIDRef: th, Time: now, State: "blocked", LockObjIDRef: int64(i%3 + 10), LockOwner: th%4 + 1, Stack: st},
				&decode.ThreadPoll{Time: now, Threads: 1})
		}
		if i%3 != 2 {
			evs = append(evs, &decode.MethodExit{ThreadIDRef: th, Ticket: int32(i), Time: now + 500, ThreadCPUTime: now})
		}
		if i%15 == 7 { // a class named again, differently, and methods defined again under each name: slots merge
			k := i / 15 // names A, B, B, A; ids X, Y, X, Y
			evs = append(evs, &decode.ClassDef{ClassID: 2, Name: fmt.Sprintf("a.G%d", (k+1)/2%2)},
				&decode.MethodDef{Name: "m1", ClassIDRef: 2, MethodID: int64(2 + k%2)})
		}
	}
	for _, ev := range evs {
		enc.Encode(ev)
	}
	enc.Flush()
	return buf.Bytes()
}
