package tui

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// uptime is how long a process has been up, in whole seconds: "0s" just
// started, where a table's duration of nothing is a bare "0".
func uptime(d time.Duration) string {
	if d = d.Truncate(time.Second); d == 0 {
		return "0s"
	}
	return dur(d)
}

// dur renders a duration in at most 7 cells: 850ns, 12.3µs, 4.56ms, 1.23s, 2m03s, 5h02m.
func dur(d time.Duration) string {
	switch {
	case d < 0:
		return "–"
	case d == 0:
		return "0"
	case d < time.Microsecond:
		return strconv.FormatInt(int64(d), 10) + "ns"
	case d < time.Millisecond:
		return three(float64(d)/1e3) + "µs"
	case d < time.Second:
		return three(float64(d)/1e6) + "ms"
	case d < time.Minute:
		return three(float64(d)/1e9) + "s"
	case d < time.Hour:
		return fmt.Sprintf("%dm%02ds", int(d/time.Minute), int(d%time.Minute/time.Second))
	case d < 100*time.Hour:
		return fmt.Sprintf("%dh%02dm", int(d/time.Hour), int(d%time.Hour/time.Minute))
	}
	return fmt.Sprintf("%dd", int(d/(24*time.Hour)))
}

// three renders with three significant digits, without trailing zeros.
func three(v float64) string {
	var s string
	switch {
	case v < 10:
		s = strconv.FormatFloat(v, 'f', 2, 64)
	case v < 100:
		s = strconv.FormatFloat(v, 'f', 1, 64)
	default:
		return strconv.FormatFloat(v, 'f', 0, 64)
	}
	s = strings.TrimRight(s, "0")
	return strings.TrimSuffix(s, ".")
}

// count4 renders a count in at most four cells: 9999, 12k, 123k, 1.2M, 12M.
func count4(n int64) string {
	switch {
	case n < 10_000:
		return strconv.FormatInt(n, 10)
	case n < 1_000_000:
		return strconv.FormatInt(n/1000, 10) + "k"
	case n < 10_000_000:
		return strconv.FormatFloat(float64(n/100_000)/10, 'f', 1, 64) + "M"
	case n < 1_000_000_000:
		return strconv.FormatInt(n/1_000_000, 10) + "M"
	}
	return strconv.FormatInt(n/1_000_000_000, 10) + "G"
}

// count renders a count compactly: 999, 12.3k, 4.56M, 7.89G.
func count(n int64) string {
	switch {
	case n < 10_000:
		return strconv.FormatInt(n, 10)
	case n < 1_000_000:
		return three(float64(n)/1e3) + "k"
	case n < 1_000_000_000:
		return three(float64(n)/1e6) + "M"
	}
	return three(float64(n)/1e9) + "G"
}

// rate renders a per-second figure.
func rate(v float64) string {
	if v < 0 {
		v = 0
	}
	return count(int64(v + 0.5))
}

// size renders bytes in binary units.
func size(n int64) string {
	switch {
	case n < 1024:
		return strconv.FormatInt(n, 10) + "B"
	case n < 1<<20:
		return three(float64(n)/1024) + "KiB"
	case n < 1<<30:
		return three(float64(n)/(1<<20)) + "MiB"
	}
	return three(float64(n)/(1<<30)) + "GiB"
}

// pct renders a percentage in at most 5 cells; nothing is a bare "0".
func pct(v float64) string {
	if v <= 0 {
		return "0"
	}
	return percent(v)
}

// costPct is what watching costs, in % of a core, as the headers say it:
// with its unit at nothing too ("JFR 0.0%"), as beside a cost of
// anything; a bare "0" there read as another kind of figure.
func costPct(v float64) string { return percent(max(v, 0)) }

// percent renders v ≥ 0 with a tenth below 10%, whole from there. It
// rounds (half away from zero) before it chooses, so that 9.96 reads
// "10%", not "10.0%".
func percent(v float64) string {
	if tenths := math.Round(v * 10); tenths < 100 {
		return strconv.FormatFloat(tenths/10, 'f', 1, 64) + "%"
	}
	return strconv.FormatFloat(math.Round(v), 'f', 0, 64) + "%"
}
