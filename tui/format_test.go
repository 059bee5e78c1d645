package tui

import (
	"testing"

	"github.com/proftop/proftop/decode"
)

// A percentage is rounded before its format is chosen: what rounds to 10
// reads "10%", like 11%, not "10.0%".
func TestPctRoundsBeforeItChoosesTheFormat(t *testing.T) {
	for _, tc := range []struct {
		v    float64
		want string
	}{
		{-1, "0"},
		{0, "0"},
		{0.04, "0.0%"},
		{0.05, "0.1%"},
		{0.95, "1.0%"},
		{9.5, "9.5%"},
		{9.94, "9.9%"},
		{9.949, "9.9%"},
		{9.95, "10%"},
		{9.96, "10%"},
		{9.99, "10%"},
		{10, "10%"},
		{10.5, "11%"},
		{12.5, "13%"},
		{70.5, "71%"},
		{99.49, "99%"},
		{99.5, "100%"},
		{99.95, "100%"},
		{100, "100%"},
	} {
		if got := pct(tc.v); got != tc.want {
			t.Errorf("pct(%v) = %q, want %q", tc.v, got, tc.want)
		}
	}
}

// A series in percent is rounded the same way.
func TestPercentSeriesRoundsBeforeItChoosesTheFormat(t *testing.T) {
	for _, tc := range []struct {
		v    float64
		want string
	}{
		{0, "0.0%"},
		{9.94, "9.9%"},
		{9.96, "10%"},
		{-9.96, "-10%"},
		{12.5, "13%"},
	} {
		if got := unitValue(tc.v, decode.UnitPercent); got != tc.want {
			t.Errorf("unitValue(%v, percent) = %q, want %q", tc.v, got, tc.want)
		}
	}
}
