package decode

import "bytes"

// An XML stream is a trace (TPTP's <TRACE>, or its elements bare) unless
// its root element is <doc>, a ProfilerJ snapshot's: the root's name is
// found past the prologue.

// maxRootSniff bounds what Open reads of an XML prologue (declaration,
// comments, doctype) looking for the root element's name.
const maxRootSniff = 64 << 10

// xmlUndecided says the prefix is XML whose root element's name it does
// not hold yet (within the bound on the prologue).
func xmlUndecided(prefix []byte) bool {
	if len(prefix) >= maxRootSniff {
		return false
	}
	p := bytes.TrimLeft(bytes.TrimPrefix(prefix, []byte("\xef\xbb\xbf")), " \t\r\n")
	if len(p) == 0 || p[0] != '<' {
		return false
	}
	_, done := xmlRoot(p)
	return !done
}

// xmlRoot finds the name of the first element of an XML prefix that
// starts with '<', past the declaration, processing instructions, comments
// and a doctype. done is false while the prefix ends before the name does;
// a prefix that is not well-formed is done, with no name.
func xmlRoot(p []byte) (name string, done bool) {
	for {
		p = bytes.TrimLeft(p, " \t\r\n")
		switch {
		case len(p) == 0:
			return "", false
		case p[0] != '<':
			return "", true
		case bytes.HasPrefix(p, []byte("<?")):
			i := bytes.Index(p, []byte("?>"))
			if i < 0 {
				return "", false
			}
			p = p[i+2:]
		case bytes.HasPrefix(p, []byte("<!--")):
			i := bytes.Index(p[4:], []byte("-->"))
			if i < 0 {
				return "", false
			}
			p = p[4+i+3:]
		case bytes.HasPrefix(p, []byte("<!")):
			end := []byte(">")
			if i, j := bytes.IndexByte(p, '['), bytes.IndexByte(p, '>'); i >= 0 && (j < 0 || i < j) {
				end = []byte("]>") // a doctype with an internal subset
			}
			i := bytes.Index(p, end)
			if i < 0 {
				return "", false
			}
			p = p[i+len(end):]
		default:
			i := bytes.IndexAny(p[1:], " \t\r\n/>")
			if i < 0 {
				return "", false
			}
			return string(p[1 : 1+i]), true
		}
	}
}
