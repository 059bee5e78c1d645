package tui

import (
	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
)

// key routes a key of the overview: the filter being typed, the help,
// then the table's keys, as the panes of one JVM take them.
func (f *FleetModel) key(msg tea.KeyPressMsg) (tea.Model, tea.Cmd) {
	k := f.keys
	if f.filtering {
		return f.filterKey(msg)
	}
	if f.help != nil {
		switch {
		case key.Matches(msg, k.Up):
			f.help.offset = max(f.help.offset-1, 0)
		case key.Matches(msg, k.Down):
			f.help.offset++
		default:
			f.help = nil
		}
		return f, nil
	}
	f.notice = ""
	t, d := f.table, f.rows
	page := max(f.page, 1)
	t.layout(d, page) // the selection as the snapshot now has it
	if notice, done := t.navigate(msg, k, d, page); done {
		if notice != "" {
			f.notice = notice
		}
		return f, nil
	}
	switch {
	case key.Matches(msg, k.Quit):
		return f.quit()
	case key.Matches(msg, k.Help):
		f.help = &helpView{}
	case key.Matches(msg, k.Filter):
		f.filtering = true
		f.filterPrev = f.filter
		f.filterInput.SetValue(f.filter)
		f.filterInput.CursorEnd()
		return f, f.filterInput.Focus()
	case key.Matches(msg, k.Back):
		f.filter = ""
		t.setFilter("")
	case key.Matches(msg, k.Enter):
		if i := t.selected(d); i >= 0 && t.match(d, i) {
			return f.openMember(i)
		}
	}
	return f, nil
}

func (f *FleetModel) filterKey(msg tea.KeyPressMsg) (tea.Model, tea.Cmd) {
	switch msg.String() {
	case "enter":
		f.filtering = false
		f.filterInput.Blur()
		return f, nil
	case "esc":
		f.filtering = false
		f.filterInput.Blur()
		f.filter = f.filterPrev
		f.table.setFilter(f.filterPrev)
		return f, nil
	}
	var cmd tea.Cmd
	f.filterInput, cmd = f.filterInput.Update(msg)
	expr := f.filterInput.Value()
	if err := f.table.setFilter(expr); err != nil {
		f.notice = "bad regular expression: " + err.Error()
	} else {
		f.notice = ""
		f.filter = expr
	}
	return f, cmd
}
