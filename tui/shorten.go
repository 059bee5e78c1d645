package tui

import (
	"strings"
)

// Shortening names that do not fit, keeping what tells rows apart: a
// cell cut at the right makes com.acme.billing.Ledger.post and
// com.acme.billing.Ledger.get look the same. Java names lose their
// packages first (to initials, as logback does: o.a.l.l.c.a.OutputStreamManager),
// then the middle of what is left; the end, which tells them apart, stays.

// shortMethod fits "pkg.Class.method" (a frame may add a descriptor or a
// line) in w cells: the class's simple name and the method stay.
func shortMethod(s string, w int) string { return shortJava(s, w, 2) }

// shortClass fits "pkg.Outer$Inner" in w cells: the simple name stays.
func shortClass(s string, w int) string { return shortJava(s, w, 1) }

// shortLock fits "pkg.Class@1b6d3586" (or "pkg.Class ×12 at site") in w
// cells: the identity, and as much of the class as fits, stay.
func shortLock(s string, w int) string {
	if widthOf(s) <= w {
		return s
	}
	if i := strings.Index(s, " ×"); i > 0 {
		// A group, "class ×N at site": the count stays; the class gets
		// half of the rest at least, the site what is left.
		class, rest := s[:i], s[i:]
		count, site, _ := strings.Cut(rest, " at ")
		room := w - widthOf(count)
		if room < 8 {
			return middle(s, w)
		}
		if site == "" {
			return shortClass(class, room) + count
		}
		site = " at " + site
		c := shortClass(class, max(room/2, room-widthOf(site)))
		return c + count + shortenSite(site, room-widthOf(c))
	}
	at := strings.LastIndexByte(s, '@')
	if at <= 0 {
		return shortClass(s, w)
	}
	suffix := s[at:]
	if widthOf(suffix) >= w-2 {
		return tail(s, w)
	}
	return shortClass(s[:at], w-widthOf(suffix)) + suffix
}

// shortenSite fits " at pkg.Class.method:line" in w cells.
func shortenSite(site string, w int) string {
	if widthOf(site) <= w {
		return site
	}
	if w <= 5 {
		return ""
	}
	return " at " + shortMethod(site[4:], w-4)
}

// shortJava abbreviates the package segments of a dotted Java name to
// their initials, left to right, until it fits; then cuts in the middle of
// what is left, keeping the last keep segments' end.
func shortJava(s string, w int, keep int) string {
	if widthOf(s) <= w || w <= 0 {
		return s
	}
	// The descriptor or anything after a '(' or ' ' is not part of the name.
	name, rest := s, ""
	if i := strings.IndexAny(s, "( "); i > 0 {
		name, rest = s[:i], s[i:]
	}
	parts := strings.Split(name, ".")
	for i := 0; i < len(parts)-keep; i++ {
		if len(parts[i]) > 1 {
			parts[i] = firstRune(parts[i])
		}
		if out := strings.Join(parts, ".") + rest; widthOf(out) <= w {
			return out
		}
	}
	// Without its package, then its end: the end tells names apart.
	if len(parts) > keep {
		parts = parts[len(parts)-keep:]
		if out := "…" + strings.Join(parts, ".") + rest; widthOf(out) <= w {
			return out
		}
	}
	return tail(strings.Join(parts, ".")+rest, w)
}

// tail keeps the end of s in w cells: "…Manager.write".
func tail(s string, w int) string {
	if widthOf(s) <= w {
		return s
	}
	r := []rune(s)
	for i := range r {
		if widthOf(string(r[i:]))+1 <= w {
			return "…" + string(r[i:])
		}
	}
	return "…"
}

// middle cuts s in the middle to w cells: "http-nio-8…exec-12".
func middle(s string, w int) string {
	if widthOf(s) <= w {
		return s
	}
	if w <= 1 {
		return "…"
	}
	r := []rune(s)
	tail := (w - 1) * 2 / 3 // the end tells more apart
	head := w - 1 - tail
	for head+tail+1 > w || widthOf(string(r[:head]))+widthOf(string(r[len(r)-tail:]))+1 > w {
		if tail > head {
			tail--
		} else {
			head--
		}
	}
	return string(r[:head]) + "…" + string(r[len(r)-tail:])
}

func firstRune(s string) string {
	for _, r := range s {
		return string(r)
	}
	return s
}
