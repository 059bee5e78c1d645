//go:build unix

package cli

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// A FIFO is opened once, its format told from its first bytes, and what
// the source reads of it starts at its first byte: opened again by its
// path, its start was gone (read to tell the format) or the open waited
// for a writer that had left. A regular file is left to be read by its
// path; bytes of no trace are refused at once.
func TestReplayReadsAFIFOOnce(t *testing.T) {
	trace, err := os.ReadFile("../testdata/sample.trcbin")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	fifo := filepath.Join(dir, "trace.fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skip("no FIFO here:", err)
	}
	go func() {
		w, err := os.OpenFile(fifo, os.O_WRONLY, 0)
		if err == nil {
			w.Write(trace)
			w.Close()
		}
	}()
	pipe, err := openPipe(fifo)
	if err != nil || pipe == nil {
		t.Fatalf("%v %v", pipe, err)
	}
	got, err := io.ReadAll(pipe.whole)
	if err != nil || !bytes.Equal(got, trace) {
		t.Fatalf("read %d bytes of %d (%v)", len(got), len(trace), err)
	}

	regular := filepath.Join(dir, "trace.trcbin")
	os.WriteFile(regular, trace, 0o644)
	if pipe, err := openPipe(regular); pipe != nil || err != nil {
		t.Fatalf("a regular file: %v %v", pipe, err)
	}

	garbage := filepath.Join(dir, "garbage.fifo")
	syscall.Mkfifo(garbage, 0o600)
	go func() {
		if w, err := os.OpenFile(garbage, os.O_WRONLY, 0); err == nil {
			w.Write([]byte("hello, world"))
			w.Close()
		}
	}()
	if _, err := openPipe(garbage); err == nil || !strings.Contains(err.Error(), "not a trace") || !strings.Contains(err.Error(), garbage) {
		t.Fatalf("bytes of no trace: %v", err)
	}
}
