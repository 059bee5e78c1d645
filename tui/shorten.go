package tui

import (
	"strings"

	"github.com/proftop/proftop/internal/javaname"
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
// before the class loses its simple name: "JTextField.<init>(Document,…)";
// then the class loses its beginning, and the first type stays while the
// method's name fits beside it.
func shortMethod(s string, w int) string {
	name, params, ok := javaname.Split(s)
	if !ok {
		if widthOf(s) <= w {
			return s
		}
		return shortJava(s, w, 2)
	}
	params = javaname.Params(params)
	if full := name + params; widthOf(full) <= w || w <= 0 {
		return full
	}
	// "(…)" alone tells no overloads apart: the forms keep a type at least.
	forms := fewerParams(params)
	if len(forms) > 1 && forms[len(forms)-1] == "(…)" {
		forms = forms[:len(forms)-1]
	}
	for _, p := range forms {
		if out, ok := fitJava(name, p, w, 2); ok {
			return out
		}
	}
	// Then the class's simple name loses its beginning before the
	// parameters go: "…ttributeConstant.getConstant(int)" and
	// "…ttributeConstant.getConstant(String)", not the same name twice.
	method := lastSegments(name, 1)
	for _, p := range forms {
		if widthOf("…."+method+p) <= w {
			return tail(lastSegments(name, 2)+p, w)
		}
	}
	return shortJava(name, w, 2)
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
