package decode

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"unsafe"

	"github.com/proftop/proftop/internal/javaname"
)

// The XML names of a stack frame and its attributes.
const (
	frameElement = "frame"
	frameMethod  = "method"
	frameLine    = "line"
	traceElement = "TRACE"
)

// XMLDecoder reads an XML (.trcxml) stream incrementally. The <TRACE> root
// left open at the end of the input is the normal end of a trace.
type XMLDecoder struct {
	ordinal int64 // messages (elements) returned so far, bad ones included
	sc      xmlScanner
	clock   Clock
	latest  Ticks // clock.latestTime(), the latest "time" an event may have
	intern  *interner
	tc      *transcoder
	extra   []Attr
	scratch []byte
	last    int64
	lastPos [2]int // line and column of the element that began the last event
	fatal   error
	decl    bool // the XML declaration was seen
	began   bool // the first element was seen (and is a trace's)

	// maxString bounds the strings of the events (0: none).
	maxString int

	// The event element whose children (stack frames) are being read.
	open          *kindSpec
	openErr       error // a bad attribute value, reported when the element closes
	declaredDepth int   // its stackDepth attribute, -1 when absent
	// Depth of an element subtree being skipped (unknown elements' content).
	skip int

	events [numKinds]Event
	bases  [numKinds]unsafe.Pointer
}

// NewXMLDecoder returns a decoder reading an XML trace from r.
func NewXMLDecoder(r io.Reader, opts Options) *XMLDecoder {
	d := &XMLDecoder{sc: newXMLScanner(r, opts.maxSize(), opts.maxAttributes()), intern: newInterner(), declaredDepth: -1,
		maxString: opts.maxString(), latest: Clock{}.latestTime()}
	for k, sp := range kindTable().byKind {
		d.events[k] = sp.fresh()
		d.bases[k] = sp.base(d.events[k])
	}
	return d
}

// Clock converts this stream's ticks.
func (d *XMLDecoder) Clock() Clock { return d.clock }

// Offset is the stream offset of the element that began the last event.
func (d *XMLDecoder) Offset() int64 { return d.last }

// InputOffset is the number of stream bytes consumed so far.
func (d *XMLDecoder) InputOffset() int64 { return d.sc.in.offset() }

// Format reports FormatXML.
func (d *XMLDecoder) Format() Format { return FormatXML }

// ExtraAttrs returns the attributes of the last event that its kind does
// not define, in document order; valid until the next call to Next.
func (d *XMLDecoder) ExtraAttrs() []Attr { return d.extra }

// Next returns the next event; see BinaryDecoder.Next for the contract.
func (d *XMLDecoder) Next() (Event, error) {
	ev, err := d.next()
	if err == nil {
		d.ordinal++
		boundEvent(ev, d.maxString)
		boundAttrs(d.extra, d.maxString)
		return ev, nil
	}
	numberError(err, &d.ordinal)
	return nil, err
}

// next decodes the next event; Next numbers them.
func (d *XMLDecoder) next() (Event, error) {
	for {
		if d.fatal != nil {
			return nil, d.fatal
		}
		if err := d.sc.next(); err != nil {
			if err == io.EOF && (d.open != nil || d.skip > 0) {
				name := ""
				if d.open != nil {
					name = d.open.name
				}
				e := d.sc.errorAt(d.sc.in.offset(), ErrTruncated, name, "", "the stream ends inside an element")
				e.Fatal = true
				err = e
			}
			if IsFatal(err) && err != io.EOF {
				if _, ok := err.(*Error); ok {
					d.fatal = err
				}
			}
			return nil, err
		}
		t := &d.sc.tag
		ev, err := d.handle(t)
		d.sc.advance(t.size)
		if err != nil {
			if IsFatal(err) {
				d.fatal = err
			}
			return nil, err
		}
		if ev != nil {
			return ev, nil
		}
	}
}

// handle acts on one tag; it returns an event when one is complete.
func (d *XMLDecoder) handle(t *xmlTag) (Event, error) {
	if d.skip > 0 {
		switch t.kind {
		case tagStart:
			d.skip++
		case tagEnd:
			d.skip--
		}
		return nil, nil
	}
	if t.dropped > 0 && (t.kind == tagStart || t.kind == tagEmpty) {
		// Its attributes beyond the bound were not kept: the element would
		// be read wrong, so it is skipped, content and all.
		if t.kind == tagStart {
			d.skip = 1
		}
		return nil, d.sc.errorAt(t.start, ErrTooLarge, string(t.name), "",
			fmt.Sprintf("%d attributes, more than the %d an element may have: the element is skipped", len(t.attrs)+t.dropped, d.sc.maxAttrs))
	}
	if d.open != nil {
		return d.handleChild(t)
	}
	switch t.kind {
	case tagPI:
		if string(t.name) == "xml" && !d.decl {
			d.decl = true
			return nil, d.declaration(t)
		}
		return nil, nil
	case tagOther:
		return nil, nil
	case tagEnd:
		if string(t.name) == traceElement {
			return nil, nil
		}
		return nil, d.sc.errorAt(t.start, ErrSyntax, string(t.name), "", "end tag without its start tag")
	}
	name := t.name
	if string(name) == traceElement {
		d.began = true
		return nil, nil
	}
	sp := kindTable().byName[string(name)]
	if !d.began {
		d.began = true
		if sp == nil || sp.kind == KindUnknown {
			return nil, d.notATrace(t)
		}
	}
	if sp == nil || sp.kind == KindUnknown {
		return d.unknownElement(t), nil
	}
	d.last = t.start
	d.lastPos[0], d.lastPos[1] = d.sc.position(t.start)
	d.openErr = d.fill(sp, t)
	if t.kind == tagStart {
		d.open = sp
		return nil, nil
	}
	return d.finish(sp, t)
}

// handleChild acts on a tag inside an event element.
func (d *XMLDecoder) handleChild(t *xmlTag) (Event, error) {
	sp := d.open
	switch t.kind {
	case tagEnd:
		if string(t.name) != sp.name {
			return nil, d.fatalSyntax(t, sp.name, fmt.Sprintf("expected </%s>, found </%s>", sp.name, quoteName(t.name)))
		}
		d.open = nil
		return d.finish(sp, t)
	case tagStart, tagEmpty:
		if string(t.name) == frameElement && sp.stack >= 0 {
			if err := d.frame(sp, t); err != nil && d.openErr == nil {
				d.openErr = err
			}
		}
		if t.kind == tagStart {
			d.skip = 1 // a frame's or an unknown child's content
		}
	}
	return nil, nil
}

// finish returns the completed event, or the error its attributes had.
func (d *XMLDecoder) finish(sp *kindSpec, t *xmlTag) (Event, error) {
	if err := d.openErr; err != nil {
		d.openErr = nil
		return nil, err
	}
	if sp.stack >= 0 && d.declaredDepth >= 0 {
		st := fieldAt[Stack](d.bases[sp.kind], sp.fields[sp.stack].off)
		if d.declaredDepth != len(st.Methods) {
			return nil, d.elementErr(ErrValue, sp.name, attrStackDepth, fmt.Sprintf("stackDepth %d but %d <frame> children", d.declaredDepth, len(st.Methods)))
		}
	}
	ev := d.events[sp.kind]
	switch e := ev.(type) {
	case *Encoding:
		cs, err := lookupCharset(e.Encoding)
		if err != nil {
			return nil, d.elementErr(ErrCharset, sp.name, "encoding", err.Error())
		}
		d.tc = newTranscoder(cs, true)
	case *Frequency:
		if problem := frequencyProblem(e.Frequency); problem != "" {
			return nil, d.elementErr(ErrValue, sp.name, "frequency", problem)
		}
		d.clock = Clock{Frequency: e.Frequency}
		d.latest = d.clock.latestTime()
	case *MethodDef:
		// The XML's "-init-" (angle brackets are its markup), as frames are read.
		e.Name = javaname.Special(e.Name)
	case *Custom:
		conv, cerr := fromCustom(e, d.clock, &d.events, &d.bases, d.intern)
		if cerr != nil {
			return nil, d.elementErr(cerr, sp.name, "body", "")
		}
		ev = conv
	}
	if err := d.checkTime(ev, sp.name); err != nil {
		return nil, err
	}
	return ev, nil
}

// checkTime refuses an event whose "time" is impossible (see
// Clock.timeProblem), naming the element that held it (<custom> for a
// kind of proftop's convention); the element is skipped, the stream goes on.
func (d *XMLDecoder) checkTime(ev Event, element string) error {
	sp := specOf(ev.Kind())
	if sp.time < 0 {
		return nil
	}
	t := *fieldAt[Ticks](sp.base(ev), sp.fields[sp.time].off)
	if t >= 0 && t <= d.latest {
		return nil
	}
	return d.elementErr(ErrValue, element, "time", d.clock.timeProblem(t, d.latest))
}

// elementErr reports a problem with the whole element that began the last
// event, found once its end was read.
func (d *XMLDecoder) elementErr(kind error, element, field, detail string) *Error {
	return &Error{Err: kind, Offset: d.last, Line: d.lastPos[0], Column: d.lastPos[1], Element: element, Field: field, Detail: detail}
}

func (d *XMLDecoder) fatalSyntax(t *xmlTag, element, detail string) error {
	e := d.sc.errorAt(t.start, ErrSyntax, element, "", detail)
	e.Fatal = true
	return e
}

// declaration honours the charset of the XML declaration.
func (d *XMLDecoder) declaration(t *xmlTag) error {
	for _, a := range t.attrs {
		if string(a.name) != "encoding" {
			continue
		}
		cs, err := lookupCharset(string(a.value))
		if err != nil {
			return d.sc.errorAt(t.start+int64(a.at), ErrCharset, "xml", "encoding", err.Error())
		}
		d.tc = newTranscoder(cs, true)
	}
	return nil
}

// notATrace refuses an XML document whose first element is neither
// <TRACE> nor a trace event: another kind of document (HTML, a
// configuration file), not a trace with an element proftop does not know.
func (d *XMLDecoder) notATrace(t *xmlTag) error {
	e := d.sc.errorAt(t.start, ErrUnknownInput, string(t.name), "",
		fmt.Sprintf("the document begins with <%s>, which is no trace: proftop reads XML traces (<TRACE>, or trace events such as <node> and <threadStart>, first) and ProfilerJ snapshots (root <doc>)", quoteName(t.name)))
	e.Fatal = true
	return e
}

// unknownElement keeps an element this decoder does not know, and skips its content.
func (d *XMLDecoder) unknownElement(t *xmlTag) Event {
	u := d.events[KindUnknown].(*Unknown)
	attrs := u.Attrs[:0]
	for _, a := range t.attrs {
		v, err := d.text(a.value)
		if err != nil {
			v = keepable(a.value)
		}
		attrs = append(attrs, Attr{Name: d.intern.bytes(a.name), Value: d.intern.bytes(v)})
	}
	*u = Unknown{Element: d.intern.bytes(t.name), Attrs: attrs}
	if t.kind == tagStart {
		d.skip = 1
	}
	d.last = t.start
	d.extra = d.extra[:0]
	return u
}

// text converts an attribute value to UTF-8 and resolves its references.
func (d *XMLDecoder) text(v []byte) ([]byte, error) {
	if d.tc != nil {
		conv, err := d.tc.convert(v)
		if err != nil {
			return nil, err
		}
		v = conv
	}
	if bytes.IndexByte(v, 0) >= 0 {
		return nil, errors.New("a NUL byte, which XML does not allow")
	}
	return unescape(v, &d.scratch)
}

// keepable is an attribute value that failed to convert, kept as it came
// but for NUL bytes, which no encoder could write back.
func keepable(v []byte) []byte {
	return bytes.ReplaceAll(v, []byte{0}, []byte("\uFFFD"))
}

// fill sets the event's fields from the tag's attributes; absent ones take
// their defaults. It returns the first bad value, after filling the rest.
func (d *XMLDecoder) fill(sp *kindSpec, t *xmlTag) error {
	p := d.bases[sp.kind]
	resetFields(sp, p)
	d.extra = d.extra[:0]
	d.declaredDepth = -1
	var first error
	var given uint64 // fields set: a kind has fewer than 64
	for _, a := range t.attrs {
		i, ok := sp.byName[string(a.name)]
		if !ok {
			v, err := d.text(a.value)
			if err != nil {
				v = keepable(a.value)
			}
			d.extra = append(d.extra, Attr{Name: d.intern.bytes(a.name), Value: d.intern.bytes(v)})
			continue
		}
		if given&(1<<i) != 0 {
			// XML allows an attribute once: which value would be meant?
			if first == nil {
				first = d.sc.errorAt(t.start+int64(a.at), ErrSyntax, sp.name, string(a.name), fmt.Sprintf("attribute %s given twice", quoteName(a.name)))
			}
			continue
		}
		given |= 1 << i
		f := &sp.fields[i]
		if err := d.setField(sp, f, p, a, t.start); err != nil && first == nil {
			first = err
		}
	}
	return first
}

// setField parses one attribute value into its field.
func (d *XMLDecoder) setField(sp *kindSpec, f *field, p unsafe.Pointer, a rawAttr, start int64) error {
	v, err := d.text(a.value)
	if err != nil {
		return d.valueErr(sp.name, string(a.name), start+int64(a.at), err.Error())
	}
	bad := func(want string) error {
		return d.valueErr(sp.name, string(a.name), start+int64(a.at), fmt.Sprintf("%s is not %s", quoteDetail(string(v)), want))
	}
	switch f.typ {
	case fieldLong:
		n, ok := parseInt(v, math.MinInt64, math.MaxInt64)
		if !ok {
			return bad("a 64-bit integer")
		}
		*fieldAt[int64](p, f.off) = n
	case fieldInt:
		n, ok := parseInt(v, math.MinInt32, math.MaxInt32)
		if !ok {
			return bad("a 32-bit integer")
		}
		*fieldAt[int32](p, f.off) = int32(n)
	case fieldByte:
		n, ok := parseInt(v, math.MinInt8, math.MaxUint8)
		if !ok {
			return bad("a byte")
		}
		*fieldAt[byte](p, f.off) = byte(n)
	case fieldDouble:
		x, err := strconv.ParseFloat(string(v), 64)
		if err != nil {
			return bad("a number")
		}
		*fieldAt[float64](p, f.off) = x
	case fieldTicks:
		ticks, ok := d.clock.parseSeconds(v)
		if !ok {
			return bad("decimal seconds")
		}
		*fieldAt[Ticks](p, f.off) = ticks
	case fieldString:
		if sp.kind == KindCustom {
			*fieldAt[string](p, f.off) = string(v) // a payload, not a name: not worth remembering
		} else {
			*fieldAt[string](p, f.off) = d.intern.bytes(v)
		}
	case fieldStack:
		n, ok := parseInt(v, 0, math.MaxInt32)
		if !ok {
			return bad("a stack depth")
		}
		d.declaredDepth = int(n)
	}
	return nil
}

// frame appends one <frame method=".." line=".."/> to the open event's stack.
func (d *XMLDecoder) frame(sp *kindSpec, t *xmlTag) error {
	st := fieldAt[Stack](d.bases[sp.kind], sp.fields[sp.stack].off)
	method, line := "", int64(0)
	for _, a := range t.attrs {
		switch string(a.name) {
		case frameMethod:
			v, err := d.text(a.value)
			if err != nil {
				return d.valueErr(frameElement, frameMethod, t.start+int64(a.at), err.Error())
			}
			method = javaname.SpecialFrame(d.intern.bytes(v))
		case frameLine:
			n, ok := parseInt(a.value, math.MinInt64, math.MaxInt64)
			if !ok {
				return d.valueErr(frameElement, frameLine, t.start+int64(a.at), fmt.Sprintf("%s is not an integer", quoteDetail(string(a.value))))
			}
			line = n
		}
	}
	if len(st.Methods) >= d.sc.maxSize/minFrameSize {
		return d.valueErr(frameElement, "", t.start, "too many frames")
	}
	st.Methods = append(st.Methods, method)
	st.Lines = append(st.Lines, line)
	return nil
}

func (d *XMLDecoder) valueErr(element, field string, off int64, detail string) error {
	return d.sc.errorAt(off, ErrValue, element, field, detail)
}

// resetFields sets every field of the struct at p to its default.
func resetFields(sp *kindSpec, p unsafe.Pointer) { resetFieldsFrom(sp, p, 0) }

// resetFieldsFrom sets the fields from the first'th on to their defaults.
func resetFieldsFrom(sp *kindSpec, p unsafe.Pointer, first int) {
	for i := first; i < len(sp.fields); i++ {
		f := &sp.fields[i]
		switch f.typ {
		case fieldLong, fieldTicks, fieldDouble:
			*fieldAt[uint64](p, f.off) = 0
		case fieldInt:
			*fieldAt[uint32](p, f.off) = 0
		case fieldByte:
			*fieldAt[byte](p, f.off) = 0
		case fieldString:
			*fieldAt[string](p, f.off) = ""
		case fieldStack:
			st := fieldAt[Stack](p, f.off)
			st.Methods, st.Lines = st.Methods[:0], st.Lines[:0]
		}
	}
}

// parseInt parses a decimal integer within [lo, hi] without allocating.
func parseInt(b []byte, lo, hi int64) (int64, bool) {
	if len(b) == 0 {
		return 0, false
	}
	neg := false
	switch b[0] {
	case '-':
		neg, b = true, b[1:]
	case '+':
		b = b[1:]
	}
	if len(b) == 0 || len(b) > 19 {
		return 0, false
	}
	var u uint64
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
		u = u*10 + uint64(c-'0')
	}
	if neg {
		if u > uint64(math.MaxInt64)+1 {
			return 0, false
		}
		n := -int64(u-1) - 1
		return n, n >= lo
	}
	if u > math.MaxInt64 {
		return 0, false
	}
	return int64(u), int64(u) <= hi
}

func quoteName(b []byte) string {
	if len(b) > 40 {
		b = b[:40]
	}
	return string(b)
}
