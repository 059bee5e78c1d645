package tui

import (
	tea "charm.land/bubbletea/v2"

	"github.com/proftop/proftop/client"
	"github.com/proftop/proftop/state"
)

// Two views of the hot methods, for a source that measured calls and also
// sampled (a ProfilerJ snapshot: its instrumented call tree and its
// sampler's hits), as the tool's own viewer had them: `v` switches. The
// call tree's view counts CALLS; the sampler's counts HITS (the samples
// with the method on top) and shares each thread's CPU time among them.

// samplerMethodCols are the methods' columns in the sampler's view.
var samplerMethodCols = func() []column {
	cols := append([]column(nil), methodCols...)
	cols[2].title = "HITS"
	return cols
}()

// viewMethods returns the rows of one view: all rows when the snapshot
// has one view.
func viewMethods(s *state.Snapshot, sampler bool) []state.Method {
	if !s.Views || s.Page != nil { // a page holds the rows of the view asked for
		return s.Methods
	}
	out := make([]state.Method, 0, len(s.Methods))
	for _, m := range s.Methods {
		if m.Sampler == sampler {
			out = append(out, m)
		}
	}
	return out
}

// methodViewRows is the data of the methods pane in a view.
func methodViewRows(s *state.Snapshot, sampler bool) methodRows {
	sampler = sampler && s.Views
	r := newMethodRows(s)
	r.s, r.hits = viewMethods(s, sampler), sampler
	if sampler {
		r.total = s.SamplerSelf
	}
	return r
}

// methodsViewTitle is the methods pane's title in a view; keyHint adds
// the key that switches views.
func methodsViewTitle(s *state.Snapshot, sampler, keyHint bool) string {
	if s == nil || !s.Views {
		return methodsTitle(s)
	}
	t := "Hot methods · cumulative"
	if s.Recent {
		t = "Hot methods · last " + dur(s.Window)
	}
	switch {
	case sampler && keyHint:
		return t + " · sampler hits, CPU shared among them (v: call tree)"
	case sampler:
		return t + " · sampler hits, CPU shared among them"
	case keyHint:
		return t + " · call tree (v: sampler hits)"
	}
	return t + " · call tree"
}

// viewCache keeps the rows of the methods' view shown, per snapshot.
type viewCache struct {
	snap    *state.Snapshot
	sampler bool
	rows    methodRows
}

// methodRows is the methods pane's data in the view shown; its columns
// follow the view.
func (m *Model) methodRows(s *state.Snapshot) methodRows {
	sampler := m.sampler && s.Views
	t := m.tables[paneMethods]
	if sampler {
		t.cols = samplerMethodCols
	} else {
		t.cols = methodCols
	}
	if c := &m.views; c.snap != s || c.sampler != sampler {
		*c = viewCache{snap: s, sampler: sampler, rows: methodViewRows(s, sampler)}
	}
	return m.views.rows
}

// switchView shows the other view of the methods, when the source has two.
func (m *Model) switchView() tea.Cmd {
	if m.snap == nil || !m.snap.Views {
		m.notice = "this source has one view of its methods"
		return nil
	}
	m.sampler = !m.sampler
	m.notice = "methods: the call tree (calls measured)"
	if m.sampler {
		m.notice = "methods: the sampler's hits (CPU time shared among them)"
	}
	return nil
}

// paneShown says a pane has its tab: Coverage only when there is some;
// Probes when there are some, or the source can be asked for them; of a
// file, or a source that has ended, Objects and Telemetry only when it
// has some (a live source's may be on their way: an agent's first poll,
// a census asked of rbkit). A pane shown keeps its tab.
func (m *Model) paneShown(p paneID) bool {
	s := m.snap
	mayCome := s == nil || m.status.Negotiation != client.OutcomeFile && m.status.Negotiation != client.OutcomeBundle && m.status.State != client.StateEnded
	switch p {
	case paneCoverage:
		return s != nil && len(s.Coverage) > 0
	case paneObjects:
		return m.focus == paneObjects || mayCome || s.HasObjects
	case paneTelemetry:
		return m.focus == paneTelemetry || mayCome || hasTelemetry(s)
	case paneProbes:
		return m.focus == paneProbes || m.status.Probing || s != nil && len(s.Probes) > 0
	}
	return true
}

// paneWhyNot says why a pane has no tab.
func paneWhyNot(p paneID) string {
	switch p {
	case paneProbes:
		return "this source has no probes: --probe asks proftop's JVM agent for them"
	case paneObjects:
		return "this source reports no objects (allocations, frees or a census)"
	case paneTelemetry:
		return "this source sends no telemetry series"
	}
	return "this source reports no line coverage"
}

// nextPane is the pane step panes away (1 forward, numPanes-1 back),
// passing those not shown.
func (m *Model) nextPane(step int) paneID {
	p := m.focus
	for range numPanes {
		p = (p + paneID(step)) % numPanes
		if m.paneShown(p) {
			break
		}
	}
	return p
}
