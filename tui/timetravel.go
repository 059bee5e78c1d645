package tui

import (
	"fmt"
	"math"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/proftop/proftop/client"
	"github.com/proftop/proftop/state"
)

// Time travel: while the view is frozen, the history's pictures can be
// stepped through — by one picture (←/→), a minute ([/]), to the oldest or
// latest (home/end), to the next or previous mark (n/N: a deadlock began,
// a collection paused far longer than usual, contention peaked). Every
// pane and drill-in shows the picture; the header says which moment it is
// and a timeline strip shows where, among the marks.

// travel is the frozen view's place in the history.
type travel struct {
	pics []*state.Picture // the history as of the latest refresh
	at   int              // the picture shown; -1: the snapshot frozen, which is no picture
	// newest is the newest picture when the view was frozen: those after
	// it are of moments after the one frozen (nil: there was none, and
	// every picture since is after it).
	newest *state.Picture
	seen   bool // newest was set
}

// shown is the picture shown, or nil.
func (t *travel) shown() *state.Picture {
	if t == nil || t.at < 0 || t.at >= len(t.pics) {
		return nil
	}
	return t.pics[t.at]
}

// refreshTrip takes the history's pictures again, keeping the one shown.
func (m *Model) refreshTrip() {
	if m.trip == nil || m.cfg.History == nil {
		return
	}
	cur := m.trip.shown()
	m.trip.pics = m.cfg.History.Pictures()
	if m.frozen != nil {
		// The pictures taken since the freeze are of moments after the
		// one frozen: → past the newest before it comes back to it, not
		// on to data gathered since. Told by which pictures there were
		// (a recording's pictures are dated by its own clock, a reopened
		// bundle's by its run's), and on the wall clock by their times too.
		if !m.trip.seen {
			m.trip.seen = true
			if n := len(m.trip.pics); n > 0 {
				m.trip.newest = m.trip.pics[n-1]
			}
		}
		n := len(m.trip.pics)
		for n > 0 && m.trip.pics[n-1] != m.trip.newest {
			n--
		}
		if !m.frozen.OnTraceTime() {
			// On the wall clock the recorder's step and the refresh are
			// out of phase: the newest picture at the freeze may be up to
			// a step after the snapshot frozen.
			for n > 0 && m.trip.pics[n-1].At.After(m.frozen.Taken) {
				n--
			}
		}
		m.trip.pics = m.trip.pics[:n]
	}
	if cur == nil {
		return
	}
	for i := len(m.trip.pics) - 1; i >= 0; i-- {
		if m.trip.pics[i] == cur {
			m.trip.at = i
			return
		}
	}
	m.trip.at = 0 // it was dropped: the oldest is the nearest
	if len(m.trip.pics) > 0 {
		m.show(0)
	}
}

// travelKey moves through the history; it says whether the key was one.
func (m *Model) travelKey(msg tea.KeyPressMsg) (bool, tea.Cmd) {
	k := m.keys
	if m.trip == nil {
		return false, nil
	}
	target := -2
	pics := m.trip.pics
	cur := m.trip.at
	switch {
	case key.Matches(msg, k.StepBack):
		if cur < 0 {
			target = m.before(m.frozenAt())
		} else {
			target = cur - 1
		}
	case key.Matches(msg, k.StepOn):
		target = len(pics) // from the moment frozen: it is the latest
		if cur >= 0 {
			target = cur + 1
		}
	case key.Matches(msg, k.MinuteBack), key.Matches(msg, k.MinuteOn):
		from := m.frozenAt()
		if p := m.trip.shown(); p != nil {
			from = p.At
		}
		if key.Matches(msg, k.MinuteBack) {
			target = max(m.before(from.Add(-time.Minute+time.Millisecond)), 0)
		} else {
			target = len(pics) - 1
			for i, p := range pics {
				if !p.At.Before(from.Add(time.Minute)) {
					target = i
					break
				}
			}
		}
	case key.Matches(msg, k.Oldest):
		target = 0
	case key.Matches(msg, k.Latest):
		target = len(pics) // the moment frozen, after every picture
	case key.Matches(msg, k.NextMark), key.Matches(msg, k.PrevMark):
		target = m.nextMark(key.Matches(msg, k.NextMark))
		if target < 0 {
			m.notice = "no mark that way: marks are deadlocks (D), GC pauses far above the median (G), contention peaks (C)"
			return true, nil
		}
	default:
		return false, nil
	}
	switch {
	case len(pics) == 0:
		m.notice = "no history yet: a picture is kept every refresh"
	case target < 0:
		m.notice = "the oldest picture kept"
		target = 0
	case target >= len(pics) && m.frozen != nil:
		// Past the newest picture is the moment frozen, the latest.
		if cur < 0 {
			m.notice = "the latest: the moment frozen"
			return true, nil
		}
		m.showFrozen()
		return true, m.treeCmd()
	case target >= len(pics):
		m.notice = "the latest picture"
		target = len(pics) - 1
	}
	if len(pics) > 0 && target != m.trip.at {
		m.show(target)
		return true, m.treeCmd()
	}
	return true, nil
}

// frozenAt is the moment of the snapshot frozen (Snapshot.Moment).
func (m *Model) frozenAt() time.Time {
	if m.frozen != nil {
		return m.frozen.Moment()
	}
	return time.Now()
}

// before is the latest picture taken before t (-1: none).
func (m *Model) before(t time.Time) int {
	at := -1
	for i, p := range m.trip.pics {
		if p.At.Before(t) {
			at = i
		}
	}
	return at
}

// nextMark is the next (or previous) marked picture from the one shown.
func (m *Model) nextMark(forward bool) int {
	pics := m.trip.pics
	cur := m.trip.at
	if cur < 0 {
		cur = len(pics)
	}
	if forward {
		for i := cur + 1; i < len(pics); i++ {
			if pics[i].Marks != 0 {
				return i
			}
		}
		return -1
	}
	for i := min(cur-1, len(pics)-1); i >= 0; i-- {
		if pics[i].Marks != 0 {
			return i
		}
	}
	return -1
}

// show shows the i-th picture.
func (m *Model) show(i int) {
	m.trip.at = i
	old := m.snap
	m.snap = m.trip.pics[i].Snap
	if m.status.Still && m.snap.Recent {
		// A still picture (a snapshot) has no last seconds: its pictures
		// read as it does live, cumulative. A copy: the picture is the
		// history's, shared.
		still := *m.snap
		still.Recent = false
		m.snap = &still
	}
	m.release(old)
	if m.detail != nil {
		m.detail.offset = 0
	}
}

// showFrozen goes back to the snapshot frozen, which is no picture.
func (m *Model) showFrozen() {
	m.trip.at = -1
	old := m.snap
	m.snap = m.frozen
	m.release(old)
	if m.detail != nil {
		m.detail.offset = 0
	}
	m.tree = nil // the moment frozen's, not the picture left's (treeCmd)
}

// maxRateGap is the longest gap between two pictures that a rate of
// events is told over (the history's step is 10 s at most).
const maxRateGap = 10 * time.Second

// momentCounts are the event counters of a moment of the past.
type momentCounts struct {
	events int64
	perSec float64 // -1: unknown
}

// frozenCounts are the event counters of the moment shown while frozen:
// the events received by then, and their rate since the picture before.
func (m *Model) frozenCounts() *momentCounts {
	if m.snap == nil {
		return nil
	}
	c := &momentCounts{events: m.snap.Events, perSec: -1}
	if m.frozenEnded && (m.trip == nil || m.trip.at < 0) {
		c.perSec = m.frozenRate // nothing came in since the end
		return c
	}
	var prev *state.Picture
	if m.trip != nil {
		at := m.trip.at
		if at < 0 {
			// The snapshot frozen may come a few milliseconds after the
			// newest picture, with no batch between them: a rate over a
			// second at least.
			at = m.before(m.snap.Moment().Add(-time.Second)) + 1
		}
		if at > 0 && at <= len(m.trip.pics) {
			prev = m.trip.pics[at-1]
		}
	}
	// The picture before must be recent: a reopened bundle's pictures are
	// of another run than the snapshot frozen, which replays its stream.
	if prev != nil {
		if dt := m.snap.Moment().Sub(prev.At); dt > 0 && dt <= maxRateGap && m.snap.Events >= prev.Snap.Events {
			c.perSec = float64(m.snap.Events-prev.Snap.Events) / dt.Seconds()
		}
	}
	return c
}

// pause freezes the view, or lets it go live again.
func (m *Model) pause() {
	m.paused = !m.paused
	if m.paused {
		// A page holds the methods on screen only: the view frozen has
		// them all, to sort and scroll on its own.
		if full := m.fullSnapshot(m.snap); full != m.snap {
			m.snap = full
		}
		m.frozen = m.snap
		m.frozenEnded, m.frozenRate = m.status.State == client.StateEnded, m.status.EventsPerSec
		if m.cfg.History != nil {
			m.trip = &travel{at: -1}
			m.refreshTrip()
		}
		return
	}
	old, frozen := m.snap, m.frozen
	m.snap, m.trip, m.frozen = m.latest, nil, nil
	m.release(old, frozen)
	if m.ctree != nil {
		m.tree = nil // the live tree comes with the next refresh
	}
}

// momentText says which moment is shown: how long before the moment
// frozen (else the newest picture: the end of a bundle reopened), and its
// time of day ("-2m14s, 03:12:05"). Less than a second back it says the
// tenths ("-0.4s"): the first step back from a freeze is often that far,
// and "-0s" read as no step at all.
func (m *Model) momentText() string {
	p := m.trip.shown()
	if p == nil {
		return ""
	}
	from := m.trip.pics[len(m.trip.pics)-1].At
	// The moment frozen, when later; not when nothing was received (a
	// bundle without its stream): that one is the wall clock's now, and
	// its pictures would read days ago.
	if m.frozen != nil && m.frozen.Events > 0 && m.frozen.Moment().After(from) {
		from = m.frozen.Moment()
	}
	ago := from.Sub(p.At)
	text := agoText(ago.Round(time.Second))
	if ago > 0 && ago < 950*time.Millisecond {
		text = fmt.Sprintf("%.1fs", max(math.Round(ago.Seconds()*10)/10, 0.1))
	}
	return fmt.Sprintf("-%s, %s", text, p.At.Local().Format("15:04:05"))
}

// agoText renders a span back in time: 0s, 14s, 2m14s, 1h02m.
func agoText(d time.Duration) string {
	switch {
	case d < time.Minute:
		return fmt.Sprintf("%ds", int(d/time.Second))
	case d < time.Hour:
		return fmt.Sprintf("%dm%02ds", int(d/time.Minute), int(d%time.Minute/time.Second))
	}
	return fmt.Sprintf("%dh%02dm", int(d/time.Hour), int(d%time.Hour/time.Minute))
}

// timeline draws the strip of the history: a cell per stretch of time,
// marked D (a deadlock began), G (a long GC pause), C (contention peaked)
// or · (pictures, nothing marked), and ▲ where the moment shown is.
func (m *Model) timeline(width int) string {
	if m.trip == nil || len(m.trip.pics) == 0 || width < 30 {
		return ""
	}
	pics := m.trip.pics
	first, last := pics[0].At, pics[len(pics)-1].At
	span := last.Sub(first)
	label := m.st.Label.Render("history ") + m.st.Value.Render(agoText(span.Round(time.Second))) + " "
	hint := " " + m.st.Muted.Render("←→ [] home end · n N marks")
	cells := width - widthOf(label) - widthOf(hint) - 2
	if cells < 10 {
		hint = ""
		cells = width - widthOf(label) - 2
	}
	if cells < 4 {
		return ""
	}
	marks := make([]state.Mark, cells)
	has := make([]bool, cells)
	cell := func(t time.Time) int {
		if span <= 0 {
			return cells - 1
		}
		return min(int(int64(t.Sub(first))*int64(cells)/int64(span+1)), cells-1)
	}
	for _, p := range pics {
		c := cell(p.At)
		has[c] = true
		marks[c] |= p.Marks
	}
	cursor := cells - 1
	if p := m.trip.shown(); p != nil {
		cursor = cell(p.At)
	}
	var b strings.Builder
	b.WriteString(label + m.st.Border.Render("├"))
	for c := range cells {
		switch {
		case c == cursor:
			b.WriteString(m.st.Paused.Render("▲"))
		case marks[c]&state.MarkDeadlock != 0:
			b.WriteString(m.st.Bad.Render("D"))
		case marks[c]&state.MarkGC != 0:
			b.WriteString(m.st.Warn.Render("G"))
		case marks[c]&state.MarkContention != 0:
			b.WriteString(m.st.Blocked.Render("C"))
		case has[c]:
			b.WriteString(m.st.Muted.Render("·"))
		default:
			b.WriteString(" ")
		}
	}
	b.WriteString(m.st.Border.Render("┤") + hint)
	return b.String()
}

// historyNote says what the history holds and could hold, for the help.
func (m *Model) historyNote() string {
	h := m.cfg.History
	if h == nil {
		return "History: none is kept."
	}
	o := h.Options()
	span := "the last " + spanText(o.Span)
	if o.Span >= 1<<62 {
		span = "as far back as it goes" // unbounded in time: a bundle's history, as it was written
	}
	out := fmt.Sprintf("History: a picture every refresh (a second apart at least), %s, within %s.", span, size(o.MaxBytes))
	if n, bytes, covers, capacity := h.Usage(); n > 1 {
		now := fmt.Sprintf("It holds %d pictures over %s in %s", n, agoText(covers.Round(time.Second)), size(bytes))
		if capacity > 0 {
			now += fmt.Sprintf("; at that size the bound holds about %s", spanText(capacity.Round(time.Minute)))
		}
		out += " " + now + "."
	}
	return out
}

// spanText renders a long span: 15m, 1h30m, 2m14s.
func spanText(d time.Duration) string {
	if d >= time.Minute && d%time.Minute == 0 {
		if d >= time.Hour {
			return strings.TrimSuffix(fmt.Sprintf("%dh%02dm", int(d/time.Hour), int(d%time.Hour/time.Minute)), "00m")
		}
		return fmt.Sprintf("%dm", int(d/time.Minute))
	}
	return agoText(d)
}
