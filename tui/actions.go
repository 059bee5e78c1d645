package tui

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/proftop/proftop/export"
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

// stamp names a file by the time: proftop-bundle-20261121-090000.
func stamp(prefix string, now time.Time) string {
	return prefix + "-" + now.Local().Format("20060102-150405")
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
	path := stamp("proftop-bundle", now) + ".tar.gz"
	m.notice = "writing the bundle " + path + "…"
	write := m.cfg.Bundle
	return func() tea.Msg {
		what, err := write(path, now)
		return fileMsg{what: what, err: err, bundle: true}
	}
}

// exportProfile writes the call tree of the moment or window shown (the
// open call tree's, with its thread filter) as a pprof profile and as
// collapsed stacks, into the working directory.
func (m *Model) exportProfile() tea.Cmd {
	now := time.Now()
	base := stamp("proftop-profile", now)
	agg, recent, tree := m.agg, m.recent, m.tree
	var past [][]state.NodeFig
	span := export.Span{From: now.Add(-10 * time.Second), To: now}
	if m.snap != nil {
		span.Sampled, span.Source = m.snap.Sampled, m.status.Source
		span.To = m.snap.Taken
		span.From = span.To.Add(-m.snap.Window)
		if !recent {
			span.From = m.snap.Process.Started
		}
	}
	if p := m.trip.shown(); p != nil && tree == nil {
		past = state.TreeAt(m.trip.pics, m.trip.at, m.snap.Window)
	}
	if m.paused && tree == nil && past == nil && m.frozen != nil {
		m.notice = "frozen: the profile is of now, when written (step back with ← for a moment of the history)"
	}
	return func() tea.Msg {
		t := tree
		if t == nil {
			shape, figs := agg.TreeAndShape(recent)
			if past != nil {
				t = state.BuildCallTree(shape, nil, past...)
			} else {
				t = state.BuildCallTree(shape, nil, figs)
			}
		}
		if len(t.Nodes) <= 1 {
			return fileMsg{err: fmt.Errorf("no stacks in the span shown: nothing to export")}
		}
		var prof, coll bytes.Buffer
		if err := export.Pprof(&prof, t, span); err != nil {
			return fileMsg{err: err}
		}
		export.Collapsed(&coll, t, export.ValueAuto)
		for _, f := range []struct {
			name string
			data []byte
		}{{base + ".pb.gz", prof.Bytes()}, {base + ".collapsed", coll.Bytes()}} {
			if err := os.WriteFile(f.name, f.data, 0o644); err != nil {
				return fileMsg{err: fmt.Errorf("cannot write the profile: %w", err)}
			}
		}
		dir, _ := filepath.Abs(".")
		return fileMsg{what: fmt.Sprintf("profile written: %s.pb.gz (go tool pprof) and %s.collapsed (flame graphs), in %s", base, base, dir)}
	}
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
