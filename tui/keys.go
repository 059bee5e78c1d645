package tui

import "charm.land/bubbles/v2/key"

// KeyMap holds every binding.
type KeyMap struct {
	// Global
	Quit, Help, Pause, Reset, NextPane, PrevPane, Faster, Slower, Recent, Group, View key.Binding
	Pane                                                                              [numPanes]key.Binding
	// Tables
	Up, Down, PageUp, PageDown, Top, Bottom, Sort, SortPrev, SortNext, Reverse, Filter, Enter, Back key.Binding
	// The history, while frozen (timetravel.go)
	StepBack, StepOn, MinuteBack, MinuteOn, Oldest, Latest, NextMark, PrevMark key.Binding
	// Files, and the call tree (calltree.go)
	Bundle, Export, Tree, Flame, Expand, Collapse key.Binding
}

// DefaultKeyMap is proftop's key map: htop's and k9s's habits.
func DefaultKeyMap() KeyMap {
	k := key.NewBinding
	w, h := key.WithKeys, key.WithHelp
	return KeyMap{
		Quit:     k(w("q"), h("q", "quit (back, in a drill-in)")),
		Help:     k(w("?"), h("?", "help")),
		Pause:    k(w("space", "p"), h("space p", "freeze the view (data still gathered)")),
		Reset:    k(w("r"), h("r r", "reset the statistics (press twice)")),
		NextPane: k(w("tab"), h("tab", "next pane")),
		PrevPane: k(w("shift+tab"), h("shift+tab", "previous pane")),
		Faster:   k(w("+", "="), h("+", "refresh faster")),
		Slower:   k(w("-", "_"), h("-", "refresh slower")),
		Recent:   k(w("c"), h("c", "methods: last N s / cumulative")),
		Group:    k(w("m"), h("m", "monitors: by lock / by class and site")),
		View:     k(w("v"), h("v", "methods: call tree / sampler hits; objects: classes / census")),
		Pane: [numPanes]key.Binding{
			k(w("1"), h("1", "threads")),
			k(w("2"), h("2", "hot methods")),
			k(w("3"), h("3", "monitors")),
			k(w("4"), h("4", "GC")),
			k(w("5"), h("5", "objects")),
			k(w("6"), h("6", "coverage")),
			k(w("7"), h("7", "telemetry")),
			k(w("8"), h("8", "probes")),
		},
		Up:       k(w("up", "k"), h("↑ k", "up")),
		Down:     k(w("down", "j"), h("↓ j", "down")),
		PageUp:   k(w("pgup", "ctrl+b"), h("pgup", "page up")),
		PageDown: k(w("pgdown", "ctrl+f"), h("pgdn", "page down")),
		Top:      k(w("home", "g"), h("g home", "first row")),
		Bottom:   k(w("end", "G"), h("G end", "last row")),
		Sort:     k(w("s"), h("s", "sort by the next column")),
		SortNext: k(w(">", "."), h("> <", "sort by the next / previous column")),
		SortPrev: k(w("<", ",")),
		Reverse:  k(w("S"), h("S", "reverse the sort")),
		Filter:   k(w("/"), h("/", "filter: regexp on names, states, classes; !x inverts")),
		Enter:    k(w("enter"), h("enter", "drill in")),
		Back:     k(w("esc"), h("esc", "back; clear the filter")),

		StepBack:   k(w("left"), h("←", "frozen: a picture back")),
		StepOn:     k(w("right"), h("→", "frozen: a picture on")),
		MinuteBack: k(w("["), h("[", "frozen: a minute back")),
		MinuteOn:   k(w("]"), h("]", "frozen: a minute on")),
		Oldest:     k(w("home"), h("home", "frozen: the oldest picture")),
		Latest:     k(w("end"), h("end", "frozen: back to the moment frozen")),
		NextMark:   k(w("n"), h("n N", "frozen: next / previous mark (D G C)")),
		PrevMark:   k(w("N")),
		Bundle:     k(w("w"), h("w", "write a triage bundle (.tar.gz)")),
		Export:     k(w("e"), h("e", "export the profile shown (pprof, collapsed)")),
		Tree:       k(w("t"), h("t", "call tree (of the method selected)")),
		Flame:      k(w("f"), h("f", "call tree: tree / flame (icicle)")),
		Expand:     k(w("l"), h("l →", "call tree: open a node")),
		Collapse:   k(w("h"), h("h ←", "call tree: close a node")),
	}
}
