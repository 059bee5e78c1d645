package decode

import (
	"bufio"
	"flag"
	"io"
	"os"
	"testing"

	"github.com/proftop/proftop/internal/atomicfile"
)

// A large trace file for measuring whole-process decoding (`proftop decode
// --stats`), built from the benchmarks' realistic mix:
//
//	go test ./decode -run TestWriteMixedStream -mixed-out /tmp/mixed.trcbin -mixed-mb 100
var (
	mixedOut = flag.String("mixed-out", "", "write a binary trace of the benchmarks' event mix to this file")
	mixedMB  = flag.Int("mixed-mb", 100, "with -mixed-out: the file's size in MB (10^6 bytes), at least")
)

func TestWriteMixedStream(t *testing.T) {
	if *mixedOut == "" {
		t.Skip("no -mixed-out given")
	}
	f, err := os.Create(*mixedOut)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	w := bufio.NewWriterSize(f, 1<<20)
	counter := &atomicfile.CountingWriter{W: w}
	enc := NewEncoder(counter, EncoderOptions{})
	// The mix takes about 157 bytes an event; one generation of the right
	// length keeps every stream-level invariant (definitions first, tickets
	// paired) that repeating a shorter one would break.
	want := int64(*mixedMB) * 1e6
	evs := mixedEvents(int(want/150)+1000, 7)
	n := 0
	for _, ev := range evs {
		if err := enc.Encode(ev); err != nil {
			t.Fatal(err)
		}
		n++
		if counter.N >= want {
			break
		}
	}
	if err := enc.Flush(); err != nil {
		t.Fatal(err)
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	if counter.N < want {
		t.Fatalf("wrote %d bytes, wanted %d", counter.N, want)
	}
	// Read it back: the file must decode to what was written.
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		t.Fatal(err)
	}
	d := NewBinaryDecoder(bufio.NewReaderSize(f, 1<<20), Options{})
	got := 0
	for {
		_, err := d.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("event %d: %v", got, err)
		}
		got++
	}
	if got != n {
		t.Fatalf("decoded %d events, wrote %d", got, n)
	}
	t.Logf("%s: %d events, %d bytes", *mixedOut, n, counter.N)
}
