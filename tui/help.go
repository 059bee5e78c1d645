package tui

import (
	"slices"
	"strings"

	"charm.land/bubbles/v2/key"

	"github.com/proftop/proftop/client"
)

// The help screen and the footer. The help lays its groups out in as many
// columns as the terminal holds and scrolls when they do not fit (80×24
// shows them all, in two columns); the footer offers what the view at hand
// takes, and always ? and q.

// helpView is the open help screen.
type helpView struct {
	offset int
}

// helpGroup is one group of the help screen.
type helpGroup struct {
	title string
	keys  []key.Binding
}

func (m *Model) helpGroups() []helpGroup {
	k := m.keys
	var source []helpGroup
	if len(m.commands) > 0 {
		// First, so that a short terminal shows them without scrolling.
		source = []helpGroup{{"Source", commandBindings(m.commands)}}
	}
	// Keys of what the source has: coverage's and probes' panes, the methods' two views.
	panes := []key.Binding{k.Pane[0], k.Pane[1], k.Pane[2], k.Pane[3], k.Pane[4]}
	if m.paneShown(paneCoverage) {
		panes = append(panes, k.Pane[5])
	}
	panes = append(panes, k.Pane[6])
	if m.paneShown(paneProbes) {
		panes = append(panes, k.Pane[7])
	}
	view := []key.Binding{k.Pause, k.Recent, k.Group}
	if m.snap != nil && (m.snap.Views || len(m.snap.Objects.Census) > 0) {
		view = append(view, k.View)
	}
	return append(source, []helpGroup{
		{"Panes", append(panes, k.NextPane, k.PrevPane)},
		{"Tables", []key.Binding{k.Up, k.Down, k.PageUp, k.PageDown, frozenAside(k.Top, "g"), frozenAside(k.Bottom, "G"), k.Enter, k.Back}},
		{"Sort and filter", []key.Binding{k.Sort, k.SortNext, k.Reverse, k.Filter}},
		{"View", append(view, k.Faster, k.Slower, k.Reset, k.Help, k.Quit)},
		{"History (frozen)", []key.Binding{k.StepBack, k.StepOn, k.MinuteBack, k.MinuteOn, k.Oldest, k.Latest, k.NextMark}},
		{"Call tree and files", []key.Binding{k.Tree, k.Expand, k.Collapse, k.Flame, k.Export, k.Bundle}},
	}...)
}

// frozenAside is a table key's help saying which of its keys still does
// it when frozen: home and end then walk the history (k.Oldest, k.Latest),
// and the help listed both as going to the first and last rows.
func frozenAside(b key.Binding, stays string) key.Binding {
	h := b.Help()
	return key.NewBinding(key.WithKeys(b.Keys()...), key.WithHelp(h.Key, h.Desc+" (frozen: "+stays+" only)"))
}

// helpNotes are the paragraphs under the keys: what the figures are. Each
// is one string, flowed to the width the help has.
func (m *Model) helpNotes() []string {
	return []string{
		"Refresh every " + dur(m.refresh) + " (100ms to 10s). Frozen, the data keeps being gathered.",
		m.threadsNote(),
		"Hot methods: measured from entries and exits, or sampled (the title says so): " +
			"a sampled method's time is the CPU time of the threads sampled in it; \"(not sampled)\" is the CPU time of threads " +
			"that ran between two polls with no sample taken of them (the JVM agent's).",
		"Monitors: BLKD and WAIT are now; ENTERS, BLOCKED, AVG and MAX are " + countedFrom(m.snap) + ", " +
			"contentions in progress included. m groups locks by class and site.",
		"Telemetry: series \"X (1)\"…\"X (n)\" are one group (its sum, or most); enter shows " +
			"a series or group large, with its scale. Probes: the application's JFR events.",
		m.historyNote(),
		"Marks on the timeline: D a deadlock began, G a GC pause far above the median, " +
			"C contention peaked; · a cell that holds pictures (a blank one falls between two: " +
			"the line has fewer cells than the history has pictures, or more). Every pane and drill-in shows the moment shown.",
	}
}

// threadsNote says what the threads' states and CPU times are, for the
// source shown: they are as good as what it measures.
func (m *Model) threadsNote() string {
	s, still := m.snap, m.status.Still
	if s == nil {
		return "Threads: the state and CPU time as the source tells them."
	}
	var note string
	switch {
	case s.Polled:
		note = "Threads: the state is the source's latest thread poll (jstack's states)"
	case still:
		note = "Threads: running or ended, as the snapshot says (isAlive)"
	default:
		note = "Threads: the state is derived from the source's events (running unless a contention, wait or sleep is under way; unknown after a trace's end)"
	}
	switch {
	case s.ThreadCPU && s.Polled:
		note += "; CPU is measured by the JVM (ThreadMXBean), since the thread started; BLOCKED and WAITING count " + countedFrom(s) + "."
	case s.ThreadCPU && still:
		note += "; CPU is the snapshot's (cpuTime)."
	case s.ThreadCPU:
		note += "; CPU is the trace's readings of the threads' CPU time."
	case s.Sampled:
		note += "; CPU is not measured (–): %CPU is the thread's share of the stack samples."
	default:
		note += "; this source measures no CPU time (–)."
	}
	return note + " STARTED – : the thread was running before watching began."
}

// helpLines draws the help screen in h lines.
func (m *Model) helpLines(h int) []string {
	inner := max(m.width-4, 20)
	var cols [][]string
	for _, g := range m.helpGroups() {
		col := []string{m.st.Title.Render(g.title)}
		for _, b := range g.keys {
			hb := b.Help()
			if hb.Key == "" {
				continue
			}
			col = append(col, m.st.Key.Render(padText(hb.Key, 10))+" "+m.st.Desc.Render(hb.Desc))
		}
		cols = append(cols, col)
	}
	body := layoutColumns(cols, inner)
	body = append(body, "")
	for _, n := range m.helpNotes() {
		for _, l := range wrapWords(n, inner, 20) {
			body = append(body, m.st.Muted.Render(l))
		}
	}
	room := max(h-2, 1)
	m.help.offset = min(m.help.offset, max(len(body)-room, 0))
	title := "Help · any key closes"
	if len(body) > room {
		title = "Help · ↑↓ scroll, any other key closes"
	}
	return frame(title, body[m.help.offset:], m.width, h, true, &m.st, m.cfg.ASCII)
}

// layoutColumns places the columns side by side while they fit in width,
// starting a new band of columns below when they do not.
func layoutColumns(cols [][]string, width int) []string {
	var out []string
	for len(cols) > 0 {
		n, used := 0, 0
		var widths []int
		for _, c := range cols {
			w := 0
			for _, l := range c {
				w = max(w, widthOf(l))
			}
			if n > 0 && used+3+w > width {
				break
			}
			widths = append(widths, w)
			used += w + 3
			n++
		}
		band := cols[:n]
		cols = cols[n:]
		rows := 0
		for _, c := range band {
			rows = max(rows, len(c))
		}
		for r := range rows {
			var b strings.Builder
			for i, c := range band {
				cell := ""
				if r < len(c) {
					cell = c[r]
				}
				if i < len(band)-1 {
					cell = padRight(cell, widths[i]+3)
				}
				b.WriteString(cell)
			}
			out = append(out, clip(b.String(), width))
		}
		out = append(out, "")
	}
	return out
}

func padText(s string, w int) string {
	if widthOf(s) >= w {
		return s
	}
	return s + strings.Repeat(" ", w-widthOf(s))
}

// footerItem is one key of the footer; keep items survive a narrow terminal.
type footerItem struct {
	key, desc string
	keep      bool
}

// footer offers what the view at hand takes: a notice, the filter being
// typed, or its keys, dropping from the right those that do not fit but
// never ? and q.
func (m *Model) footer() string {
	switch {
	case m.filtering:
		return clip(m.filterInput.View()+"  "+m.st.Muted.Render("enter keep · esc cancel · !x inverts")+"  "+m.st.Bad.Render(m.notice), m.width)
	case m.notice != "":
		return wrapNotice(m.notice, m.width, m.st.Warn)
	case m.bundling:
		// A long history takes tens of seconds to write: the notice aged
		// out, or a key cleared it, while the bundle was still coming.
		return wrapNotice(m.bundleNote, m.width, m.st.Warn)
	}
	var items []footerItem
	switch {
	case m.help != nil:
		items = []footerItem{{"↑↓", "scroll", true}, {"any key", "close", true}}
	case m.ctree != nil:
		items = []footerItem{{"esc q", "back", true}, {"enter l h", "open/close", false}, {"/", "threads", false}, {"f", "flame", false},
			{"e", "export", false}, {"?", "help", true}}
		if m.paused {
			items = append(items, footerItem{"← →", "step", false})
		}
	case m.paused && m.trip != nil:
		items = []footerItem{{"space", "live", true}, {"← →", "step", false}, {"[ ]", "minute", false}, {"n N", "marks", false},
			{"home end", "ends", false}, {"t", "call tree", false}, {"w", "bundle", false}, {"?", "help", true}, {"q", "quit", true}}
	case m.detail != nil:
		items = []footerItem{{"esc q", "back", true}, {"↑↓ pgup pgdn", "scroll", false}, {"?", "help", true}, {"space", "freeze", false}}
	case m.focus == paneTelemetry:
		items = []footerItem{{"?", "help", true}, {"tab", "pane", false}, {"enter", "chart", false}, {"/", "filter", false},
			{"s < >", "sort", false}, {"space", "freeze", false}, {"q", "quit", true}}
	case m.focus == paneGC:
		items = []footerItem{{"?", "help", true}, {"tab", "pane", false}, {"space", "freeze", false}, {"+ -", "refresh", false}, {"q", "quit", true}}
	default:
		// Only the keys of the pane at hand (c and v act on the methods,
		// m on the monitors), before the common ones a narrow footer drops.
		items = []footerItem{{"?", "help", true}, {"tab", "pane", false}, {"enter", "drill in", false}}
		switch m.focus {
		case paneMethods:
			items = append(items, footerItem{"c", "span", false}, footerItem{"t", "call tree", false})
			if m.snap != nil && m.snap.Views {
				items = append(items, footerItem{"v", "view", false})
			}
		case paneMonitors:
			items = append(items, footerItem{"m", "group locks", false})
		}
		items = append(items, footerItem{"/", "filter", false}, footerItem{"s < >", "sort", false}, footerItem{"space", "freeze", false},
			footerItem{"q", "quit", true})
	}
	if m.cfg.Fleet && m.help == nil && m.detail == nil {
		items[len(items)-1] = footerItem{"esc q", "fleet", true}
	}
	if m.help == nil && len(m.commands) > 0 {
		items = append(append([]footerItem{items[0]}, commandFooter(m.commands)...), items[1:]...)
	}
	if m.help == nil && m.detail == nil && m.focus == paneObjects && m.snap != nil && len(m.snap.Objects.Census) > 0 {
		// The pane's own view, first after "?": what it shows is its to switch.
		view := footerItem{"v", "census", false}
		if m.census {
			view.desc = "classes"
		}
		items = append(items[:1:1], append([]footerItem{view}, items[1:]...)...)
	}
	command := func(it footerItem) bool { // a source's: when one does not fit, "?" says there are more
		return slices.ContainsFunc(m.commands, func(c client.Command) bool { return c.Key == it.key })
	}
	render := func(keep func(footerItem) bool) string {
		kept := make([]bool, len(items))
		all := true // every command shown
		for i, it := range items {
			kept[i] = keep(it)
			all = all && (kept[i] || !command(it))
		}
		var parts []string
		for i, it := range items {
			if kept[i] {
				desc := it.desc
				if it.key == "?" && !all {
					desc = "more" // the commands that did not fit are in the help
				}
				parts = append(parts, m.st.Key.Render(it.key)+" "+m.st.Desc.Render(desc))
			}
		}
		return strings.Join(parts, m.st.Desc.Render(" · "))
	}
	for drop := len(items); drop >= 0; drop-- {
		n := 0
		line := render(func(it footerItem) bool {
			if it.keep {
				return true
			}
			n++
			return n <= drop
		})
		if widthOf(line) <= m.width {
			return line
		}
	}
	return clip(render(func(it footerItem) bool { return it.keep }), m.width)
}

// wrapNotice fits a notice in the footer: wrapped on a second line when
// it is longer than one (a file written names its path, which is the
// point), cut with "…" only beyond two.
func wrapNotice(notice string, w int, style Style) string {
	lines := wrapWords(notice, w, noticeLines)
	if len(lines) == 0 {
		lines = []string{clip(notice, w)} // blanks only: a line still
	}
	for i, l := range lines {
		lines[i] = style.Render(l)
	}
	return strings.Join(lines, "\n")
}

// noticeLines is how many lines a notice may take at the foot.
const noticeLines = 2

// footerHeight is how many lines a footer takes.
func footerHeight(footer string) int { return strings.Count(footer, "\n") + 1 }

// fitFooter keeps a footer of more than one line (a long notice) where
// the room below the header leaves the body three lines beside it; else
// its first line, cut at the width.
func fitFooter(footer string, room, width int) string {
	if h := footerHeight(footer); h > 1 && room-h < 3 {
		return clip(strings.SplitN(footer, "\n", 2)[0], width)
	}
	return footer
}
