package tui

import (
	"strconv"

	"github.com/proftop/proftop/state"
)

// notTracked says what a pane leaves out because the aggregator's table
// for it is full ("12,345 more threads not tracked"), and for the
// monitors what the table let go to make room; "" when nothing.
func notTracked(s *state.Snapshot, p paneID) string {
	if s == nil {
		return ""
	}
	switch p {
	case paneThreads:
		return refusedText(s.NotTracked.Threads, "threads")
	case paneMethods:
		return refusedText(s.NotTracked.Methods, "methods")
	case paneMonitors:
		out := refusedText(s.NotTracked.Monitors, "monitors")
		// The table keeps the busy and the recent: their counts are
		// whole, those of the locks it let go are gone with them.
		if f := s.NotTracked.MonitorsForgotten; f > 0 {
			forgotten := grouped(f) + " idle locks forgotten (--max-monitors)"
			if f == 1 {
				forgotten = "1 idle lock forgotten (--max-monitors)"
			}
			if out != "" {
				out += " · "
			}
			out += forgotten
		}
		return out
	}
	return ""
}

// refusedText is "12,345 more threads not tracked"; "" for none.
func refusedText(n int64, what string) string {
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
