package tui

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"

	"github.com/proftop/proftop/client"
	"github.com/proftop/proftop/state"
)

// Config is what the interface needs from the settings: a plain struct,
// viper stays in main and config.
type Config struct {
	Refresh time.Duration // time between snapshots, 100 ms to 10 s
	Theme   string        // "dark" or "light"
	ASCII   bool          // ASCII sparklines and borders instead of block characters
	Recent  bool          // start the methods pane on the window rather than cumulative
}

// Refresh bounds.
const (
	MinRefresh = 100 * time.Millisecond
	MaxRefresh = 10 * time.Second
)

// agentChooser is a source that can be told which agent to attach to.
type agentChooser interface {
	SelectAgent(spec string)
}

// Model is the root model: it owns the state and routes the keys; the
// panes are plain renderers.
type Model struct {
	cfg    Config
	keys   KeyMap
	st     Styles
	help   help.Model
	src    client.Source
	agg    *state.Aggregator
	meter  *cpuMeter
	width  int
	height int

	refresh time.Duration
	fetched uint64          // sequence of the latest snapshot asked for
	applied uint64          // sequence of the latest snapshot received
	snap    *state.Snapshot // what is shown
	latest  *state.Snapshot // the newest, which differs from snap while paused
	status  client.Status
	cpu     float64
	paused  bool
	recent  bool
	grouped bool // monitors by class and site
	sampler bool // methods: the sampler's view of a source with two
	views   viewCache
	focus   paneID
	tables  [numPanes]*table // nil for the GC pane
	detail  *detailView
	help2   bool // the help screen is open
	notice  string
	chooser int

	filtering   bool
	filterInput textinput.Model
	filterPrev  string
	filters     [numPanes]string

	cache [numPanes]paneCache
}

type detailView struct {
	kind   paneID
	key    int64
	offset int
}

// paneCache keeps a pane's rendering until its data, size or state change.
type paneCache struct {
	key   cacheKey
	lines []string
}

type cacheKey struct {
	snap    *state.Snapshot
	w, h    int
	focused bool
	sortCol int
	flipped bool
	filter  string
	selID   int64
	offset  int
	sampler bool
}

// New returns the model for a source whose events feed agg.
func New(cfg Config, src client.Source, agg *state.Aggregator) *Model {
	cfg.Refresh = min(max(cfg.Refresh, MinRefresh), MaxRefresh)
	m := &Model{
		cfg:     cfg,
		keys:    DefaultKeyMap(),
		st:      NewStyles(cfg.Theme),
		help:    help.New(),
		src:     src,
		agg:     agg,
		meter:   newCPUMeter(),
		refresh: cfg.Refresh,
		recent:  cfg.Recent,
		tables: [numPanes]*table{
			paneThreads:  newTable(threadCols, 4),
			paneMethods:  newTable(methodCols, 3),
			paneMonitors: newTable(monitorCols, 6),
			paneObjects:  newTable(objectCols, 1),
			paneCoverage: newTable(coverageCols, 0),
		},
	}
	m.help.Styles.ShortKey, m.help.Styles.FullKey = m.st.Key, m.st.Key
	m.help.Styles.ShortDesc, m.help.Styles.FullDesc = m.st.Desc, m.st.Desc
	m.filterInput = textinput.New()
	m.filterInput.Prompt = "/"
	return m
}

// snapshotMsg delivers a snapshot built off the UI goroutine.
type snapshotMsg struct {
	seq    uint64 // the order it was asked for in
	snap   *state.Snapshot
	status client.Status
	cpu    float64
	ticked bool // from the refresh timer: schedule the next one
}

type tickMsg struct{}

func (m *Model) Init() tea.Cmd { return m.fetch(true) }

// query is what the current view needs from a snapshot.
func (m *Model) query() state.Query {
	// A still picture (a snapshot file) has no timeline: its figures are cumulative.
	q := state.Query{Recent: m.recent && !m.status.Still, CallersOf: -1, GroupMonitors: m.grouped}
	if d := m.detail; d != nil {
		switch d.kind {
		case paneThreads:
			q.StackOf = d.key >> 12
		case paneMethods:
			q.CallersOf = int32(d.key)
		}
	}
	return q
}

// fetch builds a snapshot in a command, off the UI goroutine. Commands
// run concurrently, so each snapshot is numbered: one asked for earlier
// but arriving later is dropped.
func (m *Model) fetch(ticked bool) tea.Cmd {
	m.fetched++
	q, agg, src, meter, seq := m.query(), m.agg, m.src, m.meter, m.fetched
	return func() tea.Msg {
		return snapshotMsg{seq: seq, snap: agg.Snapshot(time.Now(), q), status: src.Status(), cpu: meter.sample(), ticked: ticked}
	}
}

func (m *Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.width, m.height = msg.Width, msg.Height
		m.help.SetWidth(msg.Width)
		return m, nil
	case snapshotMsg:
		var next tea.Cmd
		if msg.ticked {
			next = tea.Tick(m.refresh, func(time.Time) tea.Msg { return tickMsg{} })
		}
		if msg.seq < m.applied {
			m.agg.Release(msg.snap) // stale: never shown
			return m, next
		}
		m.applied = msg.seq
		oldLatest, oldSnap := m.latest, m.snap
		m.latest, m.status, m.cpu = msg.snap, msg.status, msg.cpu
		if !m.paused || m.snap == nil {
			m.snap = msg.snap
		}
		m.release(oldLatest, oldSnap)
		return m, next
	case tickMsg:
		return m, m.fetch(true)
	case tea.KeyPressMsg:
		return m.key(msg)
	}
	if m.filtering {
		var cmd tea.Cmd
		m.filterInput, cmd = m.filterInput.Update(msg)
		return m, cmd
	}
	return m, nil
}

// key routes a key press: the filter input first, then global keys, then
// the open detail or the focused pane.
func (m *Model) key(msg tea.KeyPressMsg) (tea.Model, tea.Cmd) {
	k := m.keys
	if m.filtering {
		return m.filterKey(msg)
	}
	if m.help2 {
		if key.Matches(msg, k.Quit) && msg.String() == "ctrl+c" {
			return m, tea.Quit
		}
		m.help2 = false
		return m, nil
	}
	m.notice = ""
	switch {
	case key.Matches(msg, k.Quit):
		return m, tea.Quit
	case key.Matches(msg, k.Help):
		m.help2 = true
		return m, nil
	case key.Matches(msg, k.Pause):
		m.paused = !m.paused
		if !m.paused {
			old := m.snap
			m.snap = m.latest
			m.release(old)
		}
		return m, nil
	case key.Matches(msg, k.Reset):
		m.agg.Reset()
		m.notice = "statistics reset"
		return m, m.fetch(false)
	case key.Matches(msg, k.Faster):
		m.refresh = max(m.refresh/2, MinRefresh)
		m.notice = "refresh every " + dur(m.refresh)
		return m, nil
	case key.Matches(msg, k.Slower):
		m.refresh = min(m.refresh*2, MaxRefresh)
		m.notice = "refresh every " + dur(m.refresh)
		return m, nil
	case key.Matches(msg, k.Recent):
		if m.status.Still {
			m.notice = "a still picture (a snapshot) has no timeline: its figures are cumulative"
			return m, nil
		}
		m.recent = !m.recent
		return m, m.fetchUnpaused()
	case key.Matches(msg, k.View):
		return m, m.switchView()
	case key.Matches(msg, k.Group):
		m.grouped = !m.grouped
		m.notice = "monitors: one row per lock"
		if m.grouped {
			m.notice = "monitors: one row per class and site"
		}
		return m, m.fetchUnpaused()
	}
	if m.status.State == client.StateChoosingAgent && m.detail == nil {
		return m.chooseKey(msg)
	}
	if m.detail != nil {
		return m.detailKey(msg)
	}
	switch {
	case key.Matches(msg, k.NextPane):
		m.focus = m.nextPane(1)
		return m, nil
	case key.Matches(msg, k.PrevPane):
		m.focus = m.nextPane(int(numPanes) - 1)
		return m, nil
	}
	for i, b := range k.Pane {
		if key.Matches(msg, b) {
			if !m.paneShown(paneID(i)) {
				m.notice = "this source reports no line coverage"
				return m, nil
			}
			m.focus = paneID(i)
			return m, nil
		}
	}
	return m.tableKey(msg)
}

// release hands snapshots no longer shown back to the aggregator for reuse.
func (m *Model) release(snaps ...*state.Snapshot) {
	for i, s := range snaps {
		if s == nil || s == m.snap || s == m.latest || slices.Contains(snaps[:i], s) {
			continue
		}
		m.agg.Release(s)
	}
}

// fetchUnpaused asks for a snapshot now, unless the view is frozen.
func (m *Model) fetchUnpaused() tea.Cmd {
	if m.paused {
		return nil
	}
	return m.fetch(false)
}

func (m *Model) tableKey(msg tea.KeyPressMsg) (tea.Model, tea.Cmd) {
	if m.focus == paneGC || m.snap == nil {
		return m, nil
	}
	t, d := m.tables[m.focus], m.rows(m.focus, m.snap)
	page := max(m.paneHeight()-3, 1)
	t.layout(d, page) // the selection as the snapshot now has it
	k := m.keys
	switch {
	case key.Matches(msg, k.Up):
		t.move(d, -1)
	case key.Matches(msg, k.Down):
		t.move(d, 1)
	case key.Matches(msg, k.PageUp):
		t.move(d, -page)
	case key.Matches(msg, k.PageDown):
		t.move(d, page)
	case key.Matches(msg, k.Top):
		t.move(d, -t.matched)
	case key.Matches(msg, k.Bottom):
		t.move(d, t.matched)
	case key.Matches(msg, k.Sort):
		t.cycleSort()
	case key.Matches(msg, k.Reverse):
		t.reverse()
	case key.Matches(msg, k.Filter):
		m.filtering = true
		m.filterPrev = m.filters[m.focus]
		m.filterInput.SetValue(m.filterPrev)
		m.filterInput.CursorEnd()
		return m, m.filterInput.Focus()
	case key.Matches(msg, k.Back):
		if m.filters[m.focus] != "" {
			m.filters[m.focus] = ""
			t.setFilter("")
		}
	case key.Matches(msg, k.Enter):
		if i := t.selected(d); i >= 0 {
			m.detail = &detailView{kind: m.focus, key: d.ID(i)}
			return m, m.fetch(false)
		}
	}
	return m, nil
}

func (m *Model) filterKey(msg tea.KeyPressMsg) (tea.Model, tea.Cmd) {
	t := m.tables[m.focus]
	switch msg.String() {
	case "enter":
		m.filtering = false
		m.filterInput.Blur()
		return m, nil
	case "esc":
		m.filtering = false
		m.filterInput.Blur()
		m.filters[m.focus] = m.filterPrev
		t.setFilter(m.filterPrev)
		return m, nil
	}
	var cmd tea.Cmd
	m.filterInput, cmd = m.filterInput.Update(msg)
	expr := m.filterInput.Value()
	if err := t.setFilter(expr); err != nil {
		m.notice = "bad regular expression: " + err.Error()
	} else {
		m.notice = ""
		m.filters[m.focus] = expr
	}
	return m, cmd
}

func (m *Model) detailKey(msg tea.KeyPressMsg) (tea.Model, tea.Cmd) {
	k := m.keys
	d := m.detail
	switch {
	case key.Matches(msg, k.Back), msg.String() == "backspace":
		m.detail = nil
		return m, m.fetch(false)
	case key.Matches(msg, k.Up):
		d.offset--
	case key.Matches(msg, k.Down):
		d.offset++
	case key.Matches(msg, k.PageUp):
		d.offset -= m.bodyHeight() - 1
	case key.Matches(msg, k.PageDown):
		d.offset += m.bodyHeight() - 1
	case key.Matches(msg, k.Top):
		d.offset = 0
	case key.Matches(msg, k.Bottom):
		d.offset = 1 << 30
	}
	d.offset = max(d.offset, 0)
	return m, nil
}

func (m *Model) chooseKey(msg tea.KeyPressMsg) (tea.Model, tea.Cmd) {
	agents := m.status.Agents
	switch {
	case key.Matches(msg, m.keys.Up):
		m.chooser = max(m.chooser-1, 0)
	case key.Matches(msg, m.keys.Down):
		m.chooser = min(m.chooser+1, len(agents)-1)
	case key.Matches(msg, m.keys.Enter):
		if ch, ok := m.src.(agentChooser); ok && m.chooser < len(agents) {
			ch.SelectAgent(agents[m.chooser].ID)
			m.notice = "attaching to agent " + inert(agents[m.chooser].ID)
		}
	}
	return m, nil
}

// rows returns a table pane's data over a snapshot.
func (m *Model) rows(p paneID, s *state.Snapshot) rows {
	switch p {
	case paneThreads:
		return threadRows{s: s.Threads, deadlocked: deadlockedThreads(s)}
	case paneMethods:
		return m.methodRows(s)
	case paneObjects:
		return newObjectRows(&s.Objects, m.cfg.ASCII)
	case paneCoverage:
		return coverageRows{s: s.Coverage}
	}
	return monitorRows{s: s.Monitors, deadlocked: deadlockedMonitors(s)}
}

func deadlockedThreads(s *state.Snapshot) map[int64]bool {
	if len(s.Deadlocks) == 0 {
		return nil
	}
	out := map[int64]bool{}
	for _, d := range s.Deadlocks {
		for _, t := range d.Threads {
			out[t] = true
		}
	}
	return out
}

func deadlockedMonitors(s *state.Snapshot) map[int64]bool {
	if len(s.Deadlocks) == 0 {
		return nil
	}
	out := map[int64]bool{}
	for _, d := range s.Deadlocks {
		for _, o := range d.Monitors {
			out[o] = true
		}
	}
	return out
}

// layout is how the screen divides this frame.
type layout struct {
	header []string
	grid   bool // the four panes together
	bodyH  int  // rows between the header (and tab bar) and the footer
}

// layout works out the frame: the four panes together when the terminal
// is large enough, else one pane with a tab bar.
func (m *Model) layout() layout {
	h := headerInfo{status: m.status, cpu: m.cpu, paused: m.paused, refresh: m.refresh, now: time.Now()}
	l := layout{header: append(renderHeader(h, m.snap, m.width, &m.st), renderDeadlocks(m.snap, m.width, &m.st)...)}
	l.bodyH = m.height - len(l.header) - 1
	l.grid = m.width >= 160 && l.bodyH >= 30
	if !l.grid && m.detail == nil && !m.help2 {
		l.bodyH-- // the tab bar
	}
	l.bodyH = max(l.bodyH, 3)
	return l
}

// bodyHeight is what is left between the header and the footer.
func (m *Model) bodyHeight() int { return m.layout().bodyH }

// paneHeight is the height of the focused pane.
func (m *Model) paneHeight() int {
	if l := m.layout(); l.grid {
		return l.bodyH / 2
	}
	return m.bodyHeight()
}

func (m *Model) View() tea.View {
	v := tea.NewView(m.render())
	v.AltScreen = true
	v.WindowTitle = "proftop " + inert(m.status.Source)
	return v
}

// render draws the whole screen: exactly height lines of at most width cells.
func (m *Model) render() string {
	if m.width <= 0 || m.height <= 0 {
		return "proftop: starting…"
	}
	l := m.layout()
	lines := l.header
	bodyH := l.bodyH
	switch {
	case m.help2:
		lines = append(lines, m.helpLines(bodyH)...)
	case m.snap == nil:
		lines = append(lines, padLines([]string{m.st.Muted.Render("waiting for the first snapshot…")}, bodyH)...)
	case m.status.State == client.StateChoosingAgent && m.detail == nil:
		lines = append(lines, m.chooserLines(bodyH)...)
	case m.detail != nil:
		lines = append(lines, m.detailBody(bodyH)...)
	case l.grid:
		lines = append(lines, m.gridBody(bodyH)...)
	default:
		lines = append(lines, m.tabBar())
		lines = append(lines, m.pane(m.focus, m.width, bodyH)...)
	}
	lines = append(lines, m.footer())
	if len(lines) > m.height {
		lines = lines[:m.height]
	}
	return strings.Join(lines, "\n")
}

func padLines(lines []string, h int) []string {
	for len(lines) < h {
		lines = append(lines, "")
	}
	return lines[:h]
}

func (m *Model) tabBar() string {
	var parts []string
	for i, name := range paneNames {
		if !m.paneShown(paneID(i)) {
			continue
		}
		label := fmt.Sprintf("%d %s", i+1, name)
		if paneID(i) == m.focus {
			parts = append(parts, m.st.TabActive.Render(label))
		} else {
			parts = append(parts, m.st.Tab.Render(label))
		}
	}
	return clip(strings.Join(parts, "   "), m.width)
}

func (m *Model) gridBody(h int) []string {
	lw := m.width / 2
	rw := m.width - lw
	th := h / 2
	bh := h - th
	top := joinColumns(m.pane(paneThreads, lw, th), m.pane(paneMethods, rw, th))
	if m.paneShown(paneCoverage) {
		// Coverage beside monitors, and objects beside GC.
		mw, gw := lw/2, rw/2
		left := joinColumns(m.pane(paneMonitors, mw, bh), m.pane(paneCoverage, lw-mw, bh))
		return append(top, joinColumns(left, joinColumns(m.pane(paneGC, gw, bh), m.pane(paneObjects, rw-gw, bh)))...)
	}
	if m.snap != nil && m.snap.HasObjects {
		// Objects beside GC, under the methods.
		gw := rw / 2
		bottom := joinColumns(m.pane(paneMonitors, lw, bh), joinColumns(m.pane(paneGC, gw, bh), m.pane(paneObjects, rw-gw, bh)))
		return append(top, bottom...)
	}
	bottom := joinColumns(m.pane(paneMonitors, lw, bh), m.pane(paneGC, rw, bh))
	return append(top, bottom...)
}

func joinColumns(a, b []string) []string {
	out := make([]string, len(a))
	for i := range a {
		out[i] = a[i] + b[i]
	}
	return out
}

// pane draws one pane in its frame, from the cache when nothing changed.
func (m *Model) pane(p paneID, w, h int) []string {
	focused := p == m.focus
	key := cacheKey{snap: m.snap, w: w, h: h, focused: focused, sampler: p == paneMethods && m.sampler}
	if p != paneGC {
		t := m.tables[p]
		key.sortCol, key.flipped, key.filter, key.selID, key.offset = t.sortCol, t.flipped, m.filters[p], t.selID, t.offset
	}
	if c := &m.cache[p]; c.lines != nil && c.key == key {
		return c.lines
	}
	innerW, innerH := max(w-2, 1), max(h-2, 1)
	var body []string
	title := paneNames[p]
	switch p {
	case paneGC:
		body = renderGC(m.snap, innerW, innerH, &m.st, m.cfg.ASCII)
	case paneObjects:
		if !m.snap.HasObjects {
			body = noObjects(&m.st)
			break
		}
		t, d := m.tables[p], m.rows(p, m.snap)
		body = t.render(d, innerW, innerH, &m.st, focused)
		title = objectsTitle(m.snap) + fmt.Sprintf(" · %d", t.matched)
	case paneCoverage:
		if len(m.snap.Coverage) == 0 {
			body = noCoverage(&m.st)
			break
		}
		t, d := m.tables[p], m.rows(p, m.snap)
		body = t.render(d, innerW, innerH, &m.st, focused)
		title = coverageTitle(m.snap) + fmt.Sprintf(" · %d", t.matched)
	default:
		t, d := m.tables[p], m.rows(p, m.snap)
		body = t.render(d, innerW, innerH, &m.st, focused)
		if p == paneMethods {
			title = methodsViewTitle(m.snap, m.sampler, true)
		}
		title += fmt.Sprintf(" · %d", t.matched)
		if t.matched != d.Len() {
			title += fmt.Sprintf(" of %d", d.Len())
		}
		if f := m.filters[p]; f != "" {
			title += " /" + inert(f)
		}
	}
	lines := frame(title, body, w, h, focused, &m.st, m.cfg.ASCII)
	m.cache[p] = paneCache{key: key, lines: lines}
	return lines
}

// frame draws a box of w×h cells with a title in its top border.
func frame(title string, body []string, w, h int, focused bool, st *Styles, ascii bool) []string {
	tl, tr, bl, br, hz, vt := "╭", "╮", "╰", "╯", "─", "│"
	if ascii {
		tl, tr, bl, br, hz, vt = "+", "+", "+", "+", "-", "|"
	}
	bs, ts := st.Border, st.PaneTitle
	if focused {
		bs, ts = st.BorderFocus, st.PaneFocus
	}
	innerW := max(w-2, 0)
	t := fit(" "+title+" ", min(innerW-1, len(title)+2), false)
	top := bs.Render(tl+hz) + ts.Render(t) + bs.Render(strings.Repeat(hz, max(innerW-1-widthOf(t), 0))+tr)
	out := make([]string, 0, h)
	out = append(out, top)
	for i := 0; i < h-2; i++ {
		line := ""
		if i < len(body) {
			line = body[i]
		}
		out = append(out, bs.Render(vt)+padRight(clip(line, innerW), innerW)+bs.Render(vt))
	}
	out = append(out, bs.Render(bl+strings.Repeat(hz, innerW)+br))
	return out
}

func (m *Model) detailBody(h int) []string {
	d := m.detail
	lines := detailLines(d.kind, d.key, m.snap, &m.st)
	d.offset = min(d.offset, max(len(lines)-(h-2), 0))
	body := lines[d.offset:]
	title := "Drill-in: " + paneNames[d.kind] + " (esc to go back)"
	return frame(title, body, m.width, h, true, &m.st, m.cfg.ASCII)
}

func (m *Model) chooserLines(h int) []string {
	body := []string{m.st.Warn.Render("This agent controller has several agents. Choose one (↑/↓, enter):"), ""}
	for i, a := range m.status.Agents {
		line := fmt.Sprintf("  %-4s pid %-8d %s %s", inert(a.ID), a.PID, inert(a.Name), m.st.Muted.Render(inert(a.Type+" "+a.Version)))
		if i == m.chooser {
			line = m.st.Selected.Render(line)
		}
		body = append(body, line)
	}
	return frame("Agents", body, m.width, h, true, &m.st, m.cfg.ASCII)
}

func (m *Model) helpLines(h int) []string {
	m.help.ShowAll = true
	body := strings.Split(m.help.View(m.keys), "\n")
	body = append([]string{m.st.Title.Render("Keys") + m.st.Muted.Render("  (any key closes this)"), ""}, body...)
	body = append(body, "", m.st.Muted.Render("The view refreshes every "+dur(m.refresh)+"; frozen, the data keeps being gathered and shows again when you unfreeze."))
	return frame("Help", body, m.width, h, true, &m.st, m.cfg.ASCII)
}

func (m *Model) footer() string {
	switch {
	case m.filtering:
		return clip(m.filterInput.View()+"  "+m.st.Muted.Render("enter to keep, esc to cancel")+"  "+m.st.Bad.Render(m.notice), m.width)
	case m.notice != "":
		return clip(m.st.Warn.Render(m.notice), m.width)
	}
	m.help.ShowAll = false
	return clip(m.help.View(m.keys), m.width)
}
