package tui

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/proftop/proftop/client"
	"github.com/proftop/proftop/state"
)

// rows returns a table pane's data over a snapshot.
func (m *Model) rows(p paneID, s *state.Snapshot) rows {
	switch p {
	case paneThreads:
		m.tables[paneThreads].sortByDefault(threadSort(s))
		return newThreadRows(s)
	case paneMethods:
		return m.methodRows(s)
	case paneObjects:
		return m.objectRows(s)
	case paneCoverage:
		return coverageRows{s: s.Coverage}
	case paneTelemetry:
		return telemetryRows{e: m.entries.of(s), ascii: m.cfg.ASCII}
	case paneProbes:
		return newProbeRows(s.Probes)
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
	grid   bool // the panes together
	bodyH  int  // rows between the header (and tab bar) and the footer
	footer string
}

// layout works out the frame: the panes together when the terminal is
// large enough, else one pane with a tab bar.
func (m *Model) layout() layout {
	h := headerInfo{status: m.status, commands: m.commands, cpu: m.cpu, mem: m.mem, paused: m.paused, refresh: m.refresh, now: time.Now(), label: m.cfg.Label}
	if m.trip != nil {
		h.moment = m.momentText()
	}
	if m.paused {
		h.frozen = m.frozenCounts()
	}
	l := layout{header: renderHeader(h, m.snap, m.width, &m.st)}
	if tl := m.timeline(m.width); tl != "" {
		l.header = append(l.header, tl)
	}
	l.header = append(l.header, renderDeadlocks(m.snap, m.width, &m.st)...)
	l.footer = fitFooter(m.footer(), m.height-len(l.header), m.width)
	l.bodyH = m.height - len(l.header) - 1
	// The grid is chosen as for a footer of one line: a notice of two
	// does not switch the layout for as long as it shows.
	l.grid = m.width >= 160 && l.bodyH >= 30
	l.bodyH -= footerHeight(l.footer) - 1
	if !l.grid && m.detail == nil && m.help == nil && m.ctree == nil {
		l.bodyH-- // the tab bar
	}
	l.bodyH = max(l.bodyH, 3)
	return l
}

// bodyHeight is what is left between the header and the footer.
func (m *Model) bodyHeight() int { return m.layout().bodyH }

// paneHeight is the height of the focused pane.
func (m *Model) paneHeight() int {
	l := m.layout()
	if !l.grid {
		return l.bodyH
	}
	top, bottom, third := m.gridRows(l.bodyH)
	switch m.focus {
	case paneThreads, paneMethods:
		return top
	case paneTelemetry, paneProbes:
		return third
	}
	return bottom
}

func (m *Model) View() tea.View {
	if m.quitting {
		// The last frame is an empty one: a terminal that was resized
		// would otherwise keep pieces of the frame on the shell's screen
		// once the alternate screen is left.
		v := tea.NewView("")
		v.AltScreen = true
		return v
	}
	s := m.render()
	if m.cfg.ASCII {
		s = toASCII(s)
	}
	v := tea.NewView(s)
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
	case m.help != nil:
		lines = append(lines, m.helpLines(bodyH)...)
	case m.status.State == client.StateChoosingAgent && m.detail == nil:
		lines = append(lines, m.chooserLines(bodyH)...)
	case m.snap == nil || m.snap.Events == 0 && m.status.Events == 0:
		lines = append(lines, m.waitingLines(bodyH)...)
	case m.ctree != nil:
		lines = append(lines, m.treeBody(bodyH)...)
	case m.detail != nil:
		lines = append(lines, m.detailBody(bodyH)...)
	case l.grid:
		lines = append(lines, m.gridBody(bodyH)...)
	default:
		lines = append(lines, m.tabBar())
		lines = append(lines, m.pane(m.focus, m.width, bodyH)...)
	}
	lines = append(lines, strings.Split(l.footer, "\n")...)
	if len(lines) > m.height {
		lines = lines[:m.height]
	}
	return strings.Join(lines, "\n")
}

// waitingLines say, before any data came, what the source is doing.
func (m *Model) waitingLines(h int) []string {
	what := "waiting for the first data from " + inert(m.status.Source)
	switch m.status.State {
	case client.StateConnecting:
		what = "connecting to " + inert(m.status.Source) + "…"
	case client.StateNegotiating:
		what = "connected to " + inert(m.status.Source) + "; asking for the trace…"
	case client.StateReconnecting, client.StateDisconnected:
		what = "no data yet: " + inert(m.status.Cause)
	case client.StateEnded:
		// Not waiting: nothing will come (a bundle without its stream).
		what = "nothing came from " + inert(m.status.Source)
		if m.status.Cause != "" {
			what += ": " + inert(m.status.Cause)
		}
	case client.StateStreaming:
		what = "streaming from " + inert(m.status.Source) + "; waiting for the first events…"
		if m.status.Waiting != "" {
			what = inert(m.status.Waiting) + "…"
		}
	}
	body := []string{""}
	// Wrapped: a cause names hosts and says what to check, longer than 80 columns.
	for _, l := range wrapWords(what, m.width-6, max(h-3, 1)) {
		body = append(body, "  "+m.st.Muted.Render(l))
	}
	return frame("proftop", body, m.width, h, true, &m.st, m.cfg.ASCII)
}

// emptyPane says why a table shows no rows: the source does not send what
// it holds, the filter hides them all, or nothing came yet.
func (m *Model) emptyPane(p paneID, rows, width int) []string {
	if why := unfilled(m.status, p, width, &m.st); why != nil && rows == 0 {
		return why
	}
	what := "none"
	switch {
	case rows > 0:
		what = "no row matches the filter (/ changes it, esc clears it)"
	case m.snap != nil && m.snap.IsPicture():
		what = "none at this moment" // a past picture waits for nothing
	case m.status.State != client.StateEnded && !m.status.Still:
		what = "waiting for data"
	}
	return []string{m.st.Muted.Render(what)}
}

func padLines(lines []string, h int) []string {
	for len(lines) < h {
		lines = append(lines, "")
	}
	return lines[:h]
}

// tabBar names the panes, closer together on a narrow terminal, and by
// their short names when even that is too wide (all eight at 80 columns).
// Narrower still, whole tabs go (tabsAround): a tab cut to its key (a bare
// "8") says nothing.
func (m *Model) tabBar() string {
	var shown []paneID
	for i := range numPanes {
		if m.paneShown(paneID(i)) {
			shown = append(shown, paneID(i))
		}
	}
	var labels []string
	for _, names := range []*[numPanes]string{&paneNames, &paneShortNames} {
		labels = labels[:0]
		for _, p := range shown {
			label := fmt.Sprintf("%d %s", p+1, names[p])
			if p == m.focus {
				labels = append(labels, m.st.TabActive.Render(label))
			} else {
				labels = append(labels, m.st.Tab.Render(label))
			}
		}
		for _, sep := range []string{"   ", "  ", " "} {
			if line := strings.Join(labels, sep); widthOf(line) <= m.width {
				return line
			}
		}
	}
	focus := max(slices.Index(shown, m.focus), 0)
	return clip(tabsAround(labels, focus, m.width, m.st.Tab.Render("…")), m.width)
}

// tabsAround is as many whole tabs around the focused one (labels[focus])
// as fit in width, one space apart, taken in turn after it and before it;
// more marks where tabs are left out.
func tabsAround(labels []string, focus, width int, more string) string {
	if len(labels) == 0 {
		return ""
	}
	line := func(lo, hi int) string {
		out := strings.Join(labels[lo:hi+1], " ")
		if lo > 0 {
			out = more + " " + out
		}
		if hi < len(labels)-1 {
			out += " " + more
		}
		return out
	}
	lo, hi := focus, focus
	for {
		grew := false
		if hi+1 < len(labels) && widthOf(line(lo, hi+1)) <= width {
			hi, grew = hi+1, true
		}
		if lo > 0 && widthOf(line(lo-1, hi)) <= width {
			lo, grew = lo-1, true
		}
		if !grew {
			if out := line(lo, hi); widthOf(out) <= width {
				return out
			}
			return labels[focus] // without the marks, which did not fit
		}
	}
}

// hasThirdRow says whether the grid shows a third row of panes, the
// telemetry and probes: when the source sends them, or one is focused.
func (m *Model) hasThirdRow() bool {
	if m.focus == paneTelemetry || m.focus == paneProbes {
		return true
	}
	s := m.snap
	return s != nil && (hasTelemetry(s) || len(s.Probes) > 0)
}

// hasTelemetry says a snapshot has series, or problems with those asked for.
func hasTelemetry(s *state.Snapshot) bool {
	return len(s.Telemetry) > 0 || len(s.TelemetryProblems) > 0
}

// gridRows shares the body's height between the rows of panes: the
// telemetry's, when there is one, gets what it needs up to a third (its
// charts scroll); the two others share the rest by what they hold.
func (m *Model) gridRows(h int) (top, bottom, third int) {
	if m.hasThirdRow() {
		need := m.telemetryNeed(m.width - m.probesWidth())
		if m.snap != nil && len(m.snap.Probes) > 0 {
			need = max(need, 3+min(len(m.snap.Probes), 6))
		}
		third = min(max(need, 6), h/3)
		h -= third
	}
	top, bottom = m.twoRows(h)
	return top, bottom, third
}

// probesWidth is the width of the probes beside the telemetry in the
// grid's third row: none when there are no probes.
func (m *Model) probesWidth() int {
	if m.snap == nil || len(m.snap.Probes) == 0 && m.focus != paneProbes {
		return 0
	}
	return m.width / 3
}

// twoRows shares a height between the two first rows of panes by what
// they hold: each row gets what it needs when both fit, else the one that
// needs more gets more, neither less than a third.
func (m *Model) twoRows(h int) (top, bottom int) {
	need := func(panes ...paneID) int {
		n := 0
		for _, p := range panes {
			n = max(n, m.paneNeed(p))
		}
		return n
	}
	tn := need(paneThreads, paneMethods)
	bn := need(paneMonitors, paneGC, paneObjects, paneCoverage)
	switch {
	case tn+bn <= h:
		return h - bn, bn // the rest to the top: threads and methods grow
	case bn < h/3:
		return h - bn, bn
	case tn < h/3:
		return tn, h - tn
	}
	top = max(h*tn/(tn+bn), h/3)
	top = min(top, h-h/3)
	return top, h - top
}

// paneNeed is the height a pane would fill: its rows, header and frame.
func (m *Model) paneNeed(p paneID) int {
	if m.snap == nil {
		return 5
	}
	switch p {
	case paneGC:
		return 3 + gcLines(&m.snap.GC)
	case paneObjects:
		if !m.snap.HasObjects {
			return 0
		}
	case paneCoverage:
		if !m.paneShown(p) {
			return 0
		}
	}
	return 3 + max(rowCount(m.rows(p, m.snap)), 2)
}

// thirdRow draws the grid's third row: the telemetry, and the probes
// beside it when there are any.
func (m *Model) thirdRow(h int) []string {
	pw := m.probesWidth()
	if pw == 0 {
		return m.pane(paneTelemetry, m.width, h)
	}
	return joinColumns(m.pane(paneTelemetry, m.width-pw, h), m.pane(paneProbes, pw, h))
}

func (m *Model) gridBody(h int) []string {
	lw := m.width / 2
	rw := m.width - lw
	th, bh, third := m.gridRows(h)
	top := joinColumns(m.pane(paneThreads, lw, th), m.pane(paneMethods, rw, th))
	var bottom []string
	switch {
	case m.paneShown(paneCoverage):
		// Coverage beside monitors, and objects beside GC.
		mw, gw := lw/2, rw/2
		left := joinColumns(m.pane(paneMonitors, mw, bh), m.pane(paneCoverage, lw-mw, bh))
		bottom = joinColumns(left, joinColumns(m.pane(paneGC, gw, bh), m.pane(paneObjects, rw-gw, bh)))
	case m.snap != nil && m.snap.HasObjects && m.monitorsUnfilled():
		// The monitors only say why they are empty (rbkit's): a narrow
		// column, and the room to the objects' columns and their trend.
		mw := max(m.width/6, 30)
		gw := max((m.width-mw)/3, 52) // 52: the GC pane's longest lines uncut
		bottom = joinColumns(m.pane(paneMonitors, mw, bh), joinColumns(m.pane(paneGC, gw, bh), m.pane(paneObjects, m.width-mw-gw, bh)))
	case m.snap != nil && m.snap.HasObjects:
		// Objects beside GC, under the methods.
		gw := rw / 2
		bottom = joinColumns(m.pane(paneMonitors, lw, bh), joinColumns(m.pane(paneGC, gw, bh), m.pane(paneObjects, rw-gw, bh)))
	default:
		bottom = joinColumns(m.pane(paneMonitors, lw, bh), m.pane(paneGC, rw, bh))
	}
	out := append(top, bottom...)
	if third > 0 {
		out = append(out, m.thirdRow(third)...)
	}
	return out
}

// monitorsUnfilled says the monitors pane has nothing but the sentence of
// a source that reports no locks.
func (m *Model) monitorsUnfilled() bool {
	return m.status.Why(client.PaneMonitors) != "" && (m.snap == nil || len(m.snap.Monitors) == 0)
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
	key := cacheKey{snap: m.snap, w: w, h: h, focused: focused, sampler: p == paneMethods && m.sampler, census: p == paneObjects && m.census}
	if p == paneThreads || p == paneObjects {
		key.lost = m.lostTitle()
	}
	if p == paneObjects && m.snap != nil {
		m.objectRows(m.snap) // the table of the view shown
	}
	t := m.tables[p]
	if t != nil {
		key.sortCol, key.flipped, key.filter, key.selID, key.hasSel, key.offset = t.sortCol, t.flipped, m.filters[p], t.selID, t.hasSel, t.offset
	}
	if c := &m.cache[p]; c.lines != nil && c.key == key {
		return c.lines
	}
	innerW, innerH := max(w-2, 1), max(h-2, 1)
	var body []string
	title := paneNames[p]
	switch {
	case p == paneGC:
		body = renderGC(m.snap, innerW, innerH, &m.st, m.cfg.ASCII)
	case p == paneObjects && !m.snap.HasObjects:
		body = noObjects(&m.st)
	case p == paneCoverage && len(m.snap.Coverage) == 0:
		body = noCoverage(&m.st)
	case p == paneTelemetry:
		body = m.renderTelemetry(innerW, innerH, focused)
		title = telemetryTitle(m.snap, t, len(m.entries.of(m.snap)), m.filters[p])
	case p == paneProbes && len(m.snap.Probes) == 0:
		body = noProbes(m.snap, m.status.ProbeSpecs, innerW, innerH, &m.st)
	default:
		d := m.rows(p, m.snap)
		body = t.render(d, innerW, innerH, &m.st, focused)
		if rowCount(d) == 0 || t.matched == 0 {
			body = append(body[:min(len(body), 1)], m.emptyPane(p, rowCount(d), innerW)...)
		}
		switch p {
		case paneThreads:
			title += virtualTitle(m.snap)
		case paneMethods:
			title = methodsViewTitle(m.snap, m.sampler, true)
		case paneObjects:
			title = objectsTitle(m.snap)
			if m.censusShown() {
				title = censusTitle(m.snap)
			}
		case paneCoverage:
			title = coverageTitle(m.snap)
		case paneProbes:
			title = "Probes · since the start"
		}
		title += tableTitle(t, rowCount(d), m.filters[p])
		title += keptTitle(m.snap, p, rowCount(d))
		if p == paneThreads || p == paneObjects {
			title += m.lostTitle() // before what may be cut
		}
		if p == paneObjects && !m.censusShown() {
			title += objectsTitleTail(m.snap) // after the count and the sort: the first to be cut
		}
		if p == paneThreads {
			title += unlistedThreads(m.snap) // the first to be cut
		}
		if nt := notTracked(m.snap, p); nt != "" {
			title += " · " + nt
		}
	}
	lines := frame(title, body, w, h, focused, &m.st, m.cfg.ASCII)
	m.cache[p] = paneCache{key: key, lines: lines}
	return lines
}

// unlistedThreads says how many threads the JVM has that the pane does
// not list: the agent's own and JDK Flight Recorder's, which the JVM's
// thread count (the telemetry's "Live threads") and jstack include.
func unlistedThreads(s *state.Snapshot) string {
	if s == nil || s.AgentCost == nil {
		return ""
	}
	if n := s.AgentCost.AgentThreads + s.AgentCost.JFRThreads; n > 0 {
		return fmt.Sprintf(" · %d of proftop's and JFR's not listed", n)
	}
	return ""
}

// lostTitle says, while a live source is not connected, that the
// threads' states and rates and the objects' rates are the last seen, at
// the latest event (the process's clock): the process may have gone, and
// a thread "running 91%" would be a guess. A frozen view shows its
// moment, whatever the source does since.
func (m *Model) lostTitle() string {
	// Between streams, connecting and negotiating too: a source that has
	// had one (a file read to its end has ended, not lost its source).
	st := m.status.State
	if m.paused || m.snap == nil || m.status.Streams == 0 || st == client.StateStreaming || st == client.StateEnded {
		return ""
	}
	if m.snap.Clock.IsZero() {
		return " · as last seen: not connected"
	}
	return " · as last seen, " + m.snap.Clock.Local().Format("15:04:05") + ": not connected"
}

// tableTitle says how many rows, which are shown, the filter and the sort:
// "· 12–30 of 83 · /http · by CPU time ▼".
func tableTitle(t *table, total int, filter string) string {
	var b strings.Builder
	shown := len(t.order)
	switch {
	case t.matched == 0:
		fmt.Fprintf(&b, " · 0")
	case shown < t.matched:
		fmt.Fprintf(&b, " · %d–%d of %d", t.offset+1, t.offset+shown, t.matched)
	default:
		fmt.Fprintf(&b, " · %d", t.matched)
	}
	if t.matched != total {
		fmt.Fprintf(&b, " (of %d)", total)
	}
	if filter != "" {
		b.WriteString(" /" + inert(filter))
	}
	b.WriteString(" · by " + t.sortName())
	return b.String()
}

// keptTitle says, of a past picture, that a table keeps the first of more
// rows than it shows: "1–18 of 100" read as all there were, when there
// were 9,695 monitors.
func keptTitle(s *state.Snapshot, p paneID, rows int) string {
	if !s.IsPicture() {
		return ""
	}
	of := 0
	switch p {
	case paneThreads:
		of = s.KeptOf().Threads
	case paneMethods:
		of = s.KeptOf().Methods
	case paneMonitors:
		of = s.KeptOf().Monitors
	}
	if of <= rows {
		return ""
	}
	return fmt.Sprintf(" · the first %d of %d kept", rows, of)
}

// fitTitle makes a pane's title fit in w cells by leaving out whole parts
// (" · " apart), those that say least first: the sort (the column header
// marks it too), then the count of rows; never the pane's name nor what
// the pane's figures mean. Cut at the end, "Monitors · 0 · by time bl…"
// said half of a part; "Coverage · 71% of 21 lines ran · 2 · by class…"
// kept its sense only by luck. What still does not fit is cut as before.
func fitTitle(title string, w int) string {
	if widthOf(title) <= w {
		return title
	}
	parts := strings.Split(title, " · ")
	for _, leastFirst := range []func(string) bool{
		func(p string) bool { return strings.HasPrefix(p, "by ") },
		func(p string) bool { return titleCount.MatchString(p) },
	} {
		for i := len(parts) - 1; i > 0 && widthOf(strings.Join(parts, " · ")) > w; i-- {
			if leastFirst(parts[i]) {
				parts = append(parts[:i], parts[i+1:]...)
			}
		}
	}
	return strings.Join(parts, " · ")
}

// titleCount matches a title's count of rows: "9", "1–18 of 22", "3 (of 40)".
var titleCount = regexp.MustCompile(`^\d+(–\d+ of \d+)?( \(of \d+\))?( /.*)?$`)

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
	title = fitTitle(title, innerW-3)
	t := fit(" "+title+" ", min(innerW-1, widthOf(title)+2), false)
	top := bs.Render(tl+hz) + ts.Render(t) + bs.Render(strings.Repeat(hz, max(innerW-1-widthOf(t), 0))+tr)
	out := make([]string, 0, h)
	out = append(out, top)
	side := bs.Render(vt) // the same at every line: styled once
	for i := 0; i < h-2; i++ {
		line := ""
		if i < len(body) {
			line = body[i]
		}
		out = append(out, side+padRight(clip(line, innerW), innerW)+side)
	}
	out = append(out, bs.Render(bl+strings.Repeat(hz, innerW)+br))
	return out
}

func (m *Model) detailBody(h int) []string {
	d := m.detail
	var lines []string
	if d.kind == paneTelemetry {
		lines = []string{m.st.Muted.Render("this series is no longer listed")}
		if e := entryByID(m.snap, d.key); e != nil {
			lines = telemetryDetail(e, m.width-2, h-2, &m.st, m.cfg.ASCII, m.snap.TelemetryWindow)
		}
	} else {
		lines = wrapLines(detailLines(d.kind, d.key, m.snap, &m.st, m.status.Still), m.width-2)
	}
	d.offset = min(d.offset, max(len(lines)-(h-2), 0))
	body := lines[d.offset:]
	title := "Drill-in: " + paneNames[d.kind]
	if len(lines) > h-2 {
		title += fmt.Sprintf(" · lines %d–%d of %d", d.offset+1, min(d.offset+h-2, len(lines)), len(lines))
	}
	return frame(title, body, m.width, h, true, &m.st, m.cfg.ASCII)
}

// wrapLines wraps the lines longer than width at spaces (or anywhere, for a
// long name), continued lines indented, so that nothing is cut.
func wrapLines(lines []string, width int) []string {
	out := make([]string, 0, len(lines))
	for _, l := range lines {
		if widthOf(l) <= width || width < 20 {
			out = append(out, l)
			continue
		}
		for i, part := range strings.Split(ansi.Wrap(l, width-4, " ./$"), "\n") {
			if i > 0 {
				part = "    " + part
			}
			out = append(out, part)
		}
	}
	return out
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
