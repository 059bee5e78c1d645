package tui

import "testing"

// A painter styles text exactly as its lipgloss style does, in both
// themes, for every style a table applies.
func TestPaintersStyleAsLipgloss(t *testing.T) {
	texts := []string{"x", "running", "  12.5 ms", "Object.wait ▲", "é…", "a\tb", "two\nlines", ""}
	for _, theme := range []string{ThemeDark, ThemeLight} {
		st := NewStyles(theme)
		tp := &st.table
		painters := map[string]*painter{"header": &tp.header, "sorted": &tp.sorted, "selected": &tp.selected, "ended": &tp.ended, "alert": &tp.alert}
		for h := range tp.hints {
			painters["hint"+string(rune('0'+h))] = &tp.hints[h]
		}
		wrapped := 0
		for name, p := range painters {
			if p.wraps {
				wrapped++
			}
			for _, s := range texts {
				if got, want := p.paint(s), p.style.Render(s); got != want {
					t.Errorf("%s %s %q: %q, lipgloss %q", theme, name, s, got, want)
				}
			}
		}
		if wrapped < len(painters)-1 { // the sorted header's underline is lipgloss's
			t.Errorf("%s: only %d of %d painters wrap", theme, wrapped, len(painters))
		}
	}
}
