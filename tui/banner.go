package tui

import (
	"fmt"
	"strings"
	"time"

	"github.com/proftop/proftop/state"
)

// The deadlock banner: every deadlock now, loudly, wrapped at word
// boundaries; and, once one has cleared, a quiet line saying when it was,
// so that it does not vanish without a trace.

// recentDeadlockFor is how long (trace time) a cleared deadlock stays under the header.
const recentDeadlockFor = 5 * time.Minute

// Ways to name the locks of a deadlock, longest first.
const (
	lockClassWhole    = iota // java.util.concurrent.locks.ReentrantLock$NonfairSync
	lockClassInitials        // j.u.c.l.ReentrantLock$NonfairSync
	lockClassSimple          // ReentrantLock$NonfairSync
)

// deadlockText says who waits for what in a deadlock, on one line, the
// locks' classes named as naming says (lockClassWhole…).
func deadlockText(d *state.Deadlock, naming int) string {
	var parts []string
	for i := range d.Threads {
		class := d.Classes[i]
		switch {
		case class == "":
			class = "object"
		case naming == lockClassInitials:
			class = initials(class, 1)
		case naming == lockClassSimple:
			class = simpleName(class)
		}
		who := fmt.Sprintf("%s (%d)", inert(d.Names[i]), d.Threads[i])
		if i < len(d.Virtual) && d.Virtual[i] {
			who = fmt.Sprintf("%s (virtual %d)", inert(d.Names[i]), d.Threads[i])
		}
		parts = append(parts, fmt.Sprintf("%s waits for %s@%x", who, inert(class), d.Monitors[i]))
	}
	return "DEADLOCK: " + strings.Join(parts, " → ") + " → back to " + inert(d.Names[0])
}

// renderDeadlocks draws each deadlock on up to three lines (four when
// even its locks' simple names take more), wrapped at spaces; then the
// latest cleared one, if recent.
func renderDeadlocks(s *state.Snapshot, width int, st *Styles) []string {
	if s == nil {
		return nil
	}
	var out []string
	for i := range s.Deadlocks {
		d := &s.Deadlocks[i]
		out = append(out, deadlockBanner(func(naming int) string { return deadlockText(d, naming) + deadlockAge(d, s.Clock) }, width, st)...)
	}
	if len(s.Deadlocks) == 0 {
		out = append(out, recentDeadlockLines(s, width, st)...)
	}
	return out
}

// deadlockBanner draws one deadlock, text being what it says with its
// locks' classes named as naming says (lockClassWhole…), on up to three
// lines wrapped at spaces. Its end (back to whom, for how long) matters
// more than the locks' packages: they go first, to keep to three lines,
// and a fourth is taken rather than cut it.
func deadlockBanner(text func(naming int) string, width int, st *Styles) []string {
	var lines []string
	for naming := lockClassWhole; naming <= lockClassSimple; naming++ {
		if lines = wrapWords(text(naming), width-2, 4); len(lines) <= 3 {
			break
		}
	}
	out := make([]string, 0, len(lines))
	for j, l := range lines {
		if j > 0 {
			l = "  " + l
		}
		out = append(out, st.Deadlock.Render(fit(" "+l, width, false)))
	}
	return out
}

// maxRecentDeadlockLines is how many cleared deadlocks the banner lists.
const maxRecentDeadlockLines = 3

// recentDeadlockLines says when the deadlocks that cleared lately were:
// the latest, and those that cleared with it (a JVM that exits takes every
// deadlock with it at once), a line each; of those the process's exit
// ended, that it did: they did not clear.
func recentDeadlockLines(s *state.Snapshot, width int, st *Styles) []string {
	// Newest first: those listed are the first that are recent and
	// cleared with the latest (the history has those before).
	listed := 0
	for i, p := range s.RecentDeadlocks {
		if !s.Clock.IsZero() && s.Clock.Sub(p.Until) >= recentDeadlockFor ||
			i > 0 && p.Until.Before(s.RecentDeadlocks[0].Until.Add(-time.Second)) {
			break
		}
		listed++
	}
	var out []string
	for i, p := range s.RecentDeadlocks[:listed] {
		if len(out) == maxRecentDeadlockLines {
			out[len(out)-1] += st.Warn.Render(fmt.Sprintf("  (and %d more)", listed-i))
			break
		}
		seen, after := "", ""
		if p.FirstSeen {
			seen = "seen "
		}
		if p.BeforeWatching {
			after = "; formed before proftop attached"
		}
		if ex := s.Process.Exited; !ex.IsZero() && !p.Until.Before(ex.Add(-exitedWithin)) {
			after += "; the process exited with it unresolved"
		}
		line := fmt.Sprintf("last deadlock: %s, %s%s–%s (%s%s)", inert(strings.Join(p.Names, " ⇄ ")), seen,
			p.Since.Local().Format("15:04:05"), p.Until.Local().Format("15:04:05"), dur(p.Until.Sub(p.Since).Round(time.Second)), after)
		out = append(out, st.Warn.Render(line))
	}
	for i := range out {
		out[i] = clip(out[i], width)
	}
	return out
}

// exitedWithin is how long before the process's exit a deadlock last
// seen counts as ended by it: the threads are looked at once a second,
// and the snapshot after the last look may come a refresh later.
const exitedWithin = 5 * time.Second

// deadlockAge says how long a deadlock has lasted at clock: " (for 4s)"
// from when it formed; when it formed unseen, how long it has been seen
// (" (seen for 4s)"), and, if it was there at proftop's first look,
// that it formed before. Nothing for less than a second of a deadlock
// seen forming.
func deadlockAge(d *state.Deadlock, clock time.Time) string {
	var age string
	if !d.Since.IsZero() && !clock.IsZero() && clock.Sub(d.Since) >= time.Second {
		age = dur(clock.Sub(d.Since).Round(time.Second))
	}
	switch {
	case d.BeforeWatching && age != "":
		return " (formed before proftop attached; seen for " + age + ")"
	case d.BeforeWatching:
		return " (formed before proftop attached)"
	case age == "":
		return ""
	case d.FirstSeen:
		return " (seen for " + age + ")"
	}
	return " (for " + age + ")"
}

// wrapWhole breaks text into lines of at most width cells at spaces, as
// many as it takes, cutting nothing: a word longer than a line (a path)
// has a line of its own, longer than width. For batch text, whose reader
// cannot widen the terminal.
func wrapWhole(text string, width int) []string {
	return packWords(strings.Fields(text), width)
}

// packWords puts words on lines of at most width cells, as many as fit
// on each, in order; a word wider than a line has one of its own.
func packWords(words []string, width int) []string { return pack(words, width, " ") }

// pack puts items on lines of at most width cells, sep between two on a
// line, as many as fit on each, in order; an item wider than a line has
// one of its own.
func pack(items []string, width int, sep string) []string {
	var lines []string
	line := ""
	for _, w := range items {
		switch {
		case line == "":
			line = w
		case widthOf(line)+widthOf(sep)+widthOf(w) <= width:
			line += sep + w
		default:
			lines = append(lines, line)
			line = w
		}
	}
	if line != "" {
		lines = append(lines, line)
	}
	return lines
}

// wrapWords breaks text into lines of at most width cells at spaces (a
// word longer than a line is cut), at most max lines, the last ending with
// "…" when text is left over.
func wrapWords(text string, width, maxLines int) []string {
	width = max(width, 8)
	words := strings.Fields(text)
	for i, w := range words {
		if widthOf(w) > width {
			words[i] = fit(w, width, false)
		}
	}
	lines := packWords(words, width)
	if len(lines) > maxLines {
		lines[maxLines-1] = fit(strings.Join(lines[maxLines-1:], " "), width, false)
		lines = lines[:maxLines]
	}
	return lines
}
