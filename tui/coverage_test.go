package tui

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/proftop/proftop/client"
	"github.com/proftop/proftop/state"
)

// A class's row, the pane's title and the drill-in round the share of
// lines that ran the same way, to the nearest: 12 of 17 lines is 70.6%,
// "71%" everywhere, in the interface and in the batch text.
func TestCoverageSharesRoundAlike(t *testing.T) {
	for _, tc := range []struct {
		hit, lines int64
		want       string
	}{
		{12, 17, "71%"},
		{5, 7, "71%"},
		{996, 10_000, "10%"}, // 9.96%: a per mille cut to 99 read "9.9%"
		{1, 8, "13%"},        // 12.5%
		{0, 5, "0%"},
		{0, 0, "–"},
		{9_999, 10_000, ">99%"}, // 99.99%: a line left out is not 100%
		{10_000, 10_000, "100%"},
		{1, 100_000, "<0.1%"}, // a line run is not 0.0%
	} {
		c := state.CoverageClass{Class: "C", Lines: tc.lines, Hit: tc.hit,
			Methods: []state.CoverageMethod{{Name: "m", Lines: tc.lines, Hit: tc.hit}}}
		if got := (coverageRows{s: []state.CoverageClass{c}}).Cell(0, 6); got != tc.want {
			t.Errorf("%d of %d lines: the row says %q, want %q", tc.hit, tc.lines, got, tc.want)
		}
		if title := coverageTitle(&state.Snapshot{Coverage: []state.CoverageClass{c}}); tc.lines > 0 && !strings.Contains(title, " "+tc.want+" of ") {
			t.Errorf("%d of %d lines: the title says %q, want %q", tc.hit, tc.lines, title, tc.want)
		}
		st := NewStyles(ThemeDark)
		if detail := ansi.Strip(strings.Join(coverageDetail(&c, &st), "\n")); !strings.Contains(detail, "("+tc.want+")") {
			t.Errorf("%d of %d lines: the drill-in says %q, want %q", tc.hit, tc.lines, detail, tc.want)
		}
	}

	m, _ := fileModel(t, "../testdata/profilerj/snapshot-synthetic.xml", 200, 60)
	text := ansi.Strip(RenderText(m.snap, client.Status{}, 200, 20, false))
	if !strings.Contains(text, "71% OF 21 LINES RAN") {
		t.Errorf("the batch title lacks 71%%:\n%s", text)
	}
	rows := 0
	for _, l := range strings.Split(text, "\n") {
		if strings.Contains(l, "Example01 ") {
			rows++
			if !strings.Contains(l, " 71% ") {
				t.Errorf("the batch row of Example01 is not at 71%%: %s", l)
			}
		}
	}
	if rows != 1 {
		t.Errorf("%d batch rows of Example01, want 1:\n%s", rows, text)
	}
}
