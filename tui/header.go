package tui

import (
	"fmt"
	"strings"
	"time"

	"charm.land/lipgloss/v2"

	"github.com/proftop/proftop/client"
	"github.com/proftop/proftop/state"
)

// headerInfo is what the header shows besides the snapshot.
type headerInfo struct {
	status   client.Status
	commands []client.Command // the source's, whose toggles show their state
	cpu      float64          // proftop's own CPU, % of one core
	mem      int64            // proftop's own memory, bytes (0: unknown)
	paused   bool
	moment   string        // the moment of the history shown ("-2m14s, 03:12:05"), "" for the present
	refresh  time.Duration // 0 in batch output, which has neither refresh nor own CPU
	now      time.Time
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
	if h.refresh == 0 {
		// A text snapshot says when it was taken.
		l2 = append(l2, item{text: label("at") + " " + value(h.now.Local().Format("2006-01-02 15:04:05"))})
	}
	switch {
	case h.moment != "":
		l2 = append(l2, item{text: st.Paused.Render(" PAST " + h.moment + " ")})
	case h.paused:
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
		l2 = append(l2, item{text: label("proftop CPU") + " " + value(pct(h.cpu)), drop: 1})
		if h.mem > 0 {
			l2 = append(l2, item{text: label("mem") + " " + value(size(h.mem)), drop: 2})
		}
	}
	if s != nil && s.AgentCost != nil {
		// What watching costs the JVM: the agent's threads, and JFR's.
		c := s.AgentCost
		l2 = append(l2, item{text: label("agent CPU") + " " + value(pct(c.AgentPercent)) + " " + label("JFR") + " " + value(pct(c.JFRPercent)), drop: 1})
	}
	if h.refresh > 0 {
		l2 = append(l2,
			item{text: label("refresh") + " " + value(dur(h.refresh)), drop: 4})
	}
	if stt.Lost > 0 {
		lost := count(stt.Lost) + " frames lost"
		if stt.Lost == 1 {
			lost = "1 frame lost"
		}
		l2 = append(l2, item{text: st.Bad.Render(lost)})
	}
	if stt.Recording != "" {
		l2 = append(l2, item{text: label("rec") + " " + value(inert(stt.Recording)), drop: 5})
	}
	lines := []string{joinItems(l1, width, sep), joinItems(l2, width, sep)}
	if l3 := sourceItems(stt, h.commands, st); len(l3) > 0 {
		lines = append(lines, joinItems(l3, width, sep))
	}
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
	// Causes and errors are wrapped, not cut: their end says what was wrong.
	say := func(style lipgloss.Style, text string) {
		for _, l := range wrapWords(text, width, 3) {
			lines = append(lines, style.Render(l))
		}
	}
	if c := causeLine(stt); c != "" {
		say(st.Bad, c)
	}
	if stt.Mismatch != "" {
		say(st.Warn, "⚠ "+inert(stt.Mismatch))
	}
	if stt.Dropped != "" {
		say(st.Warn, "⚠ "+inert(stt.Dropped))
	}
	for _, n := range notesLines(s) {
		say(st.Warn, n)
	}
	if stt.LastError != "" && stt.DecodeErrors > 0 {
		say(st.Bad, "last decode error: "+inert(stt.LastError))
	}
	return lines
}

// sourceItems are a source's facts and its toggles' states.
func sourceItems(stt client.Status, cmds []client.Command, st *Styles) []item {
	var out []item
	for _, f := range stt.Facts {
		out = append(out, item{text: st.Label.Render(inert(f.Key)) + " " + st.Value.Render(inert(f.Value)), drop: 2})
	}
	return append(out, commandItems(cmds, st)...)
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
