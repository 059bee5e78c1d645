package client

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
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
	var b bytes.Buffer
	enc := decode.NewEncoder(&b, decode.EncoderOptions{})
	for _, ev := range []decode.Event{
		&decode.ProcessCreate{PID: 1, Time: at(-time.Hour)},
		&decode.ThreadStart{ThreadID: 1, ThreadName: "main", Time: at(0)},
		&decode.ThreadStart{ThreadID: 2, ThreadName: "late", Time: at(time.Minute)},
		&decode.ThreadCPU{ThreadIDRef: 1, Time: at(0)},
		&decode.ThreadCPU{ThreadIDRef: 1, Time: at(200 * time.Millisecond)},
	} {
		if err := enc.Encode(ev); err != nil {
			t.Fatal(err)
		}
	}
	enc.Flush()
	path := filepath.Join(t.TempDir(), "bundle-stream.trcbin")
	os.WriteFile(path, b.Bytes(), 0o644)
	src := NewFileSource(path, 1, decode.Options{})
	go func() {
		for b := range src.Batches() {
			src.Recycle(b)
		}
	}()
	began := time.Now()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := src.Run(ctx); err != nil {
		t.Fatal(err)
	}
	// The events are 200 ms apart: the hour and the minute are not waited.
	if took := time.Since(began); took < 150*time.Millisecond || took > 20*time.Second {
		t.Fatalf("played in %v", took)
	}
}
