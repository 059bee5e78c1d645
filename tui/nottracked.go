package tui

import (
	"strconv"

	"github.com/proftop/proftop/state"
)

// notTracked says what a pane leaves out because the aggregator's table
// for it is full ("12,345 more threads not tracked"); "" when nothing.
func notTracked(s *state.Snapshot, p paneID) string {
	if s == nil {
		return ""
	}
	var n int64
	var what string
	switch p {
	case paneThreads:
		n, what = s.NotTracked.Threads, "threads"
	case paneMethods:
		n, what = s.NotTracked.Methods, "methods"
	case paneMonitors:
		n, what = s.NotTracked.Monitors, "monitors"
	}
	if n <= 0 {
		return ""
	}
	if n == 1 {
		what = what[:len(what)-1]
	}
	if n > state.NotTrackedExactUpTo {
		// An estimate: three significant figures say so.
		return "about " + grouped(roundTo3(n)) + " more " + what + " not tracked"
	}
	return grouped(n) + " more " + what + " not tracked"
}

// roundTo3 keeps three significant figures: 251,234 becomes 251,000.
func roundTo3(n int64) int64 {
	unit := int64(1)
	for n/unit >= 1000 {
		unit *= 10
	}
	return (n + unit/2) / unit * unit
}

// grouped writes a count with thousands separators: 12,345.
func grouped(n int64) string {
	s := strconv.FormatInt(n, 10)
	out := make([]byte, 0, len(s)+len(s)/3)
	for i := range len(s) {
		if i > 0 && (len(s)-i)%3 == 0 {
			out = append(out, ',')
		}
		out = append(out, s[i])
	}
	return string(out)
}
