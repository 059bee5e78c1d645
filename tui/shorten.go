package tui

import (
	"strings"
)

// Shortening names that do not fit, keeping what tells rows apart: a
// cell cut at the right makes com.acme.billing.Ledger.post and
// com.acme.billing.Ledger.get look the same. Java names lose their
// packages first (to initials, as logback does: o.a.l.l.c.a.OutputStreamManager),
// then the package altogether; the class's simple name and the method
// stay while they fit, and only then is the end of what is left kept.

// shortMethod fits "pkg.Class.method" in w cells, with what follows the
// name: ":line", or the parameters that keep overloads apart. Those read
// as Java writes them, simple type names and no return type
// ("(Ljava/awt/Graphics;I)V" reads "(Graphics,int)", whether it fits or
// not, so that overloads look alike), and they lose their last types
// before the class loses its simple name: "JTextField.-init-(Document,…)".
func shortMethod(s string, w int) string {
	name, params, ok := splitParams(s)
	if !ok {
		if widthOf(s) <= w {
			return s
		}
		return shortJava(s, w, 2)
	}
	params = readableParams(params)
	if full := name + params; widthOf(full) <= w || w <= 0 {
		return full
	}
	for _, p := range fewerParams(params) {
		if out, ok := fitJava(name, p, w, 2); ok {
			return out
		}
	}
	// "(…)" alone tells nothing apart: the name has the room.
	return shortJava(name, w, 2)
}

// readableMethod is a method's name with its parameters as Java writes
// them ("wait(J)V" reads "wait(long)"), as the panes show it, whole.
func readableMethod(s string) string {
	name, params, ok := splitParams(s)
	if !ok {
		return s
	}
	return name + readableParams(params)
}

// shortClass fits "pkg.Outer$Inner" in w cells: the simple name stays.
func shortClass(s string, w int) string { return shortJava(s, w, 1) }

// shortLock fits "pkg.Class@1b6d3586" (or "pkg.Class ×12 at site") in w
// cells: the identity, and as much of the class as fits, stay.
func shortLock(s string, w int) string {
	if widthOf(s) <= w {
		return s
	}
	if i := strings.Index(s, " ×"); i > 0 {
		class, rest := s[:i], s[i:]
		count, site, _ := strings.Cut(rest, " at ")
		return shortLockGroup(class, count, site, w)
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

// shortLockGroup fits a group of locks, "class ×N at pkg.Class.method:line",
// in w cells. The count stays; the class and the place keep their simple
// names before either is cut, and a place in the lock's own class is
// named by its method alone ("InventoryCache ×3 at get:64").
func shortLockGroup(class, count, site string, w int) string {
	room := w - widthOf(count)
	if room < 8 {
		return middle(class+count, w)
	}
	if site == "" {
		return shortClass(class, room) + count
	}
	simple := simpleName(class)
	short, whole := initials(class, 1), initials(site, 2)
	place := lastSegments(site, 2) // Class.method:line
	forms := [][2]string{{short, whole}, {short, place}, {simple, place}}
	if strings.HasPrefix(place, simple+".") {
		place = place[len(simple)+1:]
		forms = append(forms, [2]string{short, place}, [2]string{simple, place})
	}
	for _, f := range forms {
		if out := f[0] + count + " at " + f[1]; widthOf(out) <= w {
			return out
		}
	}
	// Neither fits whole: the class gets half the room at least, the
	// place what is left, its end (the method and the line) kept.
	c := shortClass(simple, max(room/2, room-widthOf(" at "+place)))
	if left := room - widthOf(c); left > 5 {
		return c + count + " at " + tail(place, left-4)
	}
	return c + count
}

// shortJava abbreviates the package segments of a dotted Java name to
// their initials, left to right, until it fits; then drops them; then
// cuts in the middle of what is left, keeping the last keep segments' end.
func shortJava(s string, w int, keep int) string {
	if widthOf(s) <= w || w <= 0 {
		return s
	}
	// The descriptor or anything after a '(' or ' ' is not part of the name.
	name, rest := s, ""
	if i := strings.IndexAny(s, "( "); i > 0 {
		name, rest = s[:i], s[i:]
	}
	if out, ok := fitJava(name, rest, w, keep); ok {
		return out
	}
	return tail(lastSegments(name, keep)+rest, w)
}

// fitJava is name followed by rest in w cells, its package abbreviated to
// initials one segment at a time, then left out ("…Class.method"): false
// when even that does not fit.
func fitJava(name, rest string, w, keep int) (string, bool) {
	if out := name + rest; widthOf(out) <= w {
		return out, true
	}
	parts := strings.Split(name, ".")
	for i := 0; i < len(parts)-keep; i++ {
		if len(parts[i]) > 1 {
			parts[i] = firstRune(parts[i])
		}
		if out := strings.Join(parts, ".") + rest; widthOf(out) <= w {
			return out, true
		}
	}
	if len(parts) > keep {
		if out := "…" + lastSegments(name, keep) + rest; widthOf(out) <= w {
			return out, true
		}
	}
	return "", false
}

// initials is a dotted name with its package segments abbreviated,
// the last keep segments whole.
func initials(name string, keep int) string {
	parts := strings.Split(name, ".")
	for i := 0; i < len(parts)-keep; i++ {
		parts[i] = firstRune(parts[i])
	}
	return strings.Join(parts, ".")
}

// lastSegments is the last keep dotted segments of name.
func lastSegments(name string, keep int) string {
	parts := strings.Split(name, ".")
	if len(parts) <= keep {
		return name
	}
	return strings.Join(parts[len(parts)-keep:], ".")
}

// simpleName is a class's name without its package.
func simpleName(class string) string { return lastSegments(class, 1) }

// splitParams parts a method's name from a parameter list or JVM
// descriptor after it: "pkg.C.m" and "(I)V". A Ruby label's parentheses
// ("block (2 levels) in Foo#bar") come after a space: they are its name.
func splitParams(s string) (name, params string, ok bool) {
	i := strings.IndexByte(s, '(')
	if i <= 0 || strings.ContainsRune(s, ' ') || !strings.ContainsRune(s[i:], ')') {
		return s, "", false
	}
	return s[:i], s[i:], true
}

// readableParams writes a JVM descriptor, or a parameter list of
// qualified names, as Java code reads: "(Ljava/lang/String;[I)V" and
// "(java.lang.String,int[])" both read "(String,int[])". Anything else
// stays as it is.
func readableParams(p string) string {
	end := strings.IndexByte(p, ')')
	inner, ret := p[1:end], p[end+1:]
	if types, ok := descriptorTypes(inner); ok {
		if _, rest, ok := descriptorType(ret); (ok && rest == "") || ret == "" {
			return "(" + strings.Join(types, ",") + ")"
		}
	}
	if ret != "" || inner == "" {
		return p
	}
	types := strings.Split(inner, ",")
	for i, t := range types {
		t = strings.TrimSpace(t)
		if !javaTypeName(t) {
			return p
		}
		types[i] = simpleName(t)
	}
	return "(" + strings.Join(types, ",") + ")"
}

// descriptorTypes reads the parameter types of a JVM descriptor, by
// their simple names.
func descriptorTypes(d string) ([]string, bool) {
	var out []string
	for d != "" {
		t, rest, ok := descriptorType(d)
		if !ok {
			return nil, false
		}
		out, d = append(out, t), rest
	}
	return out, true
}

var primitives = map[byte]string{'B': "byte", 'C': "char", 'D': "double", 'F': "float", 'I': "int", 'J': "long", 'S': "short", 'Z': "boolean", 'V': "void"}

// descriptorType reads one field type of a JVM descriptor from the start
// of d: its simple name, and what follows it.
func descriptorType(d string) (string, string, bool) {
	dims := 0
	for dims < len(d) && d[dims] == '[' {
		dims++
	}
	if dims == len(d) {
		return "", "", false
	}
	brackets := strings.Repeat("[]", dims)
	d = d[dims:]
	if p, ok := primitives[d[0]]; ok {
		return p + brackets, d[1:], true
	}
	if d[0] != 'L' {
		return "", "", false
	}
	semi := strings.IndexByte(d, ';')
	if semi < 2 {
		return "", "", false
	}
	class := d[1:semi]
	if i := strings.LastIndexByte(class, '/'); i >= 0 {
		class = class[i+1:]
	}
	return class + brackets, d[semi+1:], true
}

// javaTypeName reports whether s reads as a Java type: a dotted name,
// perhaps an array.
func javaTypeName(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range strings.TrimRight(s, "[]") {
		if !(r == '.' || r == '$' || r == '_' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r > 0x7f) {
			return false
		}
	}
	return true
}

// fewerParams are a parameter list, then the same losing its last types
// one by one, down to "(…)": "(A,B)", "(A,…)", "(…)".
func fewerParams(p string) []string {
	out := []string{p}
	if p == "()" || !strings.HasPrefix(p, "(") || !strings.HasSuffix(p, ")") {
		return out
	}
	types := strings.Split(p[1:len(p)-1], ",")
	for n := len(types) - 1; n >= 0; n-- {
		out = append(out, "("+strings.Join(append(types[:n:n], "…"), ",")+")")
	}
	return out
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
