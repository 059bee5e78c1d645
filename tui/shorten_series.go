package tui

import (
	"regexp"
	"slices"
	"strings"
)

// Telemetry series are named "ATTRIBUTE (OBJECTNAME)" when an MBean
// pattern gives several ("Usage.used (java.lang:name=Metaspace,type=MemoryPool)"),
// and a group's label ends with its size and how it combines ("Heap used
// ×3 Σ"). What tells them apart is at the end: cut in the middle or at the
// right, every series of a pattern reads the same.

// groupSuffix is a group label's " ×N Σ" (or max, or sum in ASCII).
var groupSuffix = regexp.MustCompile(` ×\d+ (Σ|max|sum)$`)

// shortSeries fits a series' or a group's label in w cells: a group's size
// and how it combines stay whole; of an MBean's name the values of its
// keys stay, name= first, before the attribute is cut.
func shortSeries(s string, w int) string {
	if widthOf(s) <= w {
		return s
	}
	base, suffix := s, ""
	if loc := groupSuffix.FindStringIndex(s); loc != nil {
		base, suffix = s[:loc[0]], s[loc[0]:]
	}
	room := w - widthOf(suffix)
	if room < 6 {
		return middle(s, w)
	}
	return shortSeriesName(base, room) + suffix
}

// middleWords cuts a name of several words in w cells between whole
// words, its first and its last kept ("Tasks … for Dependencies"), as many
// of them as fit. When those do not fit, the last word stays whole and
// the words before it are cut at their end ("Non-he… used"); when even
// that leaves them too little, the name is cut in the middle of its
// letters ("Tasks W…r Dependencies").
func middleWords(s string, w int) string {
	if widthOf(s) <= w {
		return s
	}
	words := strings.Fields(s)
	best, kept := "", 0
	for first := 1; first < len(words)-1; first++ {
		for last := 1; first+last < len(words); last++ {
			head, tail := strings.Join(words[:first], " "), strings.Join(words[len(words)-last:], " ")
			out := head + " … " + tail
			if n := widthOf(head) + widthOf(tail); widthOf(out) <= w && n > kept {
				best, kept = out, n
			}
		}
	}
	if best != "" {
		return best
	}
	if n := len(words); n >= 2 {
		head, last := strings.Join(words[:n-1], " "), words[n-1]
		if room := w - widthOf(last) - 1; room >= 4 && room < widthOf(head) {
			return fit(head, room, false) + " " + last
		}
	}
	return middle(s, w)
}

// shortSeriesName fits "ATTRIBUTE (QUALIFIER)" in w cells: the qualifier
// without what every MBean of a pattern shares in its form (the domain,
// the keys), then cut at its end; the attribute gets a third at least.
func shortSeriesName(s string, w int) string {
	if widthOf(s) <= w {
		return s
	}
	open := strings.LastIndex(s, " (")
	if open <= 0 || !strings.HasSuffix(s, ")") {
		return middleWords(s, w)
	}
	head, q := s[:open], objectNameValues(s[open+2:len(s)-1])
	if out := head + " (" + q + ")"; widthOf(out) <= w {
		return out
	}
	headRoom := min(widthOf(head), max(w/3, w-widthOf(q)-3))
	left := w - headRoom - 3
	if left < 3 {
		return middle(s, w)
	}
	return middleWords(head, headRoom) + " (" + fit(q, left, false) + ")"
}

// objectNameValues is an MBean's name by the values of its keys, its
// name= first: "java.lang:type=MemoryPool,name=Metaspace" reads
// "Metaspace,MemoryPool". Anything else stays as it is.
func objectNameValues(q string) string {
	colon := strings.IndexByte(q, ':')
	if colon <= 0 || !strings.Contains(q[colon:], "=") {
		return q
	}
	var values []string
	named := -1
	for _, kv := range splitProperties(q[colon+1:]) {
		k, v, ok := strings.Cut(kv, "=")
		if !ok {
			return q
		}
		if k == "name" {
			named = len(values)
		}
		values = append(values, v)
	}
	if named > 0 {
		v := values[named]
		values = slices.Insert(slices.Delete(values, named, named+1), 0, v)
	}
	return strings.Join(values, ",")
}

// splitProperties splits an MBean name's key properties at the commas
// that are not inside a quoted value.
func splitProperties(s string) []string {
	var out []string
	quoted, start := false, 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '\\':
			if quoted {
				i++
			}
		case '"':
			quoted = !quoted
		case ',':
			if !quoted {
				out = append(out, s[start:i])
				start = i + 1
			}
		}
	}
	return append(out, s[start:])
}
