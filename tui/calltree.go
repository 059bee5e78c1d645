package tui

import (
	"fmt"
	"hash/fnv"
	"regexp"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/proftop/proftop/internal/javaname"
	"github.com/proftop/proftop/state"
)

// The call tree: the stacks of the span shown (the methods pane's: the
// window or since the start; at a moment of the history, the window that
// ended then), merged over the threads the filter keeps, with inclusive
// and self shares. Nodes expand and collapse; the hot paths (10% and more)
// start open. On a large terminal an icicle (a flame graph upside down,
// the root on top) of the selected node sits under the tree; on a small
// one, f switches between the two.

// treeView is the open call tree.
type treeView struct {
	explicit map[string]bool // paths the user opened (true) or closed (false)
	sel      string          // the selected node's path
	offset   int             // first row shown
	filter   string          // threads: a regular expression on their names
	re       *regexp.Regexp
	invert   bool
	flame    bool   // the icicle instead of the tree, on a small terminal
	reveal   string // a method to show when the tree arrives
}

// treeMsg delivers a call tree built off the UI goroutine.
type treeMsg struct {
	seq  uint64
	tree *state.CallTree
	span string
}

// hotShare is the share of the root from which a node starts open.
const hotShare = 10.0

// pathKey names a node by its path, which stays the same from one tree to
// the next (node numbers do not).
func pathKey(t *state.CallTree, i int32) string {
	return strings.Join(t.Path(i), "\x00")
}

// openTree opens the call tree, revealing a method when given.
func (m *Model) openTree(reveal string) tea.Cmd {
	m.ctree = &treeView{explicit: map[string]bool{}, reveal: reveal}
	m.detail = nil
	return m.treeCmd()
}

// treeCmd builds the tree of the moment shown, off the UI goroutine.
func (m *Model) treeCmd() tea.Cmd {
	if m.ctree == nil {
		return nil
	}
	m.treeSeq++
	seq, agg, recent := m.treeSeq, m.agg, m.query().Recent // a still picture has no window
	re, invert := m.ctree.re, m.ctree.invert
	var keep func(state.TreeThread) bool
	if re != nil {
		keep = func(t state.TreeThread) bool { return re.MatchString(t.Name) != invert }
	}
	window := 10 * time.Second
	if m.snap != nil && m.snap.Window > 0 {
		window = m.snap.Window
	}
	span := "since the start"
	if m.snap != nil && !m.snap.ResetAt.IsZero() {
		span = countedFrom(m.snap)
	}
	if m.status.Still {
		span = "as the snapshot has it"
	}
	if recent {
		span = "last " + dur(window)
	}
	if p := m.trip.shown(); p != nil {
		pics, at := m.trip.pics, m.trip.at
		span = fmt.Sprintf("the %s to %s", dur(window), p.At.Local().Format("15:04:05"))
		return func() tea.Msg {
			return treeMsg{seq: seq, tree: state.PastCallTree(pics, at, window, keep, agg.TreeShape), span: span}
		}
	}
	if m.paused && m.tree != nil {
		return nil // frozen: the tree stays as it was
	}
	if m.paused && recent && m.trip != nil && len(m.trip.pics) > 0 {
		// Frozen with no tree yet (or back from a picture): the newest
		// picture's window, at most a refresh before the moment frozen,
		// the same at every visit; the live tree's is of after it.
		pics, at := m.trip.pics, len(m.trip.pics)-1
		span = fmt.Sprintf("the %s to %s", dur(window), pics[at].At.Local().Format("15:04:05"))
		return func() tea.Msg {
			return treeMsg{seq: seq, tree: state.PastCallTree(pics, at, window, keep, agg.TreeShape), span: span}
		}
	}
	return func() tea.Msg {
		shape, figs := agg.TreeAndShape(recent)
		return treeMsg{seq: seq, tree: state.BuildCallTree(shape, keep, figs), span: span}
	}
}

// takeTree keeps a tree that arrived, revealing the method asked for.
func (m *Model) takeTree(msg treeMsg) {
	if msg.seq < m.treeGot || m.ctree == nil {
		return
	}
	m.treeGot, m.tree, m.treeSpan = msg.seq, msg.tree, msg.span
	v := m.ctree
	if v.reveal == "" {
		return
	}
	// The heaviest node of the method: open its path, select it.
	best := int32(-1)
	for i := range m.tree.Nodes {
		n := &m.tree.Nodes[i]
		if n.Name == v.reveal && (best < 0 || n.Total > m.tree.Nodes[best].Total || n.TotalN > m.tree.Nodes[best].TotalN) {
			best = int32(i)
		}
	}
	v.reveal = ""
	if best < 0 {
		m.notice = "the method is in no stack of the span shown"
		return
	}
	for p := m.tree.Nodes[best].Parent; p > 0; p = m.tree.Nodes[p].Parent {
		v.explicit[pathKey(m.tree, p)] = true
	}
	v.sel = pathKey(m.tree, best)
}

// open says a node shows its children.
func (m *Model) open(i int32) bool {
	if i == 0 {
		return true
	}
	if v, ok := m.ctree.explicit[pathKey(m.tree, i)]; ok {
		return v
	}
	_, total := m.tree.Value(&m.tree.Nodes[i])
	return m.tree.Percent(total) >= hotShare
}

// treeRows lists the nodes shown, in order: the open nodes' children.
func (m *Model) treeRows() []int32 {
	if m.tree == nil || len(m.tree.Nodes) == 0 {
		return nil
	}
	var out []int32
	var walk func(i int32)
	walk = func(i int32) {
		out = append(out, i)
		if m.open(i) {
			for _, k := range m.tree.Nodes[i].Kids {
				walk(k)
			}
		}
	}
	walk(0)
	return out
}

// selected is the selected row (the first when the selection is gone).
func (m *Model) selected(rows []int32) int {
	for r, i := range rows {
		if pathKey(m.tree, i) == m.ctree.sel {
			return r
		}
	}
	return 0
}

// treeKey handles the keys of the call tree.
func (m *Model) treeKey(msg tea.KeyPressMsg) (tea.Model, tea.Cmd) {
	k, v := m.keys, m.ctree
	rows := m.treeRows()
	r := 0
	if len(rows) > 0 {
		r = m.selected(rows)
	}
	page := max(m.bodyHeight()-4, 1)
	move := func(d int) {
		if len(rows) > 0 {
			r = min(max(r+d, 0), len(rows)-1)
			v.sel = pathKey(m.tree, rows[r])
		}
	}
	setOpen := func(open bool) {
		if len(rows) == 0 || rows[r] == 0 {
			return
		}
		i := rows[r]
		if !open && (!m.open(i) || len(m.tree.Nodes[i].Kids) == 0) {
			// Closed already: go to the parent.
			if p := m.tree.Nodes[i].Parent; p >= 0 {
				v.sel = pathKey(m.tree, p)
			}
			return
		}
		v.explicit[pathKey(m.tree, i)] = open
	}
	switch {
	case key.Matches(msg, k.Back), msg.String() == "backspace", key.Matches(msg, k.Quit):
		m.ctree, m.tree = nil, nil
		return m, m.fetch(false)
	case key.Matches(msg, k.Filter):
		m.filtering = true
		m.filterPrev = v.filter
		m.filterInput.SetValue(v.filter)
		m.filterInput.CursorEnd()
		return m, m.filterInput.Focus()
	case key.Matches(msg, k.Flame):
		v.flame = !v.flame
	case key.Matches(msg, k.Up):
		move(-1)
	case key.Matches(msg, k.Down):
		move(1)
	case key.Matches(msg, k.PageUp):
		move(-page)
	case key.Matches(msg, k.PageDown):
		move(page)
	case msg.String() == "g", msg.String() == "home":
		move(-len(rows))
	case msg.String() == "G", msg.String() == "end":
		move(len(rows))
	case key.Matches(msg, k.Enter):
		if len(rows) > 0 {
			setOpen(!m.open(rows[r]))
		}
	case key.Matches(msg, k.Expand), msg.String() == "right":
		setOpen(true)
	case key.Matches(msg, k.Collapse), msg.String() == "left":
		setOpen(false)
	}
	return m, nil
}

// setTreeFilter takes the thread filter being typed.
func (m *Model) setTreeFilter(expr string) error {
	v := m.ctree
	invert := strings.HasPrefix(expr, "!")
	body := strings.TrimPrefix(expr, "!")
	if body == "" {
		v.filter, v.re, v.invert = expr, nil, false
		return nil
	}
	re, err := compileFilter(body)
	if err != nil {
		return err
	}
	v.filter, v.re, v.invert = expr, re, invert
	return nil
}

// treeTitle says what the tree shows.
func (m *Model) treeTitle() string {
	t := m.tree
	title := "Call tree"
	if t == nil {
		return title + " · building…"
	}
	what := "calls' self time"
	switch {
	case m.snap != nil && m.snap.Views:
		// The measured call tree of a source that also samples (a
		// ProfilerJ snapshot): the tree is the measured calls'.
	case m.snap != nil && m.snap.Sampled && t.Weighted:
		what = "sampled CPU"
	case m.snap != nil && m.snap.Sampled:
		what = "stack samples" // a sampler that says nothing of their time (rbkit)
	case !t.Weighted:
		what = "counts"
	}
	title += " · " + m.treeSpan + " · " + what
	threads := fmt.Sprintf("%d threads", t.AllThreads)
	if m.ctree.filter != "" {
		threads = fmt.Sprintf("%d of %d threads /%s", len(t.Threads), t.AllThreads, inert(m.ctree.filter))
	} else if len(t.Threads) == 1 {
		threads = "1 thread"
	}
	return title + " · " + threads
}

// treeBody draws the call tree view in h lines: the tree, and an icicle
// under it on a large terminal (or alone, after f).
func (m *Model) treeBody(h int) []string {
	if m.tree == nil || len(m.tree.Nodes) <= 1 || m.tree.Nodes[0].TotalN == 0 {
		what := "no stacks in the span shown"
		if m.tree == nil {
			what = "building the call tree…"
		} else if !m.agg.HasStacks() {
			what = "this source sends no stacks: neither stack samples nor method entries and exits (aggregated method reports carry no stacks)"
		}
		body := []string{"", "  " + m.st.Muted.Render(what)}
		return frame(m.treeTitle(), body, m.width, h, true, &m.st, m.cfg.ASCII)
	}
	large := m.width >= 120 && h >= 30
	switch {
	case large:
		flameH := max(h*2/5, 8)
		top := frame(m.treeTitle(), m.treeLines(h-flameH-2), m.width, h-flameH, true, &m.st, m.cfg.ASCII)
		return append(top, m.flameFrame(flameH)...)
	case m.ctree.flame:
		return m.flameFrame(h)
	}
	return frame(m.treeTitle(), m.treeLines(h-2), m.width, h, true, &m.st, m.cfg.ASCII)
}

// treeLines draws the rows of the tree that fit in h lines, the column
// heads first.
func (m *Model) treeLines(h int) []string {
	t, v := m.tree, m.ctree
	rows := m.treeRows()
	r := m.selected(rows)
	v.sel = pathKey(t, rows[r])
	room := max(h-1, 1)
	v.offset = min(max(v.offset, r-room+1), r)
	v.offset = max(min(v.offset, len(rows)-room), 0)
	// A node's calls are its own: those of its method on that path (a
	// call ends at one node). Its samples are those it was on the stack
	// of, as its time is.
	unit, count, calls := "TIME", "CALLS", true
	if m.snap != nil && m.snap.Sampled && !m.snap.Views {
		unit, count, calls = "CPU", "SAMPLES", false
	}
	head := fmt.Sprintf("%7s %7s %8s %8s  %s", "TOTAL%", "SELF%", unit, count, "METHOD")
	out := []string{m.st.ColHeader.Render(head)}
	inner := m.width - 2
	for _, i := range rows[v.offset:min(v.offset+room, len(rows))] {
		n := &t.Nodes[i]
		self, total := t.Value(n)
		marker := "  "
		if len(n.Kids) > 0 {
			marker = "▸ "
			if m.open(i) {
				marker = "▾ "
			}
		}
		indent := int(n.Depth) * 2
		if indent > 40 {
			indent = 40
		}
		depth := ""
		if n.Depth > 20 {
			depth = fmt.Sprintf("[%d] ", n.Depth)
		}
		timeText := "–"
		if t.Weighted {
			timeText = dur(time.Duration(n.Total))
		}
		counted := n.TotalN // the root's: every call, or sample
		if calls && n.Parent >= 0 {
			counted = n.SelfN
		}
		line := fmt.Sprintf("%7s %7s %8s %8s  %s%s%s", pct(t.Percent(total)), pct(t.Percent(self)), timeText, countText(counted),
			strings.Repeat(" ", indent), marker, depth)
		// The name shortened as the panes shorten it, not cut at the right:
		// its class and method are what tell the nodes apart.
		line += shortMethod(inert(n.Name), inner-widthOf(line))
		line = fit(line, inner, false)
		if pathKey(t, i) == v.sel {
			line = m.st.Selected.Render(padRight(line, inner))
		}
		out = append(out, line)
	}
	return out
}

func countText(n int64) string { return count(n) }

// flameFrame draws the icicle of the selected node in a frame of h lines.
func (m *Model) flameFrame(h int) []string {
	t := m.tree
	rows := m.treeRows()
	root := rows[m.selected(rows)]
	title := "Flame (icicle) · " + inert(shortFrame(t.Nodes[root].Name)) + " · f: tree"
	if m.width >= 120 && h < m.bodyHeight() {
		title = "Flame (icicle) of the selection · " + inert(shortFrame(t.Nodes[root].Name))
	}
	return frame(title, m.icicle(root, m.width-2, h-2), m.width, h, false, &m.st, m.cfg.ASCII)
}

// icicle lays the subtree of root out in rows, the root on top, each node
// as wide as its share of its parent (a cell at least; narrower ones go).
func (m *Model) icicle(root int32, width, height int) []string {
	t := m.tree
	type span struct {
		node  int32
		start int
		width int
	}
	level := []span{{root, 0, width}}
	var out []string
	for len(level) > 0 && len(out) < height {
		line := make([]string, 0, len(level)*2)
		pos := 0
		var next []span
		for _, s := range level {
			if s.start > pos {
				line = append(line, strings.Repeat(" ", s.start-pos))
			}
			n := &t.Nodes[s.node]
			cell := "▏" + strings.Repeat(" ", s.width-1)
			if s.width >= 4 {
				cell = fit("▏"+inert(shortFrame(n.Name)), s.width, false)
			}
			line = append(line, m.flameStyle(n.Name).Render(cell))
			pos = s.start + s.width
			_, total := t.Value(n)
			if total <= 0 {
				continue
			}
			at := s.start
			for _, k := range n.Kids {
				_, kt := t.Value(&t.Nodes[k])
				w := int(int64(s.width) * kt / total)
				if w < 1 {
					break // the kids are heaviest first: the rest are narrower still
				}
				next = append(next, span{k, at, w})
				at += w
			}
		}
		out = append(out, strings.Join(line, ""))
		level = next
	}
	return out
}

// flameStyle colors a frame by its name, so that a method keeps its color.
func (m *Model) flameStyle(name string) *Style {
	h := fnv.New32a()
	h.Write([]byte(name))
	styles := []*Style{&m.st.Running, &m.st.Parked, &m.st.Waiting, &m.st.Native, &m.st.Spark, &m.st.SparkAlt}
	return styles[h.Sum32()%uint32(len(styles))]
}

// shortFrame is a frame's class and method, without its package, its
// parameters as Java reads them.
func shortFrame(name string) string {
	n, params, ok := javaname.Split(name)
	if !ok {
		return lastSegments(name, 2)
	}
	return lastSegments(n, 2) + javaname.Params(params)
}
