package client

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/proftop/proftop/decode"
)

// play runs src to its end, its batches consumed.
func play(t *testing.T, src Source) {
	t.Helper()
	c := collect(src)
	if err := src.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	<-c.done
}

// A snapshot says of itself its format, that it is still, and its notes:
// what a bundle keeps of it.
func TestOriginOfASnapshot(t *testing.T) {
	src := NewFileSource(filepath.Join("..", "testdata", "profilerj", "snapshot-synthetic.xml"), 0, decode.Options{})
	play(t, src)
	o := src.Status().Origin()
	if o.Format != "profilerj snapshot" || o.Negotiation != "from the file's content" || !o.Still ||
		len(o.Notes) != 2 || !strings.HasPrefix(o.Notes[0], "a still picture") {
		t.Fatalf("%+v", o)
	}
}

// How a file is read (followed, paced, started over) is no fact of its
// data: a bundle of a followed file, replayed, does not say it follows.
func TestOriginLeavesOutHowTheFileWasRead(t *testing.T) {
	path := filepath.Join(t.TempDir(), "t.trcbin")
	if err := os.WriteFile(path, traceOf(t, true, "main"), 0o644); err != nil {
		t.Fatal(err)
	}
	src, c, cancel, ran := followed(t, path)
	waitFor(t, "the first event", 20*time.Second, func() bool { return c.seen() == "main" })
	st := src.Status()
	cancel()
	<-ran
	<-c.done
	if !slices.Contains(st.Notes, "following the file (like tail -f)") {
		t.Fatalf("notes %q: the follower says nothing", st.Notes)
	}
	if o := st.Origin(); len(o.Notes) != 0 || o.Format != "binary" {
		t.Fatalf("%+v", o)
	}
}

// A bundle's stream, re-encoded as a binary trace, says what the
// bundle's source said: its format, from a bundle; a still picture, ended
// as one; its notes before the stream's own; its facts. A bundle of
// that replay keeps the first source's words, not "from a bundle".
func TestFromBundleSaysWhatItsSourceSaid(t *testing.T) {
	path := filepath.Join(t.TempDir(), "stream.trcbin")
	if err := os.WriteFile(path, traceOf(t, true, "main"), 0o644); err != nil {
		t.Fatal(err)
	}
	recorded := &Origin{Format: "profilerj snapshot", Negotiation: "from the file's content", Still: true,
		Notes: []string{"a still picture: a snapshot, its figures cumulative"}, Facts: []Fact{{"pwd", "/srv/app"}}}
	file := NewFileSource(path, 0, decode.Options{})
	src := FromBundle(file, recorded, []string{"the bundle holds 2 raw streams"})
	play(t, src)
	st := src.Status()
	if st.Format != decode.FormatProfilerJ || st.Negotiation != OutcomeBundle || !st.Still || st.Cause != causeStillEnd ||
		!slices.Equal(st.Notes, []string{recorded.Notes[0], "the bundle holds 2 raw streams"}) || len(st.Facts) != 1 {
		t.Fatalf("%+v", st)
	}
	if st.Negotiation.String() != "from a bundle" {
		t.Fatalf("negotiation %q", st.Negotiation)
	}
	if o := st.Origin(); o.Format != recorded.Format || o.Negotiation != recorded.Negotiation || !o.Still || !slices.Equal(o.Notes, recorded.Notes) {
		t.Fatalf("the replay's origin %+v", o)
	}
	// The file itself still says what its bytes are.
	if fs := file.Status(); fs.Format != decode.FormatBinary || fs.Still || fs.Cause != causeEndOfFile {
		t.Fatalf("the stream's own status %+v", fs)
	}
}

// A bundle written before bundles kept their source's words says what its
// stream is; one of a format this proftop does not know says so.
func TestFromBundleWithoutOrWithAnUnknownOrigin(t *testing.T) {
	for _, tc := range []struct {
		name     string
		recorded *Origin
		format   decode.Format
		note     string
	}{
		{"old bundle", nil, decode.FormatBinary, ""},
		{"unknown format", &Origin{Format: "jfr"}, decode.FormatBinary, "recorded from a source in a format this proftop does not know (jfr)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "stream.trcbin")
			if err := os.WriteFile(path, traceOf(t, true, "main"), 0o644); err != nil {
				t.Fatal(err)
			}
			src := FromBundle(NewFileSource(path, 0, decode.Options{}), tc.recorded, nil)
			play(t, src)
			st := src.Status()
			if st.Format != tc.format || st.Negotiation != OutcomeFile || st.Cause != causeEndOfFile {
				t.Fatalf("%+v", st)
			}
			if tc.note != "" && (len(st.Notes) != 1 || !strings.HasPrefix(st.Notes[0], tc.note)) || tc.note == "" && len(st.Notes) != 0 {
				t.Fatalf("notes %q", st.Notes)
			}
		})
	}
}
