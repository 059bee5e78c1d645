package tui

import (
	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
)

// navigate takes the keys every table answers alike, in a pane or in the
// fleet's overview: moving the selection and sorting. handled says the key
// was one of them; notice, when not empty, is what to tell the user.
func (t *table) navigate(msg tea.KeyPressMsg, k KeyMap, d rows, page int) (notice string, handled bool) {
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
	case key.Matches(msg, k.Sort), key.Matches(msg, k.SortNext):
		t.cycleSort(1)
		return "sorted by " + t.sortName(), true
	case key.Matches(msg, k.SortPrev):
		t.cycleSort(-1)
		return "sorted by " + t.sortName(), true
	case key.Matches(msg, k.Reverse):
		t.reverse()
		return "sorted by " + t.sortName(), true
	default:
		return "", false
	}
	return "", true
}
