package tui

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/proftop/proftop/export"
	"github.com/proftop/proftop/internal/atomicfile"
	"github.com/proftop/proftop/state"
)

// What the interface writes to files — a triage bundle (w), the profile
// of the moment or window shown (e) — is written by commands, off the UI
// goroutine: a slow or full disk never freezes the screen. The outcome
// comes back as a notice.

// fileMsg says how writing a file went.
type fileMsg struct {
	what   string
	err    error
	bundle bool
}

// stamp names a file by a moment: proftop-bundle-20261121-090000.
func stamp(prefix string, now time.Time) string {
	return prefix + "-" + now.Local().Format("20060102-150405")
}

// unused is base, or base-2, base-3…, the first that no file of the
// extensions has: two exports of one moment (a live view's and a
// replay's, two threads' filters) each keep theirs.
func unused(base string, exts ...string) string {
	for n := 1; ; n++ {
		name := base
		if n > 1 {
			name = fmt.Sprintf("%s-%d", base, n)
		}
		taken := false
		for _, ext := range exts {
			if _, err := os.Lstat(name + ext); err == nil {
				taken = true
			}
		}
		if !taken || n > 999 {
			return name
		}
	}
}

// writeBundle writes a triage bundle into the working directory.
func (m *Model) writeBundle() tea.Cmd {
	if m.cfg.Bundle == nil {
		m.notice = "no bundle can be written from here"
		return nil
	}
	if m.bundling {
		m.notice = "a bundle is being written"
		return nil
	}
	m.bundling = true
	now := time.Now()
	path := unused(stamp("proftop-bundle", now), ".tar.gz") + ".tar.gz"
	m.notice = "writing the bundle " + path + "…"
	if m.trip.shown() != nil || m.paused {
		// A bundle is of now: its history holds the moment shown, its
		// picture.json and threads.txt are of now.
		m.notice = "writing the bundle " + path + " of now (its history holds the moment shown)…"
	}
	m.bundleNote = m.notice
	write := m.cfg.Bundle
	return func() tea.Msg {
		what, err := write(path, now)
		return fileMsg{what: what, err: err, bundle: true}
	}
}

// exportProfile writes the call tree of the moment or window shown (the
// open call tree's, with its thread filter) as a pprof profile and as
// collapsed stacks, into the working directory, named by the moment
// exported.
func (m *Model) exportProfile() tea.Cmd {
	agg, recent, tree := m.agg, m.recent, m.tree
	moment := time.Now()
	span := export.Span{From: moment.Add(-10 * time.Second), To: moment}
	if m.snap != nil {
		moment = m.snap.Taken
		span = profileSpan(m.snap, recent)
		span.Source = m.status.Source
	}
	var build func() *state.CallTree
	switch p := m.trip.shown(); {
	case tree != nil:
		build = func() *state.CallTree { return tree }
	case p != nil:
		pics, at, window := m.trip.pics, m.trip.at, m.snap.Window
		build = func() *state.CallTree { return state.PastCallTree(pics, at, window, nil, agg.TreeShape) }
	default:
		if m.paused && m.frozen != nil {
			m.notice = "frozen: the profile is of now, when written (step back with ← for a moment of the history)"
			moment = time.Now()
		}
		build = func() *state.CallTree {
			shape, figs := agg.TreeAndShape(recent)
			return state.BuildCallTree(shape, nil, figs)
		}
	}
	stamped := stamp("proftop-profile", moment)
	return func() tea.Msg {
		base := unused(stamped, ".pb.gz", ".collapsed") // off the UI goroutine, as the writing
		t := build()
		if len(t.Nodes) <= 1 {
			return fileMsg{err: fmt.Errorf("no stacks in the span shown: nothing to export")}
		}
		files := []struct {
			name  string
			write func(io.Writer) error
		}{
			{base + ".pb.gz", func(w io.Writer) error { return export.Pprof(w, t, span) }},
			{base + ".collapsed", func(w io.Writer) error { return export.Collapsed(w, t, export.ValueAuto) }},
		}
		for _, f := range files {
			if _, err := atomicfile.Write(f.name, "the profile", 0o644, f.write); err != nil {
				return fileMsg{err: err}
			}
		}
		dir, _ := filepath.Abs(".")
		return fileMsg{what: fmt.Sprintf("profile written: %s.pb.gz (go tool pprof) and %s.collapsed (flame graphs), in %s", base, base, dir)}
	}
}

// profileSpan is what a profile of a snapshot covers, in the trace's
// time: the window that ended at its latest event, or since watching
// began (its first event), which is what the call tree since the start
// holds: not since the process started, long before, which made a 15 s
// profile read as 0.9% of 213 s.
func profileSpan(s *state.Snapshot, recent bool) export.Span {
	to := s.Clock
	if to.IsZero() {
		to = s.Taken
	}
	span := export.Span{To: to, Sampled: s.Sampled, From: to.Add(-s.Window)}
	if !recent {
		span.From = s.TreeSince()
	}
	return span
}

// memMeter reads proftop's own memory: the resident set on Linux, else
// what the Go runtime holds from the system.
func processMemory() int64 {
	if data, err := os.ReadFile("/proc/self/statm"); err == nil {
		if f := strings.Fields(string(data)); len(f) > 1 {
			if pages, err := strconv.ParseInt(f[1], 10, 64); err == nil {
				return pages * int64(os.Getpagesize())
			}
		}
	}
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return int64(ms.Sys)
}
