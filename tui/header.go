package tui

import (
	"fmt"
	"strconv"
	"strings"
	"time"

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
	// frozen are the event counters of the moment shown while frozen (nil:
	// live), in place of the source's, which go on counting.
	frozen *momentCounts
	// label names the source in place of its address ("" : the address).
	label string
	// whole wraps the header instead of cutting or dropping its pieces
	// at the width: batch text, which has the lines to spare and whose
	// reader cannot widen the terminal to see the rest.
	whole bool
}

// item is one piece of a header line; when the line is too narrow the
// pieces with the highest drop go first, and a piece with a short form
// takes it instead of going (drop 0: only once nothing else can go).
type item struct {
	text  string
	drop  int
	short string
}

// wrapItems lays every piece out whole, in their order, over as many
// lines as they take, the lines after the first indented: batch text
// drops and shortens nothing. A piece wider than the line has one of its
// own, and goes past the width (a path cut is no path).
func wrapItems(items []item, width int, sep string) []string {
	const indent = "  "
	var lines []string
	line := ""
	for _, it := range items {
		switch {
		case line == "":
			line = it.text
		case widthOf(line+sep+it.text) <= width:
			line += sep + it.text
		default:
			lines = append(lines, line)
			line = indent + it.text
		}
	}
	return append(lines, line)
}

// joinItems joins the pieces that fit in width, in their order.
func joinItems(items []item, width int, sep string) string {
	line, _ := fitItems(items, width, sep)
	return line
}

// fitItems joins the pieces that fit in width, in their order; false
// when even the pieces that never go do not fit, and the line is cut.
func fitItems(items []item, width int, sep string) (string, bool) {
	items = append([]item(nil), items...) // shortened here, not in the caller's
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
			return line, true
		}
		worst := -1
		for i, it := range items {
			if keep[i] && (it.drop > 0 || it.short != "") && (worst < 0 || it.drop > items[worst].drop) {
				worst = i
			}
		}
		switch {
		case worst < 0:
			return clip(line, width), false
		case items[worst].short != "":
			// Shortened, it stays: the last thing that can give way.
			items[worst].text, items[worst].short, items[worst].drop = items[worst].short, "", 0
		default:
			keep[worst] = false
		}
	}
}

// renderHeader draws the header lines; on a narrow terminal the less
// important pieces make way.
func renderHeader(h headerInfo, s *state.Snapshot, width int, st *Styles) []string {
	label, value := st.Label.Render, st.Value.Render
	sep := "  "
	stt := h.status

	source := inert(stt.Source)
	if h.label != "" {
		source = inert(h.label)
	}
	l1 := []item{{text: st.Title.Render("proftop")}, {text: value(source)}}
	// Who is watched, its name and pid, stays whatever the width (its
	// name shortened); its version, the negotiation and the uptime go first.
	switch {
	case stt.Agent.ID != "":
		l1 = append(l1, processItems(stt.Agent.Name, int64(stt.Agent.PID), stt.Agent.Type != "rbkit", st)...)
		l1 = append(l1, item{text: label("v" + inert(stt.Agent.Version)), drop: 3})
	case s != nil && s.Process.PID != 0:
		l1 = append(l1, processItems(s.Process.Name, int64(s.Process.PID), false, st)...)
		if s.Process.Agent != "" {
			l1 = append(l1, item{text: label(inert(s.Process.Agent)), drop: 3})
		}
	}
	if stt.Format != 0 {
		format := item{text: value(stt.Format.String())}
		if strings.Contains(stt.Source, stt.Format.String()) {
			format.drop = 5 // the source's name says it already ("rbkit 127.0.0.1:5555/5556")
		}
		l1 = append(l1, format, item{text: label("(" + stt.Negotiation.String() + ")"), drop: 4})
	}
	if stt.State == client.StateEnded && s != nil && !s.Process.Exited.IsZero() && strings.HasSuffix(stt.Cause, " exited") {
		// The line below says the JVM exited, and when: not twice.
		stt.Cause = ""
	}
	stateItem := item{text: stateBadge(stt, h.now, st)}
	if stt.State == client.StateReconnecting {
		stateItem.short = st.Bad.Render("● reconnecting") // the attempt and its time give way; the cause is below
	}
	badge := len(l1)
	l1 = append(l1, stateItem)
	if s != nil && !s.Process.Started.IsZero() && !s.Clock.IsZero() {
		l1 = append(l1, item{text: label("up") + " " + value(uptime(s.Clock.Sub(s.Process.Started))), drop: 1})
	}

	var l2 []item
	if h.refresh == 0 {
		// A text snapshot says when it was taken, and, of a recording
		// (or a JVM whose clock is not this machine's), its trace's time.
		l2 = append(l2, item{text: label("at") + " " + value(h.now.Local().Format("2006-01-02 15:04:05"))})
		if s != nil && !s.Clock.IsZero() && (s.Clock.Sub(h.now) > time.Minute || h.now.Sub(s.Clock) > time.Minute) {
			l2 = append(l2, item{text: label("trace time") + " " + value(s.Clock.Local().Format("2006-01-02 15:04:05"))})
		}
	}
	switch {
	case h.moment != "":
		l2 = append(l2, item{text: st.Paused.Render(" PAST " + h.moment + " ")})
	case h.paused:
		l2 = append(l2, item{text: st.Paused.Render(" PAUSED ")})
	}
	switch f := h.frozen; {
	case f != nil:
		// The moment's own: bytes and decode errors are not kept with it.
		perSec := "–"
		if f.perSec >= 0 {
			perSec = rate(f.perSec)
		}
		l2 = append(l2, item{text: label("events") + " " + value(count(f.events))}, item{text: value(perSec) + label("/s")})
	default:
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
	}
	if h.refresh > 0 {
		l2 = append(l2, item{text: label("proftop CPU") + " " + value(costPct(h.cpu)), drop: 1})
		if h.mem > 0 {
			l2 = append(l2, item{text: label("mem") + " " + value(size(h.mem)), drop: 2})
		}
	}
	if s != nil && s.AgentCost != nil {
		// What watching costs the JVM: the agent's threads, and JFR's.
		c := s.AgentCost
		l2 = append(l2, item{text: label("agent CPU") + " " + value(costPct(c.AgentPercent)) + " " + label("JFR") + " " + value(costPct(c.JFRPercent)), drop: 1})
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
	line1, fits := fitItems(l1, width, sep)
	if h.whole {
		fits = len(wrapItems(l1, width, sep)) == 1
	} else if !fits {
		// A long path gives way first, keeping its start and its file's
		// name; then a cause moves to a line of its own, wrapped below.
		l1[1].text = value(middle(source, max(widthOf(source)-(minimalWidth(l1, sep)-width), 24)))
		line1, fits = fitItems(l1, width, sep)
	}
	var ended string
	if !fits && stt.State == client.StateEnded && stt.Cause != "" {
		l1[badge].text = st.Muted.Render("■ " + stt.State.String())
		line1, ended = joinItems(l1, width, sep), stt.State.String()+": "+inert(stt.Cause)
	}
	lines := []string{line1}
	row := func(items []item) []string { return []string{joinItems(items, width, sep)} }
	if h.whole {
		lines, row = wrapItems(l1, width, sep), func(items []item) []string { return wrapItems(items, width, sep) }
	}
	lines = append(lines, row(l2)...)
	if l3 := sourceItems(stt, h.commands, st); len(l3) > 0 {
		lines = append(lines, row(l3)...)
	}
	// Viewing a moment of the history, or one frozen, the source's notes
	// and errors are still of now: said so, they are not read as the
	// moment's.
	now := ""
	if h.moment != "" || h.frozen != nil {
		now = " (now)"
	}
	if len(stt.Notes) > 0 {
		// What the data is beyond its format: approximate times, a still picture…
		// Wrapped, not cut inside a word: on two lines at most on screen,
		// whole in batch text, whose reader cannot widen the terminal.
		tag := "note" + now + ": "
		indent := strings.Repeat(" ", len(tag))
		notes := inert(strings.Join(stt.Notes, " · "))
		wrapped := wrapWords(notes, max(width-len(indent), 1), 2)
		if h.whole {
			wrapped = wrapWhole(notes, max(width-len(indent), 1))
		}
		for i, l := range wrapped {
			head := st.Warn.Render(tag)
			if i > 0 {
				head = indent
			}
			lines = append(lines, head+st.Label.Render(l))
		}
	}
	if s != nil && !s.Process.Exited.IsZero() {
		who := "the JVM"
		if s.Process.PID != 0 {
			who = fmt.Sprintf("JVM %d", s.Process.PID)
		}
		lines = append(lines, clip(st.Bad.Render(fmt.Sprintf("■ %s exited at %s", who, s.Process.Exited.Local().Format("15:04:05"))), width))
	}
	// Causes and errors are wrapped, not cut: their end says what was wrong.
	say := func(style Style, text string) {
		wrapped := wrapWords(text, width, 3)
		if h.whole {
			wrapped = wrapWhole(text, width)
		}
		for _, l := range wrapped {
			lines = append(lines, style.Render(l))
		}
	}
	switch c := causeLine(stt); {
	case c == "":
	case s != nil && !s.Process.Exited.IsZero() && stt.State == client.StateReconnecting && stt.Refused:
		// Its agent said the JVM shut down: a connection refused since
		// asks nothing of the agent; proftop waits for the JVM to start
		// again (a service restarted).
		say(st.Muted, "reconnecting in case it starts again")
	default:
		say(st.Bad, c)
	}
	if ended != "" {
		say(st.Muted, "  "+ended)
	}
	if stt.Warning != "" && stt.State == client.StateStreaming {
		say(st.Warn, "⚠ "+inert(stt.Warning))
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
	// An error that ended the source is its cause, said above already.
	if stt.LastError != "" && stt.DecodeErrors > 0 && !strings.Contains(stt.Cause, stt.LastError) {
		say(st.Bad, "last decode error"+now+": "+inert(stt.LastError))
	}
	return lines
}

// minimalWidth is the width of the pieces that never go, joined.
func minimalWidth(items []item, sep string) int {
	w := 0
	for _, it := range items {
		if it.drop == 0 {
			if w > 0 {
				w += widthOf(sep)
			}
			w += widthOf(it.text)
		}
	}
	return w
}

// processItems name the process watched: "agent NAME" for a JVM's agent,
// the bare name for a Ruby script, and its pid. The name's short form is
// a path's last element (a script's) or a class's initials (a JVM's main
// class), cut to its end if still long.
func processItems(name string, pid int64, agent bool, st *Styles) []item {
	var out []item
	if name != "" {
		prefix := ""
		if agent {
			prefix = st.Label.Render("agent") + " "
		}
		short := name
		if i := strings.LastIndexByte(name, '/'); i >= 0 && i < len(name)-1 {
			short = name[i+1:]
		} else if !strings.ContainsAny(name, " /") {
			short = shortClass(name, 12)
		}
		out = append(out, item{text: prefix + st.Value.Render(inert(name)), short: prefix + st.Value.Render(inert(tail(short, 24))), drop: 2})
	}
	return append(out, item{text: st.Label.Render("pid") + " " + st.Value.Render(strconv.FormatInt(pid, 10))})
}

// sourceItems are a source's facts and its toggles' states. The first
// fact is the process's own (its working directory) and stays longest,
// shortened to its end; the toggles' states before the other facts.
func sourceItems(stt client.Status, cmds []client.Command, st *Styles) []item {
	var out []item
	for i, f := range stt.Facts {
		text := st.Label.Render(inert(f.Key)) + " " + st.Value.Render(inert(f.Value))
		if i == 0 {
			out = append(out, item{text: text, drop: 2, short: st.Label.Render(inert(f.Key)) + " " + st.Value.Render(inert(tail(f.Value, 30)))})
			continue
		}
		out = append(out, item{text: text, drop: 3})
	}
	return append(out, commandItems(cmds, st)...)
}

// stateBadge renders the connection state, with its cause when it is bad.
func stateBadge(stt client.Status, now time.Time, st *Styles) string {
	switch stt.State {
	case client.StateStreaming:
		if stt.Waiting != "" {
			return st.Good.Render("● streaming") + st.Muted.Render(" · "+inert(stt.Waiting))
		}
		return st.Good.Render("● streaming")
	case client.StateEnded:
		if stt.Cause == "" {
			return st.Muted.Render("■ " + stt.State.String())
		}
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
