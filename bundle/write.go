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
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"time"

	"github.com/proftop/proftop/client"
	"github.com/proftop/proftop/export"
	"github.com/proftop/proftop/internal/atomicfile"
	"github.com/proftop/proftop/internal/gcfloor"
	"github.com/proftop/proftop/internal/textsafe"
	"github.com/proftop/proftop/state"
	"github.com/proftop/proftop/tui"
)

// The files of a bundle.
const (
	FileReadme  = "README.txt"
	FilePicture = "picture.json"
	FileText    = "picture.txt"
	FileHistory = "history.jsonl"
	// FileHistoryTree holds the call-tree weights of the history's
	// pictures, with the part of the tree they weigh.
	FileHistoryTree = "history-tree.jsonl"
	FileDeadlocks   = "deadlocks.txt"
	FileDeadJSON    = "deadlocks.json"
	FileThreads     = "threads.txt"
	FileStream      = "stream.trcbin"
	FileProfile     = "profile.pb.gz"
	FileCollapsed   = "stacks.collapsed"
	// FileOrigin holds what the source said about itself (client.Origin):
	// the stream is re-encoded as a binary trace, and would say "binary"
	// of a ProfilerJ snapshot, and nothing of its notes. Bundles written
	// before it was are read without it.
	FileOrigin = "source.json"
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
	Stream    time.Duration // the span of the raw stream kept, by its events' times
	// StreamBytes is the raw stream's size as written: a trace whose
	// events have no date is dated as it arrived, and a replayed one
	// arrives faster than it was made.
	StreamBytes int64
}

// member is one file of the bundle: its size when known before it is
// written (-1: not known), and how to write it. tar wants the size first:
// a member of unknown size is written twice, once to count its bytes and
// once into the bundle — rendering a history again costs less than
// holding a hundred megabytes of it in memory during an incident.
type member struct {
	name  string
	size  int64
	write func(io.Writer) error
}

func bytesMember(name string, data []byte) member {
	return member{name: name, size: int64(len(data)), write: func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	}}
}

// Write writes a bundle of the picture at now to path: into a file beside
// it first, renamed once whole, so that a full disk never leaves half a
// bundle under the name asked for. Its files are written as they are
// rendered, never whole in memory.
func (src *Source) Write(path string, now time.Time) (Summary, error) {
	sum := Summary{Path: path}
	if abs, err := filepath.Abs(path); err == nil {
		sum.Path = abs
	}
	// Rendering a history of minutes makes garbage of several times its
	// size; let the heap double with it and proftop's memory would jump
	// by hundreds of MiB during an incident, and stay there. So the
	// collector runs more often while the bundle is written, and the
	// memory goes back to the system once it is.
	defer debug.FreeOSMemory()
	defer gcfloor.Hold(bundleGCPercent)()
	members, release, err := src.members(now, &sum)
	defer release()
	if err != nil {
		return sum, fmt.Errorf("cannot write the bundle: %w", err)
	}
	sum.Bytes, err = atomicfile.Write(path, "the bundle", 0o644, func(w io.Writer) error {
		return writeTar(w, members, now)
	})
	return sum, err
}

// bundleGCPercent is the collector's GOGC while a bundle is written.
const bundleGCPercent = 20

// writeTar writes the members as a gzipped tar.
func writeTar(w io.Writer, members []member, now time.Time) error {
	// The fastest level: the raw stream dominates, and is already
	// decompressed from its ring; a bundle is written during an incident.
	zw, _ := gzip.NewWriterLevel(w, gzip.BestSpeed)
	tw := tar.NewWriter(zw)
	for _, m := range members {
		size := m.size
		if size < 0 {
			c := &atomicfile.CountingWriter{W: io.Discard}
			if err := m.write(c); err != nil {
				return err
			}
			size = c.N
		}
		// Truncated: tar rounds to the nearest second, which may be in the future.
		h := &tar.Header{Name: m.name, Mode: 0o644, Size: size, ModTime: now.Truncate(time.Second), Typeflag: tar.TypeReg}
		if err := tw.WriteHeader(h); err != nil {
			return err
		}
		if err := m.write(tw); err != nil {
			return err
		}
	}
	if err := tw.Close(); err != nil {
		return err
	}
	return zw.Close()
}

// members lists every file of the bundle, each rendered when written;
// release hands the snapshot they read back to the aggregator, once the
// bundle is written.
func (src *Source) members(now time.Time, sum *Summary) (out []member, release func(), err error) {
	var status client.Status
	if src.Status != nil {
		status = src.Status()
	}
	// A still picture (a snapshot file) has no timeline: its figures are
	// cumulative, as the interface shows them.
	snap := src.Agg.Snapshot(now, state.Query{Recent: !status.Still, CallersOf: -1, AllStacks: true})
	release = func() { src.Agg.Release(snap) }
	origin, err := json.Marshal(status.Origin())
	if err != nil {
		return nil, release, err
	}
	// Read with cat as often as with a parser: the peer's text escaped.
	out = append(out, bytesMember(FileOrigin, append(textsafe.EscapeJSON(origin), '\n')))

	picture, err := tui.RenderJSON(snap, status, 0)
	if err != nil {
		return nil, release, err
	}
	out = append(out, bytesMember(FilePicture, append(picture, '\n')),
		bytesMember(FileText, []byte(tui.RenderText(snap, status, 160, 50, false))))

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
	out = append(out, member{name: FileHistory, size: -1, write: func(w io.Writer) error {
		for _, p := range pics { // a line a picture
			b, err := json.Marshal(p)
			if err != nil {
				return err
			}
			// Read with cat as often as with a parser: peer text escaped.
			if _, err := w.Write(append(textsafe.EscapeJSON(b), '\n')); err != nil {
				return err
			}
		}
		return nil
	}})
	pastTrees := state.NewPastTrees(pics, src.Agg.TreeShape())
	if pastTrees.Pictures() > 0 {
		out = append(out, member{name: FileHistoryTree, size: -1, write: pastTrees.Write})
	}
	out = append(out, member{name: FileDeadlocks, size: -1, write: func(w io.Writer) error { return WriteDeadlocks(w, deadlocks) }})
	if deadlocks == nil {
		deadlocks = []state.DeadlockRecord{} // [] in JSON, not null
	}
	dj, err := json.Marshal(deadlocks)
	if err != nil {
		return nil, release, err
	}
	out = append(out, bytesMember(FileDeadJSON, append(textsafe.EscapeJSON(dj), '\n')),
		member{name: FileThreads, size: -1, write: func(w io.Writer) error { return WriteThreadDump(w, snap, status.Source) }})

	var ring client.RingContents
	if src.Ring != nil {
		ring = src.Ring.Contents()
		out = append(out, member{name: FileStream, size: ring.Bytes, write: func(w io.Writer) error {
			_, err := ring.WriteTo(w)
			return err
		}})
		sum.Stream, sum.StreamBytes = ring.To.Sub(ring.From), ring.Bytes
	}

	shape, figs := src.Agg.TreeAndShape(false)
	tree := state.BuildCallTree(shape, nil, figs)
	span := export.Span{From: snap.TreeSince(), To: snap.Clock, Source: status.Source, Sampled: snap.Sampled}
	if len(tree.Nodes) > 1 {
		// Compressed already, and small beside the rest: made once.
		var prof bytes.Buffer
		if err := export.Pprof(&prof, tree, span); err != nil {
			return nil, release, err
		}
		out = append(out, bytesMember(FileProfile, prof.Bytes()),
			member{name: FileCollapsed, size: -1, write: func(w io.Writer) error { return export.Collapsed(w, tree, export.ValueAuto) }})
	}
	readme := src.readme(now, snap, status, pics, pastTrees, deadlocks, ring, tree)
	return append([]member{bytesMember(FileReadme, []byte(readme))}, out...), release, nil
}

// readme says what the bundle is, when and where it was made, and how to
// open each file.
func (src *Source) readme(now time.Time, s *state.Snapshot, st client.Status, pics []*state.Picture, trees *state.PastTrees, ds []state.DeadlockRecord,
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
	fmt.Fprintf(&b, "%-17s what the source said about itself (its format, a still picture or not, its notes), which replaying the bundle says again\n", FileOrigin)
	if len(pics) > 0 {
		fmt.Fprintf(&b, "%-17s the history: %d pictures from %s to %s, one JSON document a line\n", FileHistory, len(pics),
			at(pics[0].At), at(pics[len(pics)-1].At))
	} else {
		fmt.Fprintf(&b, "%-17s the history: none was kept\n", FileHistory)
	}
	if trees.Pictures() > 0 {
		fmt.Fprintf(&b, "%-17s the call tree's weights of %d of those pictures, and the %d nodes of the tree they weigh\n", FileHistoryTree,
			trees.Pictures(), trees.Nodes())
	}
	fmt.Fprintf(&b, "%-17s every deadlock seen (%d), with the stacks of its threads; %s the same as JSON\n", FileDeadlocks, len(ds), FileDeadJSON)
	fmt.Fprintf(&b, "%-17s a thread dump in jstack's format of every thread and the stack last known of it\n", FileThreads)
	if src.Ring != nil {
		fmt.Fprintf(&b, "%-17s the raw stream of the last %s (%s to %s), %d bytes (%.0f MB once unpacked: proftop replay reads\n%-17s the bundle as it is, without unpacking it), as a binary trace",
			FileStream, ring.To.Sub(ring.From).Round(time.Second), at(ring.From), at(ring.To), ring.Bytes, float64(ring.Bytes)/1e6, "")
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
	b.WriteString("  proftop replay BUNDLE.tar.gz --batch --json --history   the history as JSON lines (not the snapshots)\n")
	b.WriteString("  go tool pprof -http : profile.pb.gz   the profile in a browser\n")
	b.WriteString("  flamegraph.pl stacks.collapsed > flame.svg, or load it in speedscope\n")
	return b.String()
}
