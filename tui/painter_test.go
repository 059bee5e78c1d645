package tui

import (
	"reflect"
	"testing"
)

// Every style of both themes styles text exactly as its lipgloss style
// does, and all but the underlined ones skip lipgloss's work for a line.
func TestStylesRenderAsLipgloss(t *testing.T) {
	texts := []string{"x", "running", "  12.5 ms", "Object.wait ▲", "é…", "a\tb", "two\nlines", "", "\x1b[1mstyled\x1b[m"}
	for _, theme := range []string{ThemeDark, ThemeLight} {
		st := NewStyles(theme)
		v := reflect.ValueOf(&st).Elem()
		wrapped := 0
		for i := range v.NumField() {
			name, s := v.Type().Field(i).Name, v.Field(i).Addr().Interface().(*Style)
			if s.wraps {
				wrapped++
			}
			for _, text := range texts {
				if got, want := s.Render(text), s.Style.Render(text); got != want {
					t.Errorf("%s %s %q: %q, lipgloss %q", theme, name, text, got, want)
				}
			}
			if got, want := s.Render("a", "b"), s.Style.Render("a", "b"); got != want {
				t.Errorf("%s %s two strings: %q, lipgloss %q", theme, name, got, want)
			}
		}
		if wrapped < v.NumField()-2 { // ColSorted and TabActive are underlined
			t.Errorf("%s: only %d of %d styles wrap", theme, wrapped, v.NumField())
		}
	}
}
