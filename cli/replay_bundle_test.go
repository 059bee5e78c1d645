package cli

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/spf13/pflag"

	"github.com/proftop/proftop/bundle"
	"github.com/proftop/proftop/client"
	"github.com/proftop/proftop/config"
	"github.com/proftop/proftop/decode"
)

// replayBatch runs `proftop replay --batch -n 1 [--bundle out] path` with
// the default settings, and returns what it printed.
func replayBatch(t *testing.T, path, out string) string {
	t.Helper()
	flags := pflag.NewFlagSet("proftop", pflag.ContinueOnError)
	config.Register(flags)
	s, _, err := config.Load(flags, filepath.Join(t.TempDir(), "none.yaml"), false, func(string) string { return "" })
	if err != nil {
		t.Fatal(err)
	}
	v := View{Batch: true, Count: 1, Bundle: out}
	cmd := NewReplayCommand(&s, &v)
	var b bytes.Buffer
	cmd.SetOut(&b)
	cmd.SetArgs([]string{path})
	if err := cmd.Execute(); err != nil {
		t.Fatalf("replay %s: %v", path, err)
	}
	return b.String()
}

// A bundle of a ProfilerJ snapshot replays as the snapshot does: its
// format (from a bundle, not the binary trace its stream is re-encoded
// as), its methods cumulative, its notes.
func TestReplayedBundleSaysWhatItsSourceSaid(t *testing.T) {
	path := filepath.Join(t.TempDir(), "b-pj.tar.gz")
	direct := replayBatch(t, filepath.Join("..", "testdata", "profilerj", "snapshot-synthetic.xml"), path)
	got := replayBatch(t, path, "")
	for _, want := range []string{"profilerj snapshot  (from a bundle)", "ended: a still picture: the snapshot as it was taken",
		"note: a still picture: a snapshot, its figures cumulative · call-tree times taken as µs",
		"HOT METHODS · CUMULATIVE · CALL TREE (12)", "HOT METHODS · CUMULATIVE · SAMPLER HITS, CPU SHARED AMONG THEM (6)"} {
		if !strings.Contains(got, want) {
			t.Errorf("the bundle's replay lacks %q:\n%s", want, got)
		}
	}
	// The panes as the snapshot's own: after the header, the same text.
	body := func(s string) string { return s[strings.Index(s, "\nTHREADS"):] }
	if body(got) != body(direct) {
		t.Errorf("the bundle's replay:\n%s\nthe snapshot's:\n%s", body(got), body(direct))
	}
}

// A bundle is a recording: its methods are its last seconds of trace
// time, whatever says its source's words over its stream; one holding a
// second stream names it; one whose stream is not named stream.trcbin
// still plays it.
func TestReplayedBundleStreams(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "b.tar.gz")
	replayBatch(t, filepath.Join("..", "testdata", "sample.trcbin"), path)
	got := replayBatch(t, path, "")
	if !strings.Contains(got, "binary") || !strings.Contains(got, "(from a bundle)") ||
		!strings.Contains(got, "HOT METHODS · LAST 10S (25") {
		t.Fatalf("the bundle's replay:\n%s", got)
	}
	xml, err := os.ReadFile(filepath.Join("..", "testdata", "sample.trcxml"))
	if err != nil {
		t.Fatal(err)
	}
	two := filepath.Join(dir, "two.tar.gz")
	retar(t, path, two, map[string]string{}, map[string][]byte{"stream.trcxml": xml})
	got = replayBatch(t, two, "")
	if !strings.Contains(got, "the bundle holds 2 raw streams: stream.trcbin is played, not stream.trcxml") {
		t.Fatalf("the second stream unsaid:\n%s", got)
	}
	renamed := filepath.Join(dir, "renamed.tar.gz")
	retar(t, path, renamed, map[string]string{bundle.FileStream: "capture.trcbin"}, nil)
	got = replayBatch(t, renamed, "")
	if strings.Contains(got, "holds no raw stream") || !strings.Contains(got, "HOT METHODS · LAST 10S (25") {
		t.Fatalf("the stream of another name unplayed:\n%s", got)
	}
}

// retar copies a bundle's files into another, renamed as rename says,
// and extra ones added at its end.
func retar(t *testing.T, from, to string, rename map[string]string, extra map[string][]byte) {
	t.Helper()
	in, err := os.Open(from)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	zr, err := gzip.NewReader(in)
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	zw := gzip.NewWriter(&out)
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
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		data, err := io.ReadAll(tr)
		if err != nil {
			t.Fatal(err)
		}
		name := h.Name
		if to, ok := rename[name]; ok {
			name = to
		}
		put(name, data)
	}
	for name, data := range extra {
		put(name, data)
	}
	tw.Close()
	zw.Close()
	if err := os.WriteFile(to, out.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

// A bundle's stream is a recording, under its source's words: its "last
// 10 s" are its own time's, which a wall clock would empty 10 s after it
// was read.
func TestBundleStreamIsOnTraceTime(t *testing.T) {
	src := client.FromBundle(client.NewFileSource("b.tar.gz", 0, decode.Options{}), &client.Origin{Format: "jinsight"}, nil)
	if w := newWatching(src, config.Settings{Refresh: time.Second}, nil); !w.traceTime {
		t.Fatal("a bundle's stream read on the wall clock")
	}
	nothing := client.FromBundle(client.NewNothingSource("b.tar.gz", "no stream"), nil, nil)
	if w := newWatching(nothing, config.Settings{Refresh: time.Second}, nil); !w.traceTime {
		t.Fatal("a bundle's history without its stream read on the wall clock")
	}
}
