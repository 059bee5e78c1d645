// Package bundle writes and reads triage bundles: one .tar.gz a colleague
// can open, holding what was on screen and how it came to be — the
// picture now (JSON and text), the history, every deadlock seen with its
// stacks, a thread dump in jstack's format, the raw stream of the last
// minutes (.trcbin), and the call tree as a pprof profile and as collapsed
// stacks. `proftop replay BUNDLE` reopens it, history included.
package bundle

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/proftop/proftop/client"
	"github.com/proftop/proftop/export"
	"github.com/proftop/proftop/internal/textsafe"
	"github.com/proftop/proftop/state"
	"github.com/proftop/proftop/tui"
)

// The files of a bundle.
const (
	FileReadme    = "README.txt"
	FilePicture   = "picture.json"
	FileText      = "picture.txt"
	FileHistory   = "history.jsonl"
	FileDeadlocks = "deadlocks.txt"
	FileDeadJSON  = "deadlocks.json"
	FileThreads   = "threads.txt"
	FileStream    = "stream.trcbin"
	FileProfile   = "profile.pb.gz"
	FileCollapsed = "stacks.collapsed"
)

// Source is what bundles are made of; each field is read when a bundle
// is written. History and Ring may be nil.
type Source struct {
	Agg     *state.Aggregator
	History *state.History
	Ring    *client.StreamRing
	Status  func() client.Status
	Version string // proftop's version line
}

// Summary says what a bundle holds.
type Summary struct {
	Path      string
	Bytes     int64
	Pictures  int
	Deadlocks int
	Stream    time.Duration // the span of the raw stream kept
}

// entry is one file of the bundle: its bytes, or a writer of them.
type entry struct {
	name  string
	data  []byte
	size  int64
	write func(io.Writer) error
}

// Write writes a bundle of the picture at now to path: into a file beside
// it first, renamed once whole, so that a full disk never leaves half a
// bundle under the name asked for.
func (src *Source) Write(path string, now time.Time) (Summary, error) {
	sum := Summary{Path: path}
	if abs, err := filepath.Abs(path); err == nil {
		sum.Path = abs
	}
	entries, err := src.entries(now, &sum)
	if err != nil {
		return sum, err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".partial-*")
	if err != nil {
		return sum, fmt.Errorf("cannot write the bundle %s: %w", path, explain(err))
	}
	fail := func(err error) (Summary, error) {
		tmp.Close()
		os.Remove(tmp.Name())
		return sum, fmt.Errorf("writing the bundle %s failed: %w", path, explain(err))
	}
	counted := &countingWriter{w: tmp}
	// The fastest level: the raw stream dominates, and is already
	// decompressed from its ring; a bundle is written during an incident.
	zw, _ := gzip.NewWriterLevel(counted, gzip.BestSpeed)
	tw := tar.NewWriter(zw)
	for _, e := range entries {
		// Truncated: tar rounds to the nearest second, which may be in the future.
		h := &tar.Header{Name: e.name, Mode: 0o644, Size: e.size, ModTime: now.Truncate(time.Second), Typeflag: tar.TypeReg}
		if err := tw.WriteHeader(h); err != nil {
			return fail(err)
		}
		if e.write != nil {
			err = e.write(tw)
		} else {
			_, err = tw.Write(e.data)
		}
		if err != nil {
			return fail(err)
		}
	}
	for _, err := range []error{tw.Close(), zw.Close(), tmp.Sync()} {
		if err != nil {
			return fail(err)
		}
	}
	tmp.Chmod(0o644) // CreateTemp's 0600 is for the partial file; the bundle is to be handed over
	if err := tmp.Close(); err != nil {
		os.Remove(tmp.Name())
		return sum, fmt.Errorf("writing the bundle %s failed: %w", path, explain(err))
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		os.Remove(tmp.Name())
		return sum, fmt.Errorf("cannot write the bundle %s: %w", path, explain(err))
	}
	sum.Bytes = counted.n
	return sum, nil
}

// explain words the errors a user can do something about.
func explain(err error) error {
	switch {
	case errors.Is(err, syscall.ENOSPC):
		return fmt.Errorf("the disk is full (%w)", err)
	case errors.Is(err, syscall.EDQUOT):
		return fmt.Errorf("the disk quota is used up (%w)", err)
	case errors.Is(err, os.ErrPermission):
		return fmt.Errorf("no permission to write there (%w)", err)
	case errors.Is(err, os.ErrNotExist):
		return fmt.Errorf("the directory does not exist (%w)", err)
	}
	return err
}

type countingWriter struct {
	w io.Writer
	n int64
}

func (c *countingWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

// entries renders every file of the bundle.
func (src *Source) entries(now time.Time, sum *Summary) ([]entry, error) {
	snap := src.Agg.Snapshot(now, state.Query{Recent: true, CallersOf: -1, AllStacks: true})
	defer src.Agg.Release(snap)
	var status client.Status
	if src.Status != nil {
		status = src.Status()
	}
	var out []entry
	add := func(name string, data []byte) {
		out = append(out, entry{name: name, data: data, size: int64(len(data))})
	}

	picture, err := tui.RenderJSON(snap, status, 0)
	if err != nil {
		return nil, err
	}
	add(FilePicture, append(picture, '\n'))
	add(FileText, []byte(tui.RenderText(snap, status, 160, 50, false)))

	var pics []*state.Picture
	var deadlocks []state.DeadlockRecord
	if src.History != nil {
		pics, deadlocks = src.History.Pictures(), src.History.Deadlocks()
	}
	if len(deadlocks) == 0 {
		// No history: the deadlocks of the picture now, with its stacks.
		p := state.NewPicture(snap, now, len(snap.Threads))
		h := state.NewHistory(state.HistoryOptions{})
		h.Add(p)
		deadlocks = h.Deadlocks()
	}
	sum.Pictures, sum.Deadlocks = len(pics), len(deadlocks)
	var hist bytes.Buffer
	for _, p := range pics {
		b, err := json.Marshal(p)
		if err != nil {
			return nil, err
		}
		hist.Write(textsafe.EscapeJSON(b)) // read with cat as often as with a parser
		hist.WriteByte('\n')
	}
	add(FileHistory, hist.Bytes())
	var dl bytes.Buffer
	WriteDeadlocks(&dl, deadlocks)
	add(FileDeadlocks, dl.Bytes())
	if deadlocks == nil {
		deadlocks = []state.DeadlockRecord{} // [] in JSON, not null
	}
	dj, err := json.Marshal(deadlocks)
	if err != nil {
		return nil, err
	}
	add(FileDeadJSON, append(textsafe.EscapeJSON(dj), '\n'))
	var td bytes.Buffer
	WriteThreadDump(&td, snap, status.Source)
	add(FileThreads, td.Bytes())

	var ring client.RingContents
	if src.Ring != nil {
		ring = src.Ring.Contents()
		out = append(out, entry{name: FileStream, size: ring.Bytes, write: func(w io.Writer) error {
			_, err := ring.WriteTo(w)
			return err
		}})
		sum.Stream = ring.To.Sub(ring.From)
	}

	shape, figs := src.Agg.TreeAndShape(false)
	tree := state.BuildCallTree(shape, nil, figs)
	span := export.Span{From: snap.Process.Started, To: snap.Clock, Source: status.Source, Sampled: snap.Sampled}
	var prof, coll bytes.Buffer
	if len(tree.Nodes) > 1 {
		if err := export.Pprof(&prof, tree, span); err != nil {
			return nil, err
		}
		if err := export.Collapsed(&coll, tree, export.ValueAuto); err != nil {
			return nil, err
		}
		add(FileProfile, prof.Bytes())
		add(FileCollapsed, coll.Bytes())
	}
	readme := src.readme(now, snap, status, pics, deadlocks, ring, tree)
	return append([]entry{{name: FileReadme, data: []byte(readme), size: int64(len(readme))}}, out...), nil
}

// readme says what the bundle is, when and where it was made, and how to
// open each file.
func (src *Source) readme(now time.Time, s *state.Snapshot, st client.Status, pics []*state.Picture, ds []state.DeadlockRecord,
	ring client.RingContents, tree *state.CallTree) string {
	var b strings.Builder
	host, _ := os.Hostname()
	at := func(t time.Time) string { return t.UTC().Format("2006-01-02 15:04:05 UTC") }
	fmt.Fprintf(&b, "proftop triage bundle\n=====================\n\n")
	fmt.Fprintf(&b, "Written   %s by %s on host %s.\n", at(now), src.Version, tui.Inert(host))
	fmt.Fprintf(&b, "Source    %s (%s", tui.Inert(st.Source), st.State)
	if st.Format != 0 {
		fmt.Fprintf(&b, ", %s, %s", st.Format, st.Negotiation)
	}
	b.WriteString(")\n")
	if st.Agent.ID != "" {
		fmt.Fprintf(&b, "Agent     %s, pid %d, %s %s\n", tui.Inert(st.Agent.Name), st.Agent.PID, tui.Inert(st.Agent.Type), tui.Inert(st.Agent.Version))
	}
	p := s.Process
	if p.PID != 0 || p.Host != "" {
		fmt.Fprintf(&b, "JVM       pid %d %s on host %s, profiled by %s %s", p.PID, tui.Inert(p.Name), tui.Inert(p.Host), tui.Inert(p.Agent), tui.Inert(p.Version))
		if !p.Started.IsZero() {
			fmt.Fprintf(&b, ", started %s", at(p.Started))
		}
		b.WriteString("\n")
	}
	if !s.Clock.IsZero() {
		fmt.Fprintf(&b, "Trace     latest event at %s; %d events received\n", at(s.Clock), s.Events)
	}
	b.WriteString("\nWhat is here\n------------\n")
	fmt.Fprintf(&b, "%-17s the picture at the moment of writing, as `proftop --batch --json` prints it\n", FilePicture)
	fmt.Fprintf(&b, "%-17s the same as text, as `proftop --batch` prints it\n", FileText)
	if len(pics) > 0 {
		fmt.Fprintf(&b, "%-17s the history: %d pictures from %s to %s, one JSON document a line\n", FileHistory, len(pics),
			at(pics[0].At), at(pics[len(pics)-1].At))
	} else {
		fmt.Fprintf(&b, "%-17s the history: none was kept\n", FileHistory)
	}
	fmt.Fprintf(&b, "%-17s every deadlock seen (%d), with the stacks of its threads; %s the same as JSON\n", FileDeadlocks, len(ds), FileDeadJSON)
	fmt.Fprintf(&b, "%-17s a thread dump in jstack's format of every thread and the stack last known of it\n", FileThreads)
	if src.Ring != nil {
		fmt.Fprintf(&b, "%-17s the raw stream of the last %s (%s to %s), %d bytes, as a binary trace",
			FileStream, ring.To.Sub(ring.From).Round(time.Second), at(ring.From), at(ring.To), ring.Bytes)
		if ring.DefsDropped > 0 {
			fmt.Fprintf(&b, "; %d definitions left out beyond their bound", ring.DefsDropped)
		}
		b.WriteString("\n")
	}
	if len(tree.Nodes) > 1 {
		what := "method entries and exits (self time of calls)"
		if s.Sampled {
			what = "stack samples (sampled CPU time)"
		}
		fmt.Fprintf(&b, "%-17s the call tree since watching began, from %s, as a pprof profile\n", FileProfile, what)
		fmt.Fprintf(&b, "%-17s the same as collapsed stacks (root first; microseconds when times are known)\n", FileCollapsed)
	} else {
		b.WriteString("(no call tree: the source sent no stacks or calls)\n")
	}
	b.WriteString("\nOpening it\n----------\n")
	b.WriteString("  proftop replay BUNDLE.tar.gz          the interface, history included (space freezes, ←/→ step back)\n")
	b.WriteString("  proftop replay BUNDLE.tar.gz --batch --json --history   the history as JSON lines\n")
	b.WriteString("  go tool pprof -http : profile.pb.gz   the profile in a browser\n")
	b.WriteString("  flamegraph.pl stacks.collapsed > flame.svg, or load it in speedscope\n")
	return b.String()
}
