package tui

import (
	"fmt"
	"strings"
	"time"

	"github.com/charmbracelet/x/ansi"

	"github.com/proftop/proftop/client"
	"github.com/proftop/proftop/state"
)

// headerInfo is what the header shows besides the snapshot.
type headerInfo struct {
	status  client.Status
	cpu     float64 // proftop's own CPU, % of one core
	paused  bool
	refresh time.Duration // 0 in batch output, which has neither refresh nor own CPU
	now     time.Time
}

// item is one piece of a header line; when the line is too narrow the
// pieces with the highest drop go first.
type item struct {
	text string
	drop int
}

// joinItems joins the pieces that fit in width, in their order.
func joinItems(items []item, width int, sep string) string {
	keep := make([]bool, len(items))
	for i := range keep {
		keep[i] = true
	}
	for {
		var parts []string
		for i, it := range items {
			if keep[i] {
				parts = append(parts, it.text)
			}
		}
		line := strings.Join(parts, sep)
		if widthOf(line) <= width {
			return line
		}
		worst := -1
		for i, it := range items {
			if keep[i] && it.drop > 0 && (worst < 0 || it.drop > items[worst].drop) {
				worst = i
			}
		}
		if worst < 0 {
			return clip(line, width)
		}
		keep[worst] = false
	}
}

// renderHeader draws the header lines; on a narrow terminal the less
// important pieces make way.
func renderHeader(h headerInfo, s *state.Snapshot, width int, st *Styles) []string {
	label, value := st.Label.Render, st.Value.Render
	sep := "  "
	stt := h.status

	l1 := []item{{text: st.Title.Render("proftop")}, {text: value(inert(stt.Source))}}
	if stt.Agent.ID != "" {
		l1 = append(l1, item{text: label("agent") + " " + value(inert(stt.Agent.Name)), drop: 2},
			item{text: label(fmt.Sprintf("pid %d v%s", stt.Agent.PID, inert(stt.Agent.Version))), drop: 3})
	} else if s != nil && s.Process.PID != 0 {
		l1 = append(l1, item{text: label("pid") + " " + value(fmt.Sprint(s.Process.PID)) + " " + label(inert(s.Process.Agent)), drop: 2})
	}
	if stt.Format != 0 {
		l1 = append(l1, item{text: value(stt.Format.String())}, item{text: label("(" + stt.Negotiation.String() + ")"), drop: 4})
	}
	l1 = append(l1, item{text: stateBadge(stt, h.now, st)})
	if s != nil && !s.Process.Started.IsZero() && !s.Clock.IsZero() {
		l1 = append(l1, item{text: label("up") + " " + value(dur(s.Clock.Sub(s.Process.Started).Truncate(time.Second))), drop: 1})
	}

	var l2 []item
	if h.paused {
		l2 = append(l2, item{text: st.Paused.Render(" PAUSED ")})
	}
	l2 = append(l2,
		item{text: label("events") + " " + value(count(stt.Events))},
		item{text: value(rate(stt.EventsPerSec)) + label("/s")},
		item{text: value(size(int64(stt.BytesPerSec))) + label("/s"), drop: 2},
	)
	if stt.DecodeErrors > 0 {
		l2 = append(l2, item{text: st.Bad.Render(fmt.Sprintf("decode errors %d", stt.DecodeErrors))})
	} else {
		l2 = append(l2, item{text: label("decode errors") + " " + value("0"), drop: 3})
	}
	if h.refresh > 0 {
		l2 = append(l2, item{text: label("proftop CPU") + " " + value(pct(h.cpu)), drop: 1},
			item{text: label("refresh") + " " + value(dur(h.refresh)), drop: 4})
	}
	if stt.Recording != "" {
		l2 = append(l2, item{text: label("rec") + " " + value(inert(stt.Recording)), drop: 5})
	}
	lines := []string{joinItems(l1, width, sep), joinItems(l2, width, sep)}
	if len(stt.Notes) > 0 {
		// What the data is beyond its format: approximate times, a still picture…
		lines = append(lines, clip(st.Warn.Render("note: ")+st.Label.Render(inert(strings.Join(stt.Notes, " · "))), width))
	}
	if s != nil && !s.Process.Exited.IsZero() {
		who := "the JVM"
		if s.Process.PID != 0 {
			who = fmt.Sprintf("JVM %d", s.Process.PID)
		}
		lines = append(lines, clip(st.Bad.Render(fmt.Sprintf("■ %s exited at %s", who, s.Process.Exited.Local().Format("15:04:05"))), width))
	}
	if c := causeLine(stt); c != "" {
		lines = append(lines, clip(st.Bad.Render(c), width))
	}
	if stt.Mismatch != "" {
		lines = append(lines, clip(st.Warn.Render("⚠ "+inert(stt.Mismatch)), width))
	}
	if stt.LastError != "" && stt.DecodeErrors > 0 {
		lines = append(lines, clip(st.Bad.Render("last decode error: "+inert(stt.LastError)), width))
	}
	return lines
}

// stateBadge renders the connection state, with its cause when it is bad.
func stateBadge(stt client.Status, now time.Time, st *Styles) string {
	switch stt.State {
	case client.StateStreaming:
		return st.Good.Render("● streaming")
	case client.StateEnded:
		return st.Muted.Render("■ " + stt.State.String() + ": " + inert(stt.Cause))
	case client.StateReconnecting:
		wait := max(stt.RetryAt.Sub(now), 0).Round(100 * time.Millisecond)
		return st.Bad.Render(fmt.Sprintf("● reconnecting (attempt %d, next in %s)", stt.Attempt, dur(wait)))
	case client.StateDisconnected:
		return st.Bad.Render("● disconnected")
	case client.StateChoosingAgent:
		return st.Warn.Render("● choose an agent")
	}
	return st.Warn.Render("● " + stt.State.String())
}

// causeLine says why the source is unhealthy, on a line of its own so that
// a narrow terminal still shows it.
func causeLine(stt client.Status) string {
	switch stt.State {
	case client.StateReconnecting, client.StateDisconnected:
		if stt.Cause != "" {
			return "  " + inert(stt.Cause)
		}
	}
	return ""
}

// deadlockText says who waits for what in a deadlock, on one line.
func deadlockText(d *state.Deadlock) string {
	var parts []string
	for i := range d.Threads {
		class := d.Classes[i]
		if class == "" {
			class = "object"
		}
		parts = append(parts, fmt.Sprintf("%s (%d) waits for %s@%x", inert(d.Names[i]), d.Threads[i], inert(class), d.Monitors[i]))
	}
	return "DEADLOCK: " + strings.Join(parts, " → ") + " → back to " + inert(d.Names[0])
}

// renderDeadlocks draws each deadlock loudly, on up to two lines.
func renderDeadlocks(s *state.Snapshot, width int, st *Styles) []string {
	if s == nil {
		return nil
	}
	var out []string
	for i := range s.Deadlocks {
		text := " " + deadlockText(&s.Deadlocks[i]) + " "
		for i := 0; i < 2 && text != ""; i++ {
			chunk := ansi.Truncate(text, width, "")
			if i == 1 && widthOf(text) > width {
				chunk = ansi.Truncate(text, width, "…")
			}
			text = strings.TrimPrefix(text, chunk)
			if text != "" && i == 0 {
				text = "   " + text
			}
			out = append(out, st.Deadlock.Render(fit(chunk, width, false)))
		}
	}
	return out
}
