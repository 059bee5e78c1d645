package bundle

import (
	"archive/tar"
	"compress/gzip"
	"context"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/proftop/proftop/client"
	"github.com/proftop/proftop/decode"
	"github.com/proftop/proftop/state"
)

// snapshotSource plays the ProfilerJ fixture, a still picture, into an
// aggregator and a history, as `proftop replay` does.
func snapshotSource(t *testing.T) *Source {
	t.Helper()
	file := client.NewFileSource(filepath.Join("..", "testdata", "profilerj", "snapshot-synthetic.xml"), 0, decode.Options{})
	agg := state.New(state.Options{TraceTime: true, Window: 10 * time.Second})
	hist := state.NewHistory(state.HistoryOptions{})
	agg.RecordOnTraceTime(state.NewRecorder(agg, hist), time.Second)
	ring := client.NewStreamRing(8<<20, 8<<20)
	src := client.Recording(file, ring)
	fed := make(chan struct{})
	go func() {
		defer close(fed)
		agg.Feed(src)
	}()
	if err := src.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	<-fed
	if len(hist.Pictures()) == 0 {
		t.Fatal("no picture taken")
	}
	return &Source{Agg: agg, History: hist, Ring: ring, Status: src.Status, Version: "proftop 9.9.9 (commit abc)"}
}

// A bundle keeps what its source said about itself, which its raw stream,
// re-encoded as a binary trace, cannot say: a ProfilerJ snapshot's format,
// that it is still, its notes. Its picture and history show the snapshot
// cumulative, as a still picture is shown.
func TestBundleKeepsWhatItsSourceSaid(t *testing.T) {
	src := snapshotSource(t)
	path := filepath.Join(t.TempDir(), "snapshot.tar.gz")
	if _, err := src.Write(path, t0); err != nil {
		t.Fatal(err)
	}
	fs := files(t, path)
	if !strings.Contains(string(fs[FileOrigin]), `"format":"profilerj snapshot"`) || !strings.Contains(string(fs[FileReadme]), FileOrigin) {
		t.Fatalf("%s: %s", FileOrigin, fs[FileOrigin])
	}
	text := string(fs[FileText])
	if !strings.Contains(text, "HOT METHODS · CUMULATIVE · CALL TREE") || strings.Contains(text, "LAST 10S") {
		t.Fatalf("a still picture shown over a window:\n%s", text)
	}
	b, err := Read(path)
	if err != nil {
		t.Fatal(err)
	}
	o := b.Origin
	if o == nil || o.Format != "profilerj snapshot" || !o.Still || len(o.Notes) != 2 || !strings.Contains(o.Notes[1], "µs") {
		t.Fatalf("read back: %+v", o)
	}
	if !slices.Equal(b.Streams, []string{FileStream}) {
		t.Fatalf("streams %q", b.Streams)
	}
	for _, p := range b.History(state.HistoryOptions{}).Pictures() {
		if p.Snap.Recent {
			t.Fatalf("a picture of a still picture over the last %s", p.Snap.Window)
		}
	}
}

// rewrite copies a bundle's files into another, leaving out those named
// by drop and adding extra ones at its end.
func rewrite(t *testing.T, from, to string, drop []string, extra map[string][]byte) {
	t.Helper()
	in := mustOpen(t, from)
	zr, err := gzip.NewReader(in)
	if err != nil {
		t.Fatal(err)
	}
	out, err := os.Create(to)
	if err != nil {
		t.Fatal(err)
	}
	defer out.Close()
	zw := gzip.NewWriter(out)
	tw := tar.NewWriter(zw)
	put := func(name string, data []byte) {
		if err := tw.WriteHeader(&tar.Header{Name: name, Mode: 0o644, Size: int64(len(data)), Typeflag: tar.TypeReg}); err != nil {
			t.Fatal(err)
		}
		tw.Write(data)
	}
	tr := tar.NewReader(zr)
	for {
		h, err := tr.Next()
		if err != nil {
			break
		}
		if slices.Contains(drop, h.Name) {
			continue
		}
		data, err := io.ReadAll(tr)
		if err != nil {
			t.Fatal(err)
		}
		put(h.Name, data)
	}
	for _, name := range slices.Sorted(maps.Keys(extra)) {
		put(name, extra[name])
	}
	tw.Close()
	zw.Close()
}

// A bundle written before bundles kept their source's words reads as it
// did: no origin, its pictures as they were written.
func TestOldBundleWithoutItsOriginReads(t *testing.T) {
	src := snapshotSource(t)
	dir := t.TempDir()
	path, old := filepath.Join(dir, "new.tar.gz"), filepath.Join(dir, "old.tar.gz")
	if _, err := src.Write(path, t0); err != nil {
		t.Fatal(err)
	}
	rewrite(t, path, old, []string{FileOrigin}, nil)
	b, err := Read(old)
	if err != nil {
		t.Fatal(err)
	}
	if b.Origin != nil || len(b.Pictures) == 0 || !b.History(state.HistoryOptions{}).Pictures()[0].Snap.Recent {
		t.Fatalf("origin %+v, %d pictures", b.Origin, len(b.Pictures))
	}
}

// A bundle holding two raw streams lists both, in their order: the first
// is the one played.
func TestBundleListsItsStreams(t *testing.T) {
	src := snapshotSource(t)
	dir := t.TempDir()
	path, two := filepath.Join(dir, "one.tar.gz"), filepath.Join(dir, "two.tar.gz")
	if _, err := src.Write(path, t0); err != nil {
		t.Fatal(err)
	}
	xml, err := os.ReadFile(filepath.Join("..", "testdata", "sample.trcxml"))
	if err != nil {
		t.Fatal(err)
	}
	rewrite(t, path, two, nil, map[string][]byte{"stream.trcxml": xml, "notes.txt": []byte("not a stream")})
	b, err := Read(two)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(b.Streams, []string{FileStream, "stream.trcxml"}) {
		t.Fatalf("streams %q", b.Streams)
	}
}
