// Package javaname reads the names of Java methods as Java code writes
// them: a JVM descriptor's parameters ("(Ljava/lang/String;I)V") as
// "(String,int)". The panes show methods so, and the exports name them so.
package javaname

import "strings"

// Method is a method's name with its parameters as Java writes them
// ("java.lang.Object.wait(J)V" reads "java.lang.Object.wait(long)");
// a name without parameters, or with what reads as none, is as it is.
func Method(s string) string {
	name, params, ok := Split(s)
	if !ok {
		return s
	}
	return name + Params(params)
}

// Split parts a method's name from a parameter list or JVM
// descriptor after it: "pkg.C.m" and "(I)V". A Ruby label's parentheses
// ("block (2 levels) in Foo#bar") come after a space: they are its name.
func Split(s string) (name, params string, ok bool) {
	i := strings.IndexByte(s, '(')
	if i <= 0 || strings.ContainsRune(s, ' ') || !strings.ContainsRune(s[i:], ')') {
		return s, "", false
	}
	return s[:i], s[i:], true
}

// Params writes a JVM descriptor, or a parameter list of
// qualified names, as Java code reads: "(Ljava/lang/String;[I)V" and
// "(java.lang.String,int[])" both read "(String,int[])". Anything else
// stays as it is.
func Params(p string) string {
	end := strings.IndexByte(p, ')')
	if !strings.HasPrefix(p, "(") || end < 0 {
		return p // no parameter list
	}
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
		types[i] = t[strings.LastIndexByte(t, '.')+1:]
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

// SpecialFrame is a stack frame's method ("pkg.C.-init-", maybe with its
// descriptor after it) with a constructor's or class initializer's name
// as the JVM writes it (Special).
func SpecialFrame(frame string) string {
	name, rest := frame, ""
	if i := strings.IndexByte(frame, '('); i >= 0 {
		name, rest = frame[:i], frame[i:]
	}
	dot := strings.LastIndexByte(name, '.')
	if special := Special(name[dot+1:]); special != name[dot+1:] {
		return name[:dot+1] + special + rest
	}
	return frame
}

// Special is a constructor's or class initializer's name as the JVM
// writes it: TPTP's XML traces write "<init>" and "<clinit>" as "-init-"
// and "-clinit-" (angle brackets are markup there), which would otherwise
// name the same method differently from every other source.
func Special(name string) string {
	switch name {
	case "-init-":
		return "<init>"
	case "-clinit-":
		return "<clinit>"
	}
	return name
}
