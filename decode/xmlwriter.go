package decode

import (
	"fmt"
	"io"
	"strconv"
	"unsafe"
)

// XMLWriter writes events as an XML (.trcxml) stream, the form profilers
// from before the binary format emit: a declaration, an open <TRACE>, then
// one element per line. Attributes at their default are omitted, as real
// profilers do; readers fill them back in.
type XMLWriter struct {
	w       io.Writer
	buf     []byte
	clock   Clock
	tc      *transcoder
	started bool
	err     error
}

// NewXMLWriter returns a writer to w. It buffers; call Flush.
func NewXMLWriter(w io.Writer) *XMLWriter {
	return &XMLWriter{w: w, buf: make([]byte, 0, 4096)}
}

// XMLPrologue is what an XML trace starts with.
const XMLPrologue = "<?xml version=\"1.0\"?>\n<TRACE>\n"

// Write appends ev to the stream.
func (x *XMLWriter) Write(ev Event) error {
	if x.err != nil {
		return x.err
	}
	x.begin()
	buf, err := x.appendElement(x.buf, ev)
	if err != nil {
		return err
	}
	x.buf = buf
	switch e := ev.(type) {
	case *Frequency:
		if e.Frequency > 0 {
			x.clock = Clock{Frequency: e.Frequency}
		}
	case *Encoding:
		cs, err := lookupCharset(e.Encoding)
		if err != nil {
			return fmt.Errorf("xml: %w: %v", ErrCharset, err)
		}
		x.tc = newTranscoder(cs, false)
	}
	if len(x.buf) >= flushThreshold {
		return x.Flush()
	}
	return nil
}

func (x *XMLWriter) begin() {
	if !x.started {
		x.buf = append(x.buf, XMLPrologue...)
		x.started = true
	}
}

// Flush writes everything buffered.
func (x *XMLWriter) Flush() error {
	if x.err != nil {
		return x.err
	}
	x.begin()
	if len(x.buf) == 0 {
		return nil
	}
	_, err := x.w.Write(x.buf)
	x.buf = x.buf[:0]
	if err != nil {
		x.err = err
	}
	return err
}

// Close ends the document with </TRACE> and flushes. A live stream never
// does this; a finished file may.
func (x *XMLWriter) Close() error {
	x.begin()
	x.buf = append(x.buf, "</TRACE>\n"...)
	return x.Flush()
}

func (x *XMLWriter) appendElement(dst []byte, ev Event) ([]byte, error) {
	start := len(dst)
	if u, ok := ev.(*Unknown); ok {
		if u.Element == "" || nameLen([]byte(u.Element)) != len(u.Element) {
			return dst, fmt.Errorf("xml: unknown message %d has no XML form", u.ID)
		}
		dst = append(dst, '<')
		dst = append(dst, u.Element...)
		for _, a := range u.Attrs {
			if nameLen([]byte(a.Name)) != len(a.Name) || a.Name == "" {
				return dst[:start], fmt.Errorf("xml: attribute name %s of <%s>", quoteDetail(a.Name), u.Element)
			}
			var err error
			if dst, err = x.appendAttrString(append(append(append(dst, ' '), a.Name...), '=', '"'), a.Value); err != nil {
				return dst[:start], err
			}
			dst = append(dst, '"')
		}
		return append(dst, "/>\n"...), nil
	}
	sp := specOf(ev.Kind())
	if sp.custom {
		c, err := ConventionBody(ev, x.clock)
		if err != nil {
			return dst, err
		}
		return x.appendElement(dst, c)
	}
	p := sp.base(ev)
	dst = append(dst, '<')
	dst = append(dst, sp.name...)
	var stack *Stack
	for i := range sp.fields {
		f := &sp.fields[i]
		if isDefault(f, p) {
			continue
		}
		dst = append(dst, ' ')
		if f.typ == fieldStack {
			stack = fieldAt[Stack](p, f.off)
			dst = append(dst, attrStackDepth+`="`...)
			dst = strconv.AppendInt(dst, int64(len(stack.Methods)), 10)
			dst = append(dst, '"')
			continue
		}
		dst = append(dst, f.name...)
		dst = append(dst, '=', '"')
		if f.typ == fieldString {
			var err error
			if dst, err = x.appendAttrString(dst, *fieldAt[string](p, f.off)); err != nil {
				return dst[:start], fmt.Errorf("xml: %s: field %s: %w", sp.name, f.name, err)
			}
		} else {
			dst = appendNumber(dst, f, p, x.clock, true)
		}
		dst = append(dst, '"')
	}
	if stack == nil {
		return append(dst, "/>\n"...), nil
	}
	if len(stack.Lines) != len(stack.Methods) {
		return dst[:start], fmt.Errorf("xml: %s: stack has %d methods but %d lines", sp.name, len(stack.Methods), len(stack.Lines))
	}
	dst = append(dst, '>')
	for i, m := range stack.Methods {
		dst = append(dst, `<frame method="`...)
		var err error
		if dst, err = x.appendAttrString(dst, m); err != nil {
			return dst[:start], fmt.Errorf("xml: %s: frame %d: %w", sp.name, i, err)
		}
		dst = append(dst, `" line="`...)
		dst = strconv.AppendInt(dst, stack.Lines[i], 10)
		dst = append(dst, `"/>`...)
	}
	dst = append(dst, "</"...)
	dst = append(dst, sp.name...)
	return append(dst, ">\n"...), nil
}

// appendAttrString escapes s for a double-quoted attribute value. Control
// characters become character references so that they survive the white
// space normalisation readers apply.
func (x *XMLWriter) appendAttrString(dst []byte, s string) ([]byte, error) {
	if x.tc != nil && s != "" {
		b, err := x.tc.convert(unsafe.Slice(unsafe.StringData(s), len(s)))
		if err != nil {
			return dst, fmt.Errorf("%w: %s", ErrCharset, err)
		}
		s = string(b)
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '&':
			dst = append(dst, "&amp;"...)
		case c == '<':
			dst = append(dst, "&lt;"...)
		case c == '>':
			dst = append(dst, "&gt;"...)
		case c == '"':
			dst = append(dst, "&quot;"...)
		case c == 0:
			return dst, fmt.Errorf("string %s holds a NUL byte", quoteDetail(s))
		case c < 0x20 || c == 0x7f:
			dst = append(dst, "&#x"...)
			dst = strconv.AppendUint(dst, uint64(c), 16)
			dst = append(dst, ';')
		default:
			dst = append(dst, c)
		}
	}
	return dst, nil
}
