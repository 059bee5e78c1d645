package client

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/gzip"
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/proftop/proftop/decode"
	"github.com/proftop/proftop/internal/fixtures"
)

// collector takes a source's batches on its own goroutine.
type collector struct {
	mu       sync.Mutex
	names    []string // thread names started, in order; "|" marks a restart
	restarts int
	done     chan struct{}
}

func collect(src Source) *collector {
	c := &collector{done: make(chan struct{})}
	go func() {
		defer close(c.done)
		for b := range src.Batches() {
			c.take(b)
			src.Recycle(b)
		}
	}()
	return c
}

// take notes the threads a batch starts.
func (c *collector) take(b *Batch) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if b.Restart {
		c.restarts++
		c.names = append(c.names, "|")
	}
	for _, ev := range b.Events() {
		if ts, ok := ev.(*decode.ThreadStart); ok {
			c.names = append(c.names, ts.ThreadName)
		}
	}
}

func (c *collector) seen() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return strings.Join(c.names, " ")
}

// traceOf encodes thread starts as a binary trace; header says whether the
// stream header is written first.
func traceOf(t *testing.T, header bool, names ...string) []byte {
	t.Helper()
	var b bytes.Buffer
	enc := decode.NewEncoder(&b, decode.EncoderOptions{})
	for i, n := range names {
		if err := enc.Encode(&decode.ThreadStart{ThreadID: int64(i + 1), ThreadName: n, Time: decode.Ticks(i + 1)}); err != nil {
			t.Fatal(err)
		}
	}
	enc.Flush()
	if header {
		return b.Bytes()
	}
	return b.Bytes()[decode.HeaderSize:]
}

func appendTo(t *testing.T, path string, data []byte) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.Write(data); err != nil {
		t.Fatal(err)
	}
}

func followed(t *testing.T, path string) (*FileSource, *collector, context.CancelFunc, chan error) {
	t.Helper()
	src := NewFileSource(path, 0, decode.Options{})
	src.Follow, src.Poll = true, 10*time.Millisecond
	ctx, cancel := context.WithCancel(context.Background())
	c := collect(src)
	ran := make(chan error, 1)
	go func() { ran <- src.Run(ctx) }()
	return src, c, cancel, ran
}

// A followed file shows what is there, then what is written to it as it
// comes; truncated, or replaced by another file, it is read again from its
// start as a new picture.
func TestFollowReadsAsTheFileGrows(t *testing.T) {
	path := filepath.Join(t.TempDir(), "live.trcbin")
	os.WriteFile(path, traceOf(t, true, "a", "b"), 0o644)
	src, c, cancel, ran := followed(t, path)
	waitFor(t, "the first events", 20*time.Second, func() bool { return c.seen() == "a b" })
	// Half a message, then the rest: nothing is lost or shown twice.
	more := traceOf(t, false, "c", "d")
	appendTo(t, path, more[:5])
	time.Sleep(30 * time.Millisecond)
	appendTo(t, path, more[5:])
	waitFor(t, "events written later", 20*time.Second, func() bool { return c.seen() == "a b c d" })
	if st := src.Status(); st.State != StateStreaming || st.Format != decode.FormatBinary || !strings.Contains(strings.Join(st.Notes, " "), "following the file") {
		t.Fatalf("status %+v", st)
	}
	// Truncated and written anew.
	os.WriteFile(path, traceOf(t, true, "e"), 0o644)
	waitFor(t, "the truncated file read again", 20*time.Second, func() bool { return c.seen() == "a b c d | e" })
	if st := src.Status(); !strings.Contains(strings.Join(st.Notes, " "), "the file was truncated") || st.Streams != 2 {
		t.Fatalf("status %+v", st)
	}
	// Replaced by another file under its name.
	other := path + ".new"
	os.WriteFile(other, traceOf(t, true, "f", "g", "h"), 0o644)
	if err := os.Rename(other, path); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the replaced file read", 20*time.Second, func() bool { return c.seen() == "a b c d | e | f g h" })
	// The counts are the new file's: what came before is void.
	if st, size := src.Status(), int64(len(traceOf(t, true, "f", "g", "h"))); st.Events != 3 || st.Bytes != size || st.DecodeErrors != 0 {
		t.Fatalf("after the replacement: %d events, %d bytes, %d decode errors; want 3, %d, 0", st.Events, st.Bytes, st.DecodeErrors, size)
	}
	// Replaced by what is no trace, then by a trace again: the error
	// was the file's before.
	os.WriteFile(other, []byte("hello, this is no trace\n"), 0o644)
	os.Rename(other, path)
	waitFor(t, "the file that is no trace", 20*time.Second, func() bool {
		return src.Status().LastError != "" || src.Status().Cause != "" && src.Status().State == StateEnded
	})
	os.WriteFile(other, traceOf(t, true, "i"), 0o644)
	os.Rename(other, path)
	waitFor(t, "a trace again", 20*time.Second, func() bool { return strings.HasSuffix(c.seen(), "| i") })
	if st := src.Status(); st.Events != 1 || st.DecodeErrors != 0 || st.LastError != "" || st.Format != decode.FormatBinary {
		t.Fatalf("a trace again: %d events, %d decode errors (%q), format %v", st.Events, st.DecodeErrors, st.LastError, st.Format)
	}
	cancel()
	if err := <-ran; err != nil {
		t.Fatal(err)
	}
	<-c.done
}

// A followed file rewritten in place with as much or more (cat new >
// file, its truncation not seen between two looks) is read again from
// its start: it was read on from the old content's end, in the middle of
// the new one, and ended in a decode error.
func TestFollowSeesAFileRewrittenInPlace(t *testing.T) {
	path := filepath.Join(t.TempDir(), "live.trcbin")
	os.WriteFile(path, traceOf(t, true, "a", "b"), 0o644)
	src, c, cancel, ran := followed(t, path)
	waitFor(t, "the first events", 20*time.Second, func() bool { return c.seen() == "a b" })
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteAt(traceOf(t, true, "rewritten-1", "rewritten-2", "rewritten-3"), 0); err != nil {
		t.Fatal(err)
	}
	f.Close()
	waitFor(t, "the rewritten file read again", 20*time.Second, func() bool { return c.seen() == "a b | rewritten-1 rewritten-2 rewritten-3" })
	if st := src.Status(); !strings.Contains(strings.Join(st.Notes, " "), "the file was rewritten") || st.DecodeErrors != 0 || st.Events != 3 {
		t.Fatalf("status %+v", st)
	}
	// Appended to, it is not rewritten: read on.
	appendTo(t, path, traceOf(t, false, "appended"))
	waitFor(t, "what was appended", 20*time.Second, func() bool { return strings.HasSuffix(c.seen(), "rewritten-3 appended") })
	cancel()
	if err := <-ran; err != nil {
		t.Fatal(err)
	}
	<-c.done
	if c.restarts != 1 {
		t.Fatalf("%d restarts", c.restarts)
	}
}

// Following works for every format: a Jinsight trace written in two
// parts, then replaced by a ProfilerJ snapshot (a still picture).
func TestFollowAnyFormat(t *testing.T) {
	trace, err := os.ReadFile(fixtures.Path(t, "jinsight/trace-linux-x86_64-tagobjects.trc"))
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "trace")
	os.WriteFile(path, trace[:20000], 0o644)
	src, c, cancel, ran := followed(t, path)
	defer func() { cancel(); <-ran; <-c.done }()
	waitFor(t, "the first part's threads", 20*time.Second, func() bool { return strings.Count(c.seen(), " ") >= 3 })
	if st := src.Status(); st.State != StateStreaming || st.Format != decode.FormatJinsight {
		t.Fatalf("status %+v", st)
	}
	appendTo(t, path, trace[20000:])
	waitFor(t, "the end of the trace", 20*time.Second, func() bool {
		st := src.Status()
		return st.State == StateEnded && strings.Contains(st.Cause, "following the file for a new one")
	})
	snap, err := os.ReadFile("../testdata/profilerj/snapshot-synthetic.xml")
	if err != nil {
		t.Fatal(err)
	}
	other := path + ".new"
	os.WriteFile(other, snap, 0o644)
	os.Rename(other, path)
	waitFor(t, "the snapshot that replaced it", 20*time.Second, func() bool {
		st := src.Status()
		return st.Format == decode.FormatProfilerJ && st.Still && strings.HasSuffix(c.seen(), "| AWT-Windows AWT-EventQueue-0 main")
	})
}

// A zip archive cannot be followed: its directory comes last.
func TestFollowRefusesAZip(t *testing.T) {
	path := filepath.Join(t.TempDir(), "z.trcxml")
	var b bytes.Buffer
	zw := zip.NewWriter(&b)
	w, _ := zw.Create("a.trcxml")
	w.Write([]byte("<TRACE>"))
	zw.Close()
	os.WriteFile(path, b.Bytes(), 0o644)
	src := NewFileSource(path, 0, decode.Options{})
	src.Follow = true
	go func() {
		for b := range src.Batches() {
			src.Recycle(b)
		}
	}()
	err := src.Run(context.Background())
	if err == nil || !strings.Contains(err.Error(), "a zip archive cannot be followed") {
		t.Fatalf("%v", err)
	}
}

// A zip that arrives in a file already followed is refused too, not read
// to an end that never comes (its directory would be waited for).
func TestFollowRefusesAZipWrittenLater(t *testing.T) {
	path := filepath.Join(t.TempDir(), "later.trcxml")
	os.WriteFile(path, nil, 0o644)
	src, c, cancel, ran := followed(t, path)
	defer func() { cancel(); <-ran; <-c.done }()
	waitFor(t, "the wait to be said", 20*time.Second, func() bool { return src.Status().Waiting != "" })
	var b bytes.Buffer
	zw := zip.NewWriter(&b)
	w, _ := zw.Create("a.trcxml")
	w.Write([]byte("<TRACE>"))
	zw.Close()
	appendTo(t, path, b.Bytes())
	waitFor(t, "the zip refused", 20*time.Second, func() bool {
		st := src.Status()
		return st.State == StateEnded && strings.Contains(st.Cause, "a zip archive cannot be followed")
	})
}

// A gzipped trace, and a bundle (a gzipped tar), are inflated as they are
// read, so they are followed as any trace is: what is there, what comes,
// and the end of the compressed stream is the end of the trace. (What is
// there is more than the 263 bytes that tell a tar.)
func TestFollowAGzip(t *testing.T) {
	long := strings.Repeat("b", 300)
	first, rest := traceOf(t, true, "a", long), traceOf(t, false, "c")
	for _, tc := range []struct {
		name   string
		tarred bool
	}{
		{"gzip", false},
		{"tar.gz", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var b bytes.Buffer
			zw := gzip.NewWriter(&b)
			var tw *tar.Writer
			if tc.tarred {
				tw = tar.NewWriter(zw)
				tw.WriteHeader(&tar.Header{Name: "stream.trcbin", Mode: 0o644, Size: int64(len(first) + len(rest)), Typeflag: tar.TypeReg})
				tw.Write(first)
			} else {
				zw.Write(first)
			}
			zw.Flush()
			path := filepath.Join(t.TempDir(), "trace.gz")
			os.WriteFile(path, b.Bytes(), 0o644)
			written := b.Len()
			src, c, cancel, ran := followed(t, path)
			defer func() { cancel(); <-ran; <-c.done }()
			waitFor(t, "what was there", 20*time.Second, func() bool { return c.seen() == "a "+long })
			if st := src.Status(); st.State != StateStreaming {
				t.Fatalf("status %+v", st)
			}
			if tw != nil {
				tw.Write(rest)
				tw.Close()
			} else {
				zw.Write(rest)
			}
			zw.Close()
			appendTo(t, path, b.Bytes()[written:])
			waitFor(t, "the end of the trace", 20*time.Second, func() bool {
				st := src.Status()
				return c.seen() == "a "+long+" c" && st.State == StateEnded && strings.Contains(st.Cause, "following the file for a new one")
			})
		})
	}
}

// A file played to its end says what it was: a still picture, times
// that are approximate.
func TestFileNotesAndStillPictures(t *testing.T) {
	for _, tc := range []struct {
		path, note string
		shared     bool // a file of ../shared/fixtures
		still      bool
		end        string
	}{
		{"../testdata/profilerj/snapshot-synthetic.xml", "a still picture", false, true, "a still picture: the snapshot as it was taken"},
		{"jinsight/trace-linux-x86_64-tagobjects.trc", "times approximate", true, false, "end of file"},
	} {
		t.Run(filepath.Base(tc.path), func(t *testing.T) {
			path := tc.path
			if tc.shared {
				path = fixtures.Path(t, tc.path)
			}
			src := NewFileSource(path, 0, decode.Options{})
			c := collect(src)
			if err := src.Run(context.Background()); err != nil {
				t.Fatal(err)
			}
			<-c.done
			st := src.Status()
			if st.Still != tc.still || st.Cause != tc.end || !strings.Contains(strings.Join(st.Notes, " "), tc.note) {
				t.Errorf("%s: %+v", path, st)
			}
		})
	}
}

// A followed file its writer has not filled yet is waited for, whatever
// its format, and says so: empty, too short to tell its format, inside its
// header or first message, or (a snapshot) inside its document, which
// shows once it is complete.
func TestFollowWaitsForTheFileToBeWritten(t *testing.T) {
	xmlTrace := "<?xml version=\"1.0\"?>\n<TRACE>\n<threadStart threadId=\"1\" time=\"1.0\" threadName=\"main\"/>\n"
	snapshot, err := os.ReadFile("../testdata/profilerj/snapshot-synthetic.xml")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name   string
		data   func(t *testing.T) []byte
		first  int    // bytes there when following starts
		thread string // the first thread started once the rest is written
	}{
		{"empty binary", func(t *testing.T) []byte { return traceOf(t, true, "a") }, 0, "a"},
		{"binary magic cut", func(t *testing.T) []byte { return traceOf(t, true, "a") }, 3, "a"},
		{"binary header cut", func(t *testing.T) []byte { return traceOf(t, true, "a") }, decode.HeaderSize - 1, "a"},
		{"XML prologue", func(*testing.T) []byte { return []byte(xmlTrace) }, 30, "main"},
		{"XML element cut", func(*testing.T) []byte { return []byte(xmlTrace) }, 40, "main"},
		{"Jinsight header cut", func(t *testing.T) []byte { return readShared(t, "jinsight/trace-linux-x86_64-tagobjects.trc") }, 10, "main"},
		{"rbkit map's first byte", func(t *testing.T) []byte { return readShared(t, "rbkit/cpu_sampling.msgpack") }, 1, "main"},
		{"ProfilerJ prologue", func(*testing.T) []byte { return snapshot }, 200, "AWT-Windows"},
		{"ProfilerJ inside <profile>", func(*testing.T) []byte { return snapshot }, 3000, "AWT-Windows"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			data := tc.data(t)
			path := filepath.Join(t.TempDir(), "growing")
			os.WriteFile(path, data[:tc.first], 0o644)
			src, c, cancel, ran := followed(t, path)
			defer func() { cancel(); <-ran; <-c.done }()
			waitFor(t, "the wait to be said", 20*time.Second, func() bool {
				return src.Status().Waiting == "waiting for "+path+" to be written"
			})
			time.Sleep(50 * time.Millisecond) // a few polls of the file
			if st := src.Status(); c.seen() != "" || st.State != StateStreaming || st.Waiting == "" {
				t.Fatalf("before the rest is written: %q, %+v", c.seen(), st)
			}
			appendTo(t, path, data[tc.first:])
			waitFor(t, "the first thread", 20*time.Second, func() bool { return strings.HasPrefix(c.seen(), tc.thread) })
			if st := src.Status(); st.Waiting != "" {
				t.Fatalf("still waiting: %+v", st)
			}
		})
	}
}

// A followed file that turns out, once written, not to be a trace is
// refused as a complete one is: Run returns why, with the place, and no
// stream counts as received.
func TestFollowRefusesWhatTurnsOutNoTrace(t *testing.T) {
	path := filepath.Join(t.TempDir(), "other.xml")
	os.WriteFile(path, []byte("<?xml version=\"1.0\"?>\n<ro"), 0o644)
	src, c, cancel, ran := followed(t, path)
	defer cancel()
	waitFor(t, "the wait to be said", 20*time.Second, func() bool { return src.Status().Waiting != "" })
	appendTo(t, path, []byte("ot><a/></root>"))
	select {
	case err := <-ran:
		if err == nil || !strings.Contains(err.Error(), "not a trace") || !strings.Contains(err.Error(), "line 2, column 1") {
			t.Fatalf("%v", err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("still following a file that is no trace")
	}
	<-c.done
	if st := src.Status(); st.State != StateEnded || st.Streams != 0 || !strings.Contains(st.Cause, "<root>") {
		t.Fatalf("%+v", st)
	}
}

// readShared reads a file of ../shared/fixtures, or skips.
func readShared(t *testing.T, rel string) []byte {
	t.Helper()
	data, err := os.ReadFile(fixtures.Path(t, rel))
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// A gzip of two members (cat a.gz b.gz) is followed through both: the
// first member's end was taken for the trace's, cut inside a message.
func TestFollowAGzipOfTwoMembers(t *testing.T) {
	long := strings.Repeat("b", 300)
	first, rest := traceOf(t, true, "a", long), traceOf(t, false, "c")
	var b bytes.Buffer
	for _, part := range [][]byte{first, rest} {
		zw := gzip.NewWriter(&b)
		zw.Write(part)
		zw.Close()
	}
	path := filepath.Join(t.TempDir(), "members.gz")
	os.WriteFile(path, b.Bytes(), 0o644)
	src, c, cancel, ran := followed(t, path)
	defer func() { cancel(); <-ran; <-c.done }()
	waitFor(t, "both members", 20*time.Second, func() bool {
		st := src.Status()
		return c.seen() == "a "+long+" c" && st.State == StateEnded && st.DecodeErrors == 0
	})
}
