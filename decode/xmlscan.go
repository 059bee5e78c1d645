package decode

import (
	"bytes"
	"fmt"
	"io"
	"unicode/utf8"
)

// The XML form of a trace is a flat stream of tags: one element per event,
// a few <frame> children for stacks. This scanner reads exactly that much of
// XML: tags with attributes, comments, processing instructions, CDATA and
// doctype (the last three skipped), character data (ignored). It does not
// build a tree and it resumes mid-tag when a read stops early.

type tagKind uint8

const (
	tagStart tagKind = iota + 1 // <name ...>
	tagEmpty                    // <name .../>
	tagEnd                      // </name>
	tagPI                       // <?name ...?>
	tagOther                    // comment, CDATA, doctype
)

// scanMode is what ends the tag being scanned.
type scanMode uint8

const (
	scanUnknown scanMode = iota
	scanElement          // '>' outside quotes
	scanPI               // "?>"
	scanComment          // "-->"
	scanCDATA            // "]]>"
	scanDoctype          // '>' or, with an internal subset, "]>"
	scanSubset           // "]>", the end of a doctype's internal subset
)

type rawAttr struct {
	name, value []byte
	at          int // offset of the value within the tag
}

type xmlTag struct {
	kind    tagKind
	name    []byte
	attrs   []rawAttr
	dropped int   // attributes beyond the scanner's bound, not kept
	start   int64 // stream offset of '<'
	size    int   // bytes of the whole tag
}

// xmlScanner finds and parses tags in a chunkReader.
type xmlScanner struct {
	in       chunkReader
	maxSize  int
	maxAttrs int // attributes kept per tag

	// Where a tag scan stopped when the buffer ran out, so that more data
	// does not mean scanning the same bytes again.
	mode  scanMode
	pos   int
	quote byte

	// forbidden is the offset in the buffer of a byte XML never allows
	// (see scanEnd), -1 for none.
	forbidden int

	// Position bookkeeping for error messages.
	line      int   // line of the next unread byte (1-based)
	lineStart int64 // stream offset where that line starts

	tag xmlTag
}

func newXMLScanner(r io.Reader, maxSize, maxAttrs int) xmlScanner {
	return xmlScanner{in: newChunkReader(r), maxSize: maxSize, maxAttrs: maxAttrs, line: 1, forbidden: -1}
}

// advance consumes n bytes, counting lines.
func (s *xmlScanner) advance(n int) {
	b := s.in.unread()[:n]
	if c := bytes.Count(b, []byte{'\n'}); c > 0 {
		s.line += c
		s.lineStart = s.in.offset() + int64(bytes.LastIndexByte(b, '\n')) + 1
	}
	s.in.consume(n)
}

// position gives line and column of a stream offset at or after the next
// unread byte, within the buffered data.
func (s *xmlScanner) position(off int64) (line, col int) {
	line, start := s.line, s.lineStart
	rel := int(off - s.in.offset())
	buf := s.in.unread()
	if rel > len(buf) {
		rel = len(buf)
	}
	if rel > 0 {
		seg := buf[:rel]
		if c := bytes.Count(seg, []byte{'\n'}); c > 0 {
			line += c
			start = s.in.offset() + int64(bytes.LastIndexByte(seg, '\n')) + 1
		}
	}
	return line, int(off-start) + 1
}

// errorAt builds an *Error at a stream offset with its line and column.
func (s *xmlScanner) errorAt(off int64, kind error, element, field, detail string) *Error {
	line, col := s.position(off)
	return &Error{Err: kind, Offset: off, Line: line, Column: col, Element: element, Field: field, Detail: detail}
}

// next reads the next tag into s.tag. At the end of the input between tags
// it returns io.EOF; inside a tag, a fatal ErrTruncated.
func (s *xmlScanner) next() error {
	if s.mode == scanUnknown {
		if err := s.skipText(); err != nil {
			return err
		}
	}
	for {
		buf := s.in.unread()
		n, ok := s.scanEnd(buf)
		if s.forbidden >= 0 {
			return s.forbiddenByte(buf)
		}
		if ok && n <= s.maxSize {
			s.mode, s.pos, s.quote = scanUnknown, 0, 0
			start := s.in.offset()
			if err := s.parse(buf[:n], start); err != nil {
				return err
			}
			return nil
		}
		if len(buf) >= s.maxSize || ok {
			e := s.errorAt(s.in.offset(), ErrTooLarge, "", "", fmt.Sprintf("a tag longer than %d bytes", s.maxSize))
			e.Fatal = true
			return e
		}
		if err := s.in.fill(len(buf) + 1); err != nil {
			if err == io.EOF {
				e := s.errorAt(s.in.offset(), ErrTruncated, "", "", fmt.Sprintf("%d bytes of an unfinished tag", len(buf)))
				e.Fatal = true
				return e
			}
			return err
		}
	}
}

// skipText consumes character data up to the next '<'.
func (s *xmlScanner) skipText() error {
	for {
		buf := s.in.unread()
		if i := bytes.IndexByte(buf, '<'); i >= 0 {
			s.advance(i)
			return nil
		}
		s.advance(len(buf))
		if err := s.in.fill(1); err != nil {
			return err
		}
	}
}

// scanEnd looks for the end of the tag starting at buf[0] ('<') and returns
// its length, resuming the scan where the previous call stopped.
func (s *xmlScanner) scanEnd(buf []byte) (int, bool) {
	if s.mode == scanUnknown {
		if !s.classify(buf) {
			return 0, false
		}
	}
	switch s.mode {
	case scanElement, scanDoctype:
		for i := s.pos; i < len(buf); i++ {
			c := buf[i]
			if c < 0x20 && !isSpace(c) {
				// A control byte (NUL, say) is never XML, in a value or
				// out: no byte to come can make this tag readable, so it
				// is refused now rather than waited on (a followed file).
				s.forbidden = i
				return 0, false
			}
			if s.quote != 0 {
				if c == s.quote {
					s.quote = 0
				}
				continue
			}
			switch c {
			case '"', '\'':
				s.quote = c
			case '[':
				if s.mode == scanDoctype {
					s.mode, s.pos = scanSubset, i
					return s.scanEndMarker(buf, "]>")
				}
			case '>':
				return i + 1, true
			}
		}
		s.pos = len(buf)
		return 0, false
	case scanPI:
		return s.scanEndMarker(buf, "?>")
	case scanComment:
		return s.scanEndMarker(buf, "-->")
	case scanSubset:
		return s.scanEndMarker(buf, "]>")
	default:
		return s.scanEndMarker(buf, "]]>")
	}
}

// forbiddenByte refuses the tag in buf holding a byte XML never allows.
func (s *xmlScanner) forbiddenByte(buf []byte) error {
	i := s.forbidden
	s.forbidden = -1
	name := ""
	if len(buf) > 1 {
		name = string(buf[1 : 1+nameLen(buf[1:i])])
	}
	return s.syntax(s.in.offset()+int64(i), name, fmt.Sprintf("byte 0x%02x inside a tag (%s), which XML never allows", buf[i], quoteDetail(string(buf[:i+1]))))
}

func (s *xmlScanner) scanEndMarker(buf []byte, marker string) (int, bool) {
	if i := bytes.Index(buf[s.pos:], []byte(marker)); i >= 0 {
		return s.pos + i + len(marker), true
	}
	if p := len(buf) - len(marker) + 1; p > s.pos {
		s.pos = p
	}
	return 0, false
}

// classify decides what kind of tag starts at buf[0]; false means more bytes
// are needed to tell.
func (s *xmlScanner) classify(buf []byte) bool {
	if len(buf) < 2 {
		return false
	}
	switch buf[1] {
	case '?':
		s.mode, s.pos = scanPI, 2
	case '!':
		switch {
		case bytes.HasPrefix(buf, []byte("<!--")):
			s.mode, s.pos = scanComment, 4
		case bytes.HasPrefix(buf, []byte("<![CDATA[")):
			s.mode, s.pos = scanCDATA, 9
		case len(buf) < 9 && (bytes.HasPrefix([]byte("<![CDATA["), buf) || bytes.HasPrefix([]byte("<!--"), buf)):
			return false
		default:
			s.mode, s.pos = scanDoctype, 2
		}
	default:
		s.mode, s.pos = scanElement, 1
	}
	return true
}

// parse splits a complete tag into name and attributes.
func (s *xmlScanner) parse(raw []byte, start int64) error {
	t := &s.tag
	t.start, t.size, t.name, t.attrs, t.dropped = start, len(raw), nil, t.attrs[:0], 0
	switch {
	case raw[1] == '?':
		t.kind = tagPI
		body := raw[2 : len(raw)-2]
		n := nameLen(body)
		t.name = body[:n]
		if string(t.name) != "xml" {
			// A processing instruction's content is its target's own
			// (<?pi x?>, <?php echo 1; ?>): XML gives it no syntax, and
			// no target but the declaration's means anything to a trace.
			return nil
		}
		return s.parseAttrs(body, n, 2, start, false)
	case raw[1] == '!':
		t.kind = tagOther
		return nil
	case raw[1] == '/':
		t.kind = tagEnd
		body := bytes.TrimRight(raw[2:len(raw)-1], " \t\r\n")
		n := nameLen(body)
		if n == 0 || n != len(body) {
			return s.syntax(start, "", fmt.Sprintf("bad end tag %s", quoteDetail(string(raw))))
		}
		t.name = body
		return nil
	}
	body := raw[1 : len(raw)-1]
	t.kind = tagStart
	if len(body) > 0 && body[len(body)-1] == '/' {
		t.kind = tagEmpty
		body = body[:len(body)-1]
	}
	n := nameLen(body)
	if n == 0 {
		return s.syntax(start, "", fmt.Sprintf("tag without a name: %s", quoteDetail(string(raw))))
	}
	t.name = body[:n]
	return s.parseAttrs(body, n, 1, start, true)
}

// parseAttrs reads name="value" pairs from body[p:]; base is body's offset
// within the tag.
func (s *xmlScanner) parseAttrs(body []byte, p, base int, start int64, strict bool) error {
	t := &s.tag
	for {
		for p < len(body) && isSpace(body[p]) {
			p++
		}
		if p == len(body) {
			return nil
		}
		if p > 0 && !isSpace(body[p-1]) && strict {
			return s.syntax(start+int64(base+p), string(t.name), "attributes must be separated by white space")
		}
		n := nameLen(body[p:])
		if n == 0 {
			return s.syntax(start+int64(base+p), string(t.name), fmt.Sprintf("unexpected %s", quoteDetail(string(body[p:p+1]))))
		}
		name := body[p : p+n]
		p += n
		for p < len(body) && isSpace(body[p]) {
			p++
		}
		if p == len(body) || body[p] != '=' {
			return s.syntax(start+int64(base+p), string(t.name), fmt.Sprintf("attribute %s has no value", quoteDetail(string(name))))
		}
		p++
		for p < len(body) && isSpace(body[p]) {
			p++
		}
		if p == len(body) || (body[p] != '"' && body[p] != '\'') {
			return s.syntax(start+int64(base+p), string(t.name), fmt.Sprintf("value of attribute %s is not quoted", quoteDetail(string(name))))
		}
		q := body[p]
		end := bytes.IndexByte(body[p+1:], q)
		if end < 0 {
			return s.syntax(start+int64(base+p), string(t.name), fmt.Sprintf("value of attribute %s is not closed", quoteDetail(string(name))))
		}
		if len(t.attrs) < s.maxAttrs {
			t.attrs = append(t.attrs, rawAttr{name: name, value: body[p+1 : p+1+end], at: base + p + 1})
		} else {
			t.dropped++ // read for the syntax, not kept: memory follows the bound, not the peer
		}
		p += end + 2
	}
}

func (s *xmlScanner) syntax(off int64, element, detail string) error {
	e := s.errorAt(off, ErrSyntax, element, "", detail)
	e.Fatal = true
	return e
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// nameLen is the length of the XML name at the start of b.
func nameLen(b []byte) int {
	i := 0
	for i < len(b) {
		c := b[i]
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_' || c == ':' || c >= 0x80 ||
			i > 0 && (c >= '0' && c <= '9' || c == '-' || c == '.') {
			i++
			continue
		}
		break
	}
	return i
}

// unescape resolves entity and character references and normalises white
// space in an attribute value, as XML requires. It returns v itself when
// there is nothing to do, else a result built in *scratch (which it keeps
// for reuse).
func unescape(v []byte, scratch *[]byte) ([]byte, error) {
	if bytes.IndexByte(v, '&') < 0 && bytes.IndexAny(v, "\t\n\r") < 0 {
		return v, nil
	}
	out := (*scratch)[:0]
	defer func() { *scratch = out[:0] }()
	for i := 0; i < len(v); {
		c := v[i]
		switch c {
		case '\t', '\n', '\r':
			out = append(out, ' ')
			i++
			continue
		case '&':
		default:
			out = append(out, c)
			i++
			continue
		}
		semi := bytes.IndexByte(v[i:], ';')
		if semi < 0 {
			return nil, fmt.Errorf("'&' without ';' at %s", quoteDetail(string(v[i:])))
		}
		ref := v[i+1 : i+semi]
		switch string(ref) {
		case "lt":
			out = append(out, '<')
		case "gt":
			out = append(out, '>')
		case "amp":
			out = append(out, '&')
		case "quot":
			out = append(out, '"')
		case "apos":
			out = append(out, '\'')
		default:
			r, ok := charRef(ref)
			if !ok {
				return nil, fmt.Errorf("unknown reference &%s;", quoteDetail(string(ref)))
			}
			out = utf8.AppendRune(out, r)
		}
		i += semi + 1
	}
	return out, nil
}

// charRef decodes "#65" or "#x41".
func charRef(ref []byte) (rune, bool) {
	if len(ref) < 2 || ref[0] != '#' {
		return 0, false
	}
	base, digits := 10, ref[1:]
	if digits[0] == 'x' {
		base, digits = 16, digits[1:]
	}
	if len(digits) == 0 || len(digits) > 8 {
		return 0, false
	}
	var r rune
	for _, c := range digits {
		var d byte
		switch {
		case c >= '0' && c <= '9':
			d = c - '0'
		case base == 16 && c >= 'a' && c <= 'f':
			d = c - 'a' + 10
		case base == 16 && c >= 'A' && c <= 'F':
			d = c - 'A' + 10
		default:
			return 0, false
		}
		r = r*rune(base) + rune(d)
	}
	if r == 0 || r > utf8.MaxRune || !utf8.ValidRune(r) {
		return 0, false
	}
	return r, true
}
