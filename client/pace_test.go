package client

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/proftop/proftop/decode"
)

// A trace paced at real time does not wait on the definitions it begins
// with: a bundle's stream gives first the process, started long before,
// and the threads that start during the minutes it holds.
func TestPacingSkipsTheLeadingDefinitions(t *testing.T) {
	clock := decode.Clock{}
	start := time.Date(2026, 11, 21, 9, 0, 0, 0, time.UTC)
	at := func(d time.Duration) decode.Ticks { return clock.FromTime(start.Add(d)) }
	took, _ := playAtRealTime(t, "bundle-stream.trcbin", []decode.Event{
		&decode.ProcessCreate{PID: 1, Time: at(-time.Hour)},
		&decode.ThreadStart{ThreadID: 1, ThreadName: "main", Time: at(0)},
		&decode.ThreadStart{ThreadID: 2, ThreadName: "late", Time: at(time.Minute)},
		&decode.ThreadCPU{ThreadIDRef: 1, Time: at(0)},
		&decode.ThreadCPU{ThreadIDRef: 1, Time: at(200 * time.Millisecond)},
	})
	// The events are 200 ms apart: the hour and the minute are not waited.
	if took < 150*time.Millisecond || took > 20*time.Second {
		t.Fatalf("played in %v", took)
	}
}

// A binary file played as fast as it reads (decoded straight into the
// batches) hands over exactly the events of the same file paced (read
// event by event, then copied into the batches): same events, same
// stacks, same order.
func TestFastAndPacedPlaysHandOverTheSameEvents(t *testing.T) {
	clock := decode.Clock{}
	start := time.Date(2026, 11, 26, 9, 0, 0, 0, time.UTC)
	at := func(d time.Duration) decode.Ticks { return clock.FromTime(start.Add(d)) }
	st := decode.Stack{Methods: []string{"a.B.c", "a.B.d"}, Lines: []int64{3, 4}}
	var b bytes.Buffer
	enc := decode.NewEncoder(&b, decode.EncoderOptions{})
	enc.Encode(&decode.ThreadStart{ThreadID: 1, ThreadName: "main", Time: at(0)})
	for i := range 3000 {
		d := time.Duration(i) * time.Microsecond
		enc.Encode(&decode.MonContendedEnter{ThreadIDRef: 1, ObjIDRef: int64(i % 7), Time: at(d), Stack: st})
		enc.Encode(&decode.Sample{ThreadIDRef: 1, Time: at(d), Count: 1, Weight: 10, Stack: decode.Stack{Methods: st.Methods[i%2:], Lines: st.Lines[i%2:]}})
		enc.Encode(&decode.ThreadCPU{ThreadIDRef: 1, Time: at(d)})
	}
	enc.Flush()
	path := filepath.Join(t.TempDir(), "fast.trcbin")
	os.WriteFile(path, b.Bytes(), 0o644)
	play := func(speed float64) []string {
		src := NewFileSource(path, speed, decode.Options{})
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		var got []string
		done := make(chan struct{})
		go func() {
			for b := range src.Batches() {
				for _, ev := range b.Events() {
					got = append(got, fmt.Sprintf("%T %+v", ev, ev))
				}
				src.Recycle(b)
			}
			close(done)
		}()
		src.Run(ctx)
		<-done
		return got
	}
	fast, paced := play(0), play(1e6) // a million times real time: 3 ms of trace, no wait
	if len(fast) != 9001 || !slices.Equal(fast, paced) {
		t.Fatalf("%d events played fast, %d paced; equal: %v", len(fast), len(paced), slices.Equal(fast, paced))
	}
}

// A paced replay passes over a stretch with nothing in it for longer than
// pacedQuietLimit (a recording idle for an hour, a clock that jumps by
// years), and an event that carries no time (0) does not set its clock:
// the replay goes on at once and says what it passed over.
func TestPacingPassesOverQuietStretches(t *testing.T) {
	clock := decode.Clock{}
	start := time.Date(2026, 11, 21, 9, 0, 0, 0, time.UTC)
	at := func(d time.Duration) decode.Ticks { return clock.FromTime(start.Add(d)) }
	took, st := playAtRealTime(t, "idle.trcbin", []decode.Event{
		&decode.ThreadStart{ThreadID: 1, ThreadName: "main", Time: at(0)},
		&decode.ObjAlloc{ObjID: 7, ClassIDRef: 1}, // no time: 0
		&decode.ThreadCPU{ThreadIDRef: 1, Time: at(0)},
		&decode.ThreadCPU{ThreadIDRef: 1, Time: at(100 * time.Millisecond)},
		&decode.ThreadCPU{ThreadIDRef: 1, Time: at(time.Hour)},
		&decode.ThreadCPU{ThreadIDRef: 1, Time: at(time.Hour + 100*time.Millisecond)},
		&decode.ThreadCPU{ThreadIDRef: 1, Time: at(3 * time.Hour)},
	})
	// 200 ms of events apart from the two quiet stretches.
	if took < 150*time.Millisecond || took > 30*time.Second {
		t.Fatalf("played in %v", took)
	}
	want := "paced: passed over 2 stretches of the recording with nothing in them for longer than 10s, or its clock set back (3h00m of trace time in all)"
	if notes := st.Notes; !slices.Contains(notes, want) {
		t.Fatalf("notes %q, want %q", notes, want)
	}
}

// After a stretch passed over, and after a clock set back, the events are
// paced again from there: with the pacing anchored at the far time, every
// event after it played at once.
func TestPacingGoesOnAfterAJump(t *testing.T) {
	clock := decode.Clock{}
	start := time.Date(2026, 11, 21, 9, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		name string
		jump time.Duration // where the clock goes after the sixth event
	}{
		{"a year ahead", 365 * 24 * time.Hour},
		{"an hour back", -time.Hour},
	} {
		t.Run(tc.name, func(t *testing.T) {
			evs := []decode.Event{&decode.ThreadStart{ThreadID: 1, ThreadName: "main", Time: clock.FromTime(start)}}
			for i := range 12 {
				at := start.Add(time.Duration(i) * 100 * time.Millisecond)
				if i >= 6 {
					at = at.Add(tc.jump)
				}
				evs = append(evs, &decode.ThreadCPU{ThreadIDRef: 1, Time: clock.FromTime(at)})
			}
			took, st := playAtRealTime(t, "jump.trcbin", evs)
			// 0.5 s before the jump, 0.5 s after it: paced on both sides.
			if took < 900*time.Millisecond {
				t.Fatalf("played in %v: the events after the jump were not paced", took)
			}
			if notes := st.Notes; len(notes) == 0 || !strings.Contains(notes[len(notes)-1], "passed over a stretch") {
				t.Fatalf("notes %q", notes)
			}
		})
	}
}

// playAtRealTime writes events as a binary file and plays it at --speed 1
// to its end: how long that took, and the source's status then.
func playAtRealTime(t *testing.T, name string, events []decode.Event) (time.Duration, Status) {
	t.Helper()
	var b bytes.Buffer
	enc := decode.NewEncoder(&b, decode.EncoderOptions{})
	for _, ev := range events {
		if err := enc.Encode(ev); err != nil {
			t.Fatal(err)
		}
	}
	if err := enc.Flush(); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	src := NewFileSource(path, 1, decode.Options{})
	go func() {
		for b := range src.Batches() {
			src.Recycle(b)
		}
	}()
	began := time.Now()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	if err := src.Run(ctx); err != nil {
		t.Fatal(err)
	}
	return time.Since(began), src.Status()
}
