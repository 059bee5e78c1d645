package tui

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/charmbracelet/x/ansi"
)

// On an ASCII terminal every glyph the interface draws has an ASCII
// stand-in: none is left for toASCII to blot out as '?'. The simulated
// service's names are ASCII, so any rune left is the interface's own.
// The stand-ins keep the screen's size.
func TestASCIIGlyphsCoverEveryScreen(t *testing.T) {
	for _, tc := range []struct {
		name string
		w, h int
		keys []string
	}{
		{"grid", 200, 60, nil},
		{"call tree and flame", 200, 60, []string{"2", "t"}},
		{"call tree", 80, 24, []string{"t"}},
		{"flame", 80, 24, []string{"t", "f"}},
		{"timeline", 200, 60, []string{"space", "left", "left", "left"}},
		{"timeline small", 80, 24, []string{"space", "N"}},
		{"call tree past", 200, 60, []string{"space", "N", "t"}},
		{"help", 80, 24, []string{"?"}},
		{"thread drill-in", 80, 24, []string{"1", "enter"}},
		{"method drill-in", 80, 24, []string{"2", "enter"}},
		{"monitor drill-in", 200, 60, []string{"3", "enter"}},
		{"gc", 80, 24, []string{"4"}},
		{"objects", 80, 24, []string{"5"}},
		{"coverage", 80, 24, []string{"6"}},
		{"telemetry", 80, 24, []string{"7"}},
		{"probes", 80, 24, []string{"8"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m, _ := historyModel(t, tc.w, tc.h)
			m.cfg.ASCII = true
			run(m, tc.keys...)
			checkFrame(t, m.View().Content, tc.w, tc.h)
			for i, l := range strings.Split(asciiGlyphs.Replace(ansi.Strip(m.render())), "\n") {
				for _, r := range l {
					if r >= utf8.RuneSelf {
						t.Errorf("line %d: %q has no ASCII stand-in: %s", i, r, l)
						break
					}
				}
			}
		})
	}
}

// Each stand-in is ASCII and as wide as its symbol, so that a frame laid
// out with the symbols keeps its width.
func TestASCIIStandInsKeepTheWidth(t *testing.T) {
	for i := 0; i+1 < len(asciiStandIns); i += 2 {
		glyph, standIn := asciiStandIns[i], asciiStandIns[i+1]
		if ansi.StringWidth(glyph) != len(standIn) {
			t.Errorf("%q becomes %q: %d cells for %d", glyph, standIn, len(standIn), ansi.StringWidth(glyph))
		}
		for _, r := range standIn {
			if r >= utf8.RuneSelf {
				t.Errorf("%q becomes %q, not ASCII", glyph, standIn)
			}
		}
	}
}
