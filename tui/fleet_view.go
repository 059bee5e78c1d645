package tui

import (
	"fmt"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
)

// The fleet overview on screen: a header counting the JVMs by state, a
// banner naming every deadlocked JVM, the table, a line or two on the
// selected JVM (its connection, or why there is none) and the footer.

func (f *FleetModel) View() tea.View {
	if f.quitting {
		v := tea.NewView("")
		v.AltScreen = true
		return v
	}
	var s string
	title := "proftop fleet"
	if f.open >= 0 {
		m := f.models[f.open]
		s = strings.Join(append(f.elsewhere(), m.render()), "\n")
		title = "proftop " + inert(f.srcs.Label(f.open))
	} else {
		s = f.render()
	}
	if f.cfg.ASCII {
		s = toASCII(s)
	}
	v := tea.NewView(s)
	v.AltScreen = true
	v.WindowTitle = title
	return v
}

// render draws the overview: exactly height lines of at most width cells.
func (f *FleetModel) render() string {
	if f.width <= 0 || f.height <= 0 {
		return "proftop: starting…"
	}
	lines := f.header()
	lines = append(lines, f.banner()...)
	footer := fitFooter(f.footer(), f.height-len(lines), f.width)
	bodyH := max(f.height-len(lines)-footerHeight(footer), 3)
	if f.help != nil {
		lines = append(lines, f.helpLines(bodyH)...)
	} else {
		lines = append(lines, f.pane(bodyH)...)
	}
	lines = append(lines, strings.Split(footer, "\n")...)
	if len(lines) > f.height {
		lines = lines[:f.height]
	}
	return strings.Join(lines, "\n")
}

// header counts the JVMs by state and adds up their traffic.
func (f *FleetModel) header() []string {
	return fleetHeader(f.rows, fleetHeaderInfo{jvms: f.srcs.Len(), cpu: f.cpu, refresh: f.cfg.Refresh}, f.width, &f.st)
}

// fleetHeaderInfo is what the fleet's header shows besides the rows.
type fleetHeaderInfo struct {
	jvms    int
	cpu     float64       // proftop's own CPU, % of one core
	refresh time.Duration // 0 in batch output, which says when it was taken instead
	now     time.Time
}

func fleetHeader(rows fleetRows, h fleetHeaderInfo, width int, st *Styles) []string {
	label, value := st.Label.Render, st.Value.Render
	var byState [len(fleetStateNames)]int
	var events int64
	var perSec float64
	deadlocked := 0
	for i := range rows {
		r := &rows[i]
		byState[rowState(r.status.State, &r.sum)]++
		events += r.status.Events
		perSec += r.status.EventsPerSec
		if len(r.sum.Deadlocks) > 0 {
			deadlocked++
		}
	}
	l1 := []item{{text: st.Title.Render("proftop")}, {text: value("fleet of " + plural(h.jvms, "JVM"))}}
	for s, n := range byState {
		if n == 0 {
			continue
		}
		style := st.Warn
		switch s {
		case fleetLive:
			style = st.Good
		case fleetReconnecting:
			style = st.Bad
		case fleetExited, fleetGone:
			style = st.Muted
		}
		l1 = append(l1, item{text: style.Render(fmt.Sprintf("● %d %s", n, fleetStateNames[s]))})
	}
	var l2 []item
	if h.refresh == 0 {
		l2 = append(l2, item{text: label("at") + " " + value(h.now.Local().Format("2006-01-02 15:04:05"))})
	}
	l2 = append(l2, item{text: label("events") + " " + value(count(events))}, item{text: value(rate(perSec)) + label("/s")})
	if deadlocked > 0 {
		l2 = append(l2, item{text: st.Bad.Render("deadlocked " + plural(deadlocked, "JVM"))})
	}
	if h.refresh > 0 {
		l2 = append(l2, item{text: label("proftop CPU") + " " + value(costPct(h.cpu)), drop: 1},
			item{text: label("refresh") + " " + value(dur(h.refresh)), drop: 2})
	}
	return []string{joinItems(l1, width, "  "), joinItems(l2, width, "  ")}
}

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}

// banner describes each deadlocked JVM: the host first, then who waits
// for what, as the single JVM's banner says it. A small terminal
// describes one and names the others.
func (f *FleetModel) banner() []string {
	describe := 3
	if f.height < 40 {
		describe = 1
	}
	return renderFleetDeadlocks(f.rows, f.width, describe, &f.st)
}

// renderFleetDeadlocks describes the deadlocks of the first describe
// deadlocked JVMs, each wrapped as the single JVM's banner wraps
// (renderDeadlocks), and names the rest on one more line.
func renderFleetDeadlocks(rows fleetRows, width, describe int, st *Styles) []string {
	var out, more []string
	for i := range rows {
		r := &rows[i]
		if len(r.sum.Deadlocks) == 0 {
			continue
		}
		if len(out) >= describe {
			more = append(more, inert(r.name))
			continue
		}
		d := &r.sum.Deadlocks[0]
		var others string
		if n := len(r.sum.Deadlocks); n > 1 {
			others = fmt.Sprintf(" (and %d more)", n-1)
		}
		// The host stays, and the end of the cycle, as one JVM's banner keeps it.
		out = append(out, deadlockBanner(func(naming int) string {
			return "DEADLOCK on " + inert(r.name) + ": " + strings.TrimPrefix(deadlockText(d, naming), "DEADLOCK: ") + deadlockAge(d, r.sum.Clock) + others
		}, width, st)...)
	}
	if len(more) > 0 {
		out = append(out, st.Deadlock.Render(fit(" DEADLOCK also on "+strings.Join(more, ", "), width, false)))
	}
	return out
}

// elsewhere is the line over a JVM's panes that names the other JVMs
// with a deadlock now: a deadlock anywhere shows wherever one looks.
func (f *FleetModel) elsewhere() []string {
	var names []string
	for i := range f.rows {
		if i != f.open && len(f.rows[i].sum.Deadlocks) > 0 {
			names = append(names, inert(f.rows[i].name))
		}
	}
	if len(names) == 0 {
		return nil
	}
	text := fmt.Sprintf(" DEADLOCK elsewhere (%s, esc: the fleet): %s", plural(len(names), "JVM"), strings.Join(names, ", "))
	return []string{f.st.Deadlock.Render(fit(text, f.width, false))}
}

// pane draws the table in its frame, the selected JVM's status at its foot.
func (f *FleetModel) pane(h int) []string {
	innerW, innerH := max(f.width-2, 1), max(h-2, 1)
	var foot []string
	t := f.table
	t.cols = fleetColumns(f.rows, t.sortCol)
	if len(f.rows) > 0 {
		t.layout(f.rows, max(innerH-3, 1)) // the selection as it now stands
		if i := t.selected(f.rows); i >= 0 {
			foot = f.selectedLines(&f.rows[i], innerW)
		}
	}
	tableH := max(innerH-len(foot), 2)
	f.page = tableH - 1
	body := t.render(f.rows, innerW, tableH, &f.st, true)
	body = append(body, foot...)
	title := "Fleet" + tableTitle(t, len(f.rows), f.filter)
	return frame(title, body, f.width, h, true, &f.st, f.cfg.ASCII)
}

// selectedLines say where the selected JVM's connection stands: the agent
// it streams from, or, wrapped on two lines, why it has none.
func (f *FleetModel) selectedLines(r *fleetRow, width int) []string {
	st := r.status
	head := f.st.Value.Render(inert(r.name)) + "  " + stateBadge(st, time.Now(), &f.st)
	if fleetState(st.State) == fleetLive || st.Cause == "" {
		var parts []string
		if st.Agent.ID != "" {
			parts = append(parts, fmt.Sprintf("agent %s pid %d", inert(st.Agent.Name), st.Agent.PID))
		}
		if st.Format != 0 {
			parts = append(parts, st.Format.String())
		}
		if s := r.sum; !s.Process.Started.IsZero() && !s.Clock.IsZero() {
			parts = append(parts, "up "+uptime(s.Clock.Sub(s.Process.Started)))
		}
		line := head
		if len(parts) > 0 {
			line += "  " + f.st.Label.Render(strings.Join(parts, " · "))
		}
		out := []string{"", clip(line, width)}
		if r.sum.TopLock != "" {
			// A line of its own, the lock shortened rather than cut: at the
			// end of the line above, its identity (the part after the @)
			// was what the width cut off.
			figures := fmt.Sprintf(": %s blocked, %d now", dur(r.sum.TopLockBlocked), r.sum.TopLockNow)
			const lead = "  top lock "
			lock := shortLock(inert(r.sum.TopLock), max(width-widthOf(lead)-widthOf(figures), 12))
			out = append(out, clip(f.st.Label.Render(lead)+f.st.Value.Render(lock)+f.st.Label.Render(figures), width))
		}
		return out
	}
	out := []string{"", clip(head, width)}
	for _, l := range wrapWords(inert(rowCause(&st, &r.sum)), width-2, 2) {
		out = append(out, f.st.Bad.Render("  "+l))
	}
	return out
}

// footer offers the overview's keys, or the filter being typed.
func (f *FleetModel) footer() string {
	switch {
	case f.filtering:
		return clip(f.filterInput.View()+"  "+f.st.Muted.Render("enter keep · esc cancel · !x inverts")+"  "+f.st.Bad.Render(f.notice), f.width)
	case f.notice != "":
		return wrapNotice(f.notice, f.width, f.st.Warn)
	}
	items := []footerItem{{"?", "help", true}, {"enter", "open", true}, {"/", "filter", false}, {"s < >", "sort", false}, {"q", "quit", true}}
	if f.help != nil {
		items = []footerItem{{"↑↓", "scroll", true}, {"any key", "close", true}}
	}
	var parts []string
	for _, it := range items {
		parts = append(parts, f.st.Key.Render(it.key)+" "+f.st.Desc.Render(it.desc))
	}
	line := strings.Join(parts, f.st.Desc.Render(" · "))
	if widthOf(line) > f.width {
		parts = parts[:0]
		for _, it := range items {
			if it.keep {
				parts = append(parts, f.st.Key.Render(it.key)+" "+f.st.Desc.Render(it.desc))
			}
		}
		line = clip(strings.Join(parts, f.st.Desc.Render(" · ")), f.width)
	}
	return line
}

// helpLines draws the overview's help in h lines.
func (f *FleetModel) helpLines(h int) []string {
	k := f.keys
	help := func(keys, desc string) key.Binding {
		return key.NewBinding(key.WithKeys(keys), key.WithHelp(keys, desc))
	}
	groups := []helpGroup{
		{"Fleet", []key.Binding{help("enter", "open the JVM's panes"), help("esc q", "back to the fleet, from a JVM")}},
		{"Tables", []key.Binding{k.Up, k.Down, k.PageUp, k.PageDown, k.Top, k.Bottom}},
		{"Sort and filter", []key.Binding{k.Sort, k.SortNext, k.Reverse, k.Filter, help("esc", "clear the filter")}},
		{"View", []key.Binding{help("?", "help"), help("q", "quit")}},
	}
	inner := max(f.width-4, 20)
	var cols [][]string
	for _, g := range groups {
		col := []string{f.st.Title.Render(g.title)}
		for _, b := range g.keys {
			hb := b.Help()
			col = append(col, f.st.Key.Render(padText(hb.Key, 10))+" "+f.st.Desc.Render(hb.Desc))
		}
		cols = append(cols, col)
	}
	body := layoutColumns(cols, inner)
	body = append(body, "")
	for _, n := range fleetNotes {
		body = append(body, f.st.Muted.Render(n))
	}
	room := max(h-2, 1)
	f.help.offset = min(f.help.offset, max(len(body)-room, 0))
	title := "Help · any key closes"
	if len(body) > room {
		title = "Help · ↑↓ scroll, any other key closes"
	}
	return frame(title, body[f.help.offset:], f.width, h, true, &f.st, f.cfg.ASCII)
}

var fleetNotes = []string{
	"One row per JVM, in the order listed (sort by HOST for it again). STATE: live,",
	"connecting, reconnecting (with the error, and retrying with backoff) or gone.",
	"CPU: the JVM's threads over the last 2 to 4 s; 100% is one core. THR: threads",
	"alive; BLKD: blocked on a monitor or parked on a lock now; DL: deadlocks now.",
	"GC% and TOP METHOD (most self time) over the window; TOP LOCK: the most time",
	"blocked on it since watching began. /deadlock, /reconnect, !live filter rows.",
}
