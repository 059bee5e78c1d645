package client

import (
	"bytes"
	"context"
	"encoding/binary"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/proftop/proftop/decode"
)

// A replayed binary trace whose message declares more than the maximum
// and more than is left of the file is said to be damaged, not too large
// (which would send the user to --max-message-size).
func TestReplaySaysASizePastTheFileEnd(t *testing.T) {
	data := traceOf(t, true, "main", "worker")
	second := int64(decode.HeaderSize) + int64(binary.LittleEndian.Uint32(data[decode.HeaderSize+2:]))
	binary.LittleEndian.PutUint32(data[second+2:], 64<<20+84)
	path := filepath.Join(t.TempDir(), "damaged.trcbin")
	os.WriteFile(path, data, 0o644)
	src := NewFileSource(path, 0, decode.Options{})
	c := collect(src)
	err := src.Run(context.Background())
	<-c.done
	left := int64(len(data)) - second
	want := "message larger than the rest of the file: it declares 67108948 bytes but only " + strconv.FormatInt(left, 10) + " are left in the file"
	if err == nil || !strings.Contains(err.Error(), want) || c.seen() != "main" {
		t.Fatalf("%v (threads %q), want %q", err, c.seen(), want)
	}
}

// A pipe is read once, where it is: every event reaches the batches, the
// first included, though the path it was given by names nothing to open.
func TestPipeSourceReadsItsInputOnce(t *testing.T) {
	data := traceOf(t, true, "main", "worker")
	src := NewPipeSource("standard input", bytes.NewReader(data), 0, decode.Options{})
	c := collect(src)
	if err := src.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	<-c.done
	if c.seen() != "main worker" {
		t.Fatalf("threads %q, want main and worker", c.seen())
	}
	if st := src.Status(); st.Bytes != int64(len(data)) || st.State != StateEnded {
		t.Fatalf("%d bytes read of %d, state %v", st.Bytes, len(data), st.State)
	}
}

// A file source with Consume hands every batch to it, in order, on Run's
// goroutine (the batch reused once consumed), a start over included, and
// sends none on Batches.
func TestConsumeTakesEveryBatchInsteadOfTheChannel(t *testing.T) {
	path, names := threadsFile(t, 3*batchSize+7) // several batches, the same one reused
	src := NewFileSource(path, 0, decode.Options{})
	src.Follow, src.Poll = true, 10*time.Millisecond
	var c collector
	batches := map[*Batch]bool{}
	src.Consume = func(b *Batch) {
		batches[b] = true
		c.take(b)
	}
	sent := make(chan int, 1)
	go func() {
		n := 0
		for range src.Batches() {
			n++
		}
		sent <- n
	}()
	ctx, cancel := context.WithCancel(context.Background())
	ran := make(chan error, 1)
	go func() { ran <- src.Run(ctx) }()
	all := strings.Join(names, " ")
	waitFor(t, "every event consumed", 20*time.Second, func() bool { return c.seen() == all })
	if err := os.WriteFile(path, traceOf(t, true, "again"), 0o644); err != nil { // shorter: truncated, read again
		t.Fatal(err)
	}
	waitFor(t, "the file read again", 20*time.Second, func() bool { return c.seen() == all+" | again" })
	cancel()
	if err := <-ran; err != nil {
		t.Fatal(err)
	}
	if n := <-sent; n != 0 {
		t.Fatalf("%d batches sent on the channel as well", n)
	}
	if len(batches) != 1 {
		t.Fatalf("%d batches made, want the one reused", len(batches))
	}
}

// A file source with Consume stops reading when its context ends (an
// interrupt, or the snapshots asked for all printed), as it does when
// the channel's consumer stops taking batches: no batch is consumed after.
func TestConsumeStopsWhenTheContextEnds(t *testing.T) {
	path, _ := threadsFile(t, 50*batchSize)
	src := NewFileSource(path, 0, decode.Options{})
	ctx, cancel := context.WithCancel(context.Background())
	consumed := 0
	src.Consume = func(b *Batch) {
		if consumed++; consumed == 2 {
			cancel()
		}
	}
	go func() {
		for range src.Batches() {
		}
	}()
	if err := src.Run(ctx); err != nil {
		t.Fatal(err)
	}
	if consumed != 2 {
		t.Fatalf("%d batches consumed of 50, want the 2 before the context ended", consumed)
	}
}

// A replayed rbkit recording says, as the live view does, that rbkit
// fills no Monitors pane; a JVM's trace says nothing of the kind.
func TestReplayOfRbkitSaysWhatItNeverFills(t *testing.T) {
	dir := t.TempDir()
	for name, data := range map[string][]byte{"ruby.msgpack": readShared(t, "rbkit/cpu_sampling.msgpack"), "jvm.trcbin": traceOf(t, true, "main")} {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		src := NewFileSource(path, 0, decode.Options{})
		c := collect(src)
		if err := src.Run(context.Background()); err != nil {
			t.Fatal(err)
		}
		<-c.done
		got := src.Status().Unfilled
		if wantOne := name == "ruby.msgpack"; (len(got) == 1 && got[0].Pane == PaneMonitors) != wantOne || (!wantOne && len(got) != 0) {
			t.Errorf("%s: unfilled %+v", name, got)
		}
	}
}

// threadsFile writes a trace of n thread starts, named t0, t1, ..., and
// returns its path and the names.
func threadsFile(t *testing.T, n int) (string, []string) {
	t.Helper()
	names := make([]string, n)
	for i := range names {
		names[i] = "t" + strconv.Itoa(i)
	}
	path := filepath.Join(t.TempDir(), "threads.trcbin")
	if err := os.WriteFile(path, traceOf(t, true, names...), 0o644); err != nil {
		t.Fatal(err)
	}
	return path, names
}
