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
