package tui

import (
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/proftop/proftop/client"
)

// key routes a key press: the filter input first, then the help screen,
// then global keys, then the open drill-in or the focused pane. As in k9s,
// q (and esc) go back from a drill-in; q quits from the top; ctrl+c always.
func (m *Model) key(msg tea.KeyPressMsg) (tea.Model, tea.Cmd) {
	k := m.keys
	if msg.String() == "ctrl+c" {
		return m.quit()
	}
	if m.filtering {
		return m.filterKey(msg)
	}
	if m.help != nil {
		return m.helpKey(msg)
	}
	if m.confirmReset {
		m.confirmReset = false
		if key.Matches(msg, k.Reset) {
			m.agg.Reset()
			// Short enough for the footer at 80 columns; the help says more.
			m.notice = "reset: methods, locks, thread CPU and times, GC, objects count from now"
			return m, m.fetch(false)
		}
		m.notice = "reset cancelled"
		return m, nil
	}
	m.notice = ""
	if m.paused {
		if handled, cmd := m.travelKey(msg); handled {
			return m, cmd
		}
	}
	switch {
	case key.Matches(msg, k.Quit) && m.ctree == nil:
		if m.detail != nil {
			return m.back()
		}
		return m.quit()
	case key.Matches(msg, k.Help):
		m.help = &helpView{}
		return m, nil
	case key.Matches(msg, k.Pause):
		m.pause()
		if m.paused && m.ctree != nil {
			// The tree open is the moment frozen's from now on, as at
			// every visit (treeCmd), not the live one's of a moment ago.
			m.tree = nil
			return m, m.treeCmd()
		}
		return m, nil
	case key.Matches(msg, k.Bundle):
		return m, m.writeBundle()
	case key.Matches(msg, k.Export):
		return m, m.exportProfile()
	case key.Matches(msg, k.Tree) && m.ctree == nil:
		return m, m.openTree(m.methodSelected())
	case key.Matches(msg, k.Reset):
		m.confirmReset = true
		m.notice = "press r again to reset the statistics (any other key keeps them)"
		return m, nil
	case key.Matches(msg, k.Faster), key.Matches(msg, k.Slower):
		m.refresh = stepRefresh(m.refresh, key.Matches(msg, k.Slower))
		m.notice = "refresh every " + dur(m.refresh)
		return m, m.restartTimer()
	case key.Matches(msg, k.Recent) && !m.applies(paneMethods):
		m.notice = "c switches the hot methods between the last " + dur(m.snapWindow()) + " and cumulative: 2 goes there"
		return m, nil
	case key.Matches(msg, k.Group) && !m.applies(paneMonitors):
		m.notice = "m groups the monitors by class and site: 3 goes there"
		return m, nil
	case key.Matches(msg, k.View) && m.focus == paneObjects && m.detail == nil:
		m.switchObjectsView()
		return m, nil
	case key.Matches(msg, k.View) && !m.applies(paneMethods):
		m.notice = "v switches the hot methods' view (2) or the objects' (5)"
		return m, nil
	case key.Matches(msg, k.Recent):
		if m.status.Still {
			m.notice = "a still picture (a snapshot) has no timeline: its figures are cumulative"
			return m, nil
		}
		m.recent = !m.recent
		if m.ctree != nil && !m.paused {
			return m, tea.Batch(m.fetchUnpaused(), m.treeCmd())
		}
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
	if cmd, ok := m.runCommand(msg); ok {
		return m, cmd
	}
	if m.ctree != nil {
		return m.treeKey(msg)
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
				m.notice = paneWhyNot(paneID(i))
				return m, nil
			}
			m.focus = paneID(i)
			return m, nil
		}
	}
	return m.tableKey(msg)
}

// applies says a key of pane p acts now: its pane has the focus, with no
// drill-in over it (the call tree follows the methods' span too).
func (m *Model) applies(p paneID) bool {
	if p == paneMethods && m.ctree != nil {
		return true
	}
	return m.focus == p && m.detail == nil && m.ctree == nil
}

// snapWindow is the methods' window, for what c says.
func (m *Model) snapWindow() time.Duration {
	if m.snap != nil {
		return m.snap.Window
	}
	return 10 * time.Second
}

// back leaves the drill-in.
func (m *Model) back() (tea.Model, tea.Cmd) {
	m.detail = nil
	return m, m.fetch(false)
}

func (m *Model) tableKey(msg tea.KeyPressMsg) (tea.Model, tea.Cmd) {
	t := m.tables[m.focus]
	if t == nil || m.snap == nil {
		return m, nil
	}
	d := m.rows(m.focus, m.snap)
	page := max(m.paneHeight()-3, 1)
	t.layout(d, page) // the selection as the snapshot now has it
	k := m.keys
	if notice, done := t.navigate(msg, k, d, page); done {
		if notice != "" {
			m.notice = notice
		}
		return m, nil
	}
	switch {
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
			if tr, ok := d.(telemetryRows); ok {
				m.detail.name = tr.e[i].name
			}
			return m, m.fetch(false)
		}
	}
	return m, nil
}

// methodSelected is the method of the drill-in, or the row selected in
// the methods pane: the call tree opens on it ("" for none).
func (m *Model) methodSelected() string {
	if m.snap == nil {
		return ""
	}
	if d := m.detail; d != nil {
		if d.kind == paneMethods && int(d.key) < len(m.snap.Names) {
			return m.snap.Names[d.key]
		}
		return ""
	}
	if m.focus != paneMethods {
		return ""
	}
	d := m.rows(paneMethods, m.snap)
	t := m.tables[paneMethods]
	t.layout(d, max(m.paneHeight()-3, 1)) // the selection as the snapshot now has it
	if i := t.selected(d); i >= 0 {
		return d.Name(i)
	}
	return ""
}

// treeFilterKey edits the call tree's thread filter.
func (m *Model) treeFilterKey(msg tea.KeyPressMsg) (tea.Model, tea.Cmd) {
	switch msg.String() {
	case "enter":
		m.filtering = false
		m.filterInput.Blur()
		return m, nil
	case "esc":
		m.filtering = false
		m.filterInput.Blur()
		m.setTreeFilter(m.filterPrev)
		return m, m.treeCmd()
	}
	var cmd tea.Cmd
	m.filterInput, cmd = m.filterInput.Update(msg)
	if err := m.setTreeFilter(m.filterInput.Value()); err != nil {
		m.notice = "bad regular expression: " + err.Error()
		return m, cmd
	}
	m.notice = ""
	return m, tea.Batch(cmd, m.treeCmd())
}

func (m *Model) filterKey(msg tea.KeyPressMsg) (tea.Model, tea.Cmd) {
	if m.ctree != nil {
		return m.treeFilterKey(msg)
	}
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
		return m.back()
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

// helpKey scrolls the help screen; any other key closes it.
func (m *Model) helpKey(msg tea.KeyPressMsg) (tea.Model, tea.Cmd) {
	k := m.keys
	switch {
	case key.Matches(msg, k.Up):
		m.help.offset--
	case key.Matches(msg, k.Down):
		m.help.offset++
	case key.Matches(msg, k.PageUp):
		m.help.offset -= m.bodyHeight() - 3
	case key.Matches(msg, k.PageDown):
		m.help.offset += m.bodyHeight() - 3
	default:
		m.help = nil
		return m, nil
	}
	m.help.offset = max(m.help.offset, 0)
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
