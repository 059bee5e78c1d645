package decode

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"slices"
)

// A JinsightLive binary trace (.trc): a 45-byte header, then events, each
// an id byte and a layout of its own, with no lengths. The layouts are the
// seed document's, corrected as the only open writer and reader of the
// format agree (the project's jinsight-notes): the header's maxThreads
// comes before maxClasses; everything after the header is in the byte
// order of the header's platform; 0x64 (TRACE_END) or 0xff (END_OF_FILE)
// ends the events, followed by the writer's trailer of 8 bytes at most,
// which is skipped; more data after it is refused; 0x0d renames a thread;
// 0x6f (CLASS_DEFINE2) holds 18 bytes nobody has described.

// JinsightHeaderSize is the fixed size of a Jinsight trace's header.
const JinsightHeaderSize = 45

// jinsightTrailerSize is the most bytes a trace may hold after its end
// event: the writer follows TRACE_END with two u32 (5705 and 0xADDE0000 in
// the fixture), whose meaning nobody has described, so they are not
// checked. Anything beyond is another file appended to the trace (two
// recordings concatenated, a trace followed by a binary one), which this
// reader would otherwise drop without a word.
const jinsightTrailerSize = 8

// jinsightMagic is the header's first byte, 'b' for binary.
const jinsightMagic = 'b'

// jinsightVersion is the only version of the format this reader knows.
const jinsightVersion = 8

// The event ids.
const (
	jiClassDefine        = 0x04
	jiArrayClassDefined  = 0x05
	jiThreadDefine       = 0x0a
	jiThreadStart        = 0x0b
	jiThreadExit         = 0x0c
	jiThreadNameChange   = 0x0d
	jiObjectDefined      = 0x14
	jiObjectCreated      = 0x15
	jiArrayDefined       = 0x16
	jiArrayCreated       = 0x17
	jiObjectReclaimed    = 0x18
	jiMethodLeave        = 0x1f
	jiGCStart            = 0x46
	jiGCStop             = 0x47
	jiUserEvent          = 0x4e
	jiWideMethodEnter    = 0x5b
	jiTraceEnd           = 0x64
	jiBeginBurst         = 0x65
	jiEndBurst           = 0x66
	jiExtensiveClassLoad = 0x6e
	jiClassDefine2       = 0x6f
	jiEndOfFile          = 0xff
)

// jinsightEvent is what the reader knows of an event id: its name, and the
// size of its body (after the id byte), or of its fixed part when it holds
// strings (variable).
type jinsightEvent struct {
	name     string
	size     int
	variable bool
}

// jinsightEvents describes every event id the reader knows, indexed by id
// (an array: it is looked up for every event); an unknown id has no name.
var jinsightEvents = [256]jinsightEvent{
	jiClassDefine:        {name: "CLASS_DEFINE", size: 14},
	jiArrayClassDefined:  {name: "ARRAY_CLASS_DEFINED", size: 18},
	jiThreadDefine:       {name: "THREAD_DEFINE", size: 18, variable: true},
	jiThreadStart:        {name: "THREAD_START", size: 12},
	jiThreadExit:         {name: "THREAD_EXIT", size: 12},
	jiThreadNameChange:   {name: "THREAD_NAME_CHANGE", size: 12, variable: true},
	jiObjectDefined:      {name: "OBJECT_DEFINED", size: 14},
	jiObjectCreated:      {name: "OBJECT_CREATED", size: 18},
	jiArrayDefined:       {name: "ARRAY_DEFINED", size: 17},
	jiArrayCreated:       {name: "ARRAY_CREATED", size: 21},
	jiObjectReclaimed:    {name: "OBJECT_RECLAIMED", size: 12},
	jiMethodLeave:        {name: "METHOD_LEAVE", size: 20},
	jiGCStart:            {name: "GC_START", size: 8},
	jiGCStop:             {name: "GC_STOP", size: 8},
	jiUserEvent:          {name: "USER_EVENT", size: 8, variable: true},
	jiWideMethodEnter:    {name: "WIDE_METHOD_ENTER", size: 22},
	jiTraceEnd:           {name: "TRACE_END"},
	jiBeginBurst:         {name: "BEGIN_BURST", size: 8},
	jiEndBurst:           {name: "END_BURST", size: 8},
	jiExtensiveClassLoad: {name: "EXTENDED_EXTENSIVE_CLASS_LOAD", size: 12, variable: true},
	jiClassDefine2:       {name: "CLASS_DEFINE2", size: 18},
	jiEndOfFile:          {name: "END_OF_FILE"},
}

// Jinsight platforms, which decide the byte order after the header.
var jinsightPlatforms = map[uint32]struct {
	name      string
	bigEndian bool
}{
	11: {"Windows x86", false},
	22: {"AIX PowerPC", true},
	33: {"z/OS", true},
	44: {"Linux x86", false},
	55: {"Linux on System z", true},
	66: {"Solaris SPARC", true},
}

// ErrUnknownEvent is an event id the reader does not know. Events carry no
// length, so nothing after it can be read.
var ErrUnknownEvent = errors.New("unknown event id")

// ErrBound is input beyond one of the decoder's bounds on memory.
var ErrBound = errors.New("beyond this reader's bounds")

// JinsightReader reads the records of a Jinsight trace incrementally: a
// read may end anywhere and the reader resumes where it stopped.
type JinsightReader struct {
	in     chunkReader
	opts   Options
	header JinsightHeader
	order  binary.ByteOrder
	intern *interner
	last   int64 // offset of the last record returned
	ended  bool  // TRACE_END or END_OF_FILE was read
	endAt  int64 // offset of that end event
	endID  byte  // which of the two it was
	// trailer counts the bytes after the end event skipped so far, up to
	// jinsightTrailerSize.
	trailer int
	// trailing says what followed the trailer, not read (Trailing).
	trailing string
	fatal    error

	// One record of each type, reused.
	classDefine  JinsightClassDefine
	classLoad    JinsightClassLoad
	enter        JinsightMethodEnter
	leave        JinsightMethodLeave
	objDefined   JinsightObjectDefined
	objCreated   JinsightObjectCreated
	objReclaimed JinsightObjectReclaimed
	arrDefined   JinsightArrayDefined
	arrClass     JinsightArrayClassDefined
	arrCreated   JinsightArrayCreated
	threadDefine JinsightThreadDefine
	threadEvent  JinsightThreadEvent
	rename       JinsightThreadNameChange
	moment       JinsightMoment
	user         JinsightUserEvent
	define2      JinsightClassDefine2
	end          JinsightEnd
}

// NewJinsightReader returns a reader of the Jinsight trace in r, which must
// start with the header.
func NewJinsightReader(r io.Reader, opts Options) *JinsightReader {
	return &JinsightReader{in: newChunkReader(r), opts: opts, intern: newInterner()}
}

// Header is the trace's header; valid once the first record was returned.
func (d *JinsightReader) Header() JinsightHeader { return d.header }

// Offset is the offset at which the last record began.
func (d *JinsightReader) Offset() int64 { return d.last }

// InputOffset is the number of bytes consumed so far.
func (d *JinsightReader) InputOffset() int64 { return d.in.offset() }

// Ended says the trace's end event was read.
func (d *JinsightReader) Ended() bool { return d.ended }

// NextRecord returns the next record: the header first, then the events
// in file order. It returns io.EOF after TRACE_END (or END_OF_FILE), and at
// the end of the input between two events; an *Error for bad input, always
// fatal, since the format has no lengths to resynchronize by. Other errors
// come from the reader, and a later call resumes where it stopped.
func (d *JinsightReader) NextRecord() (Record, error) {
	if d.fatal != nil {
		return nil, d.fatal
	}
	if d.order == nil {
		return d.readHeader()
	}
	if d.ended {
		return nil, d.afterEnd()
	}
	start := d.in.offset()
	if err := d.in.fill(1); err != nil {
		if err == io.EOF && d.in.buffered() == 0 {
			return nil, io.EOF
		}
		return nil, d.readErr(err, start, 0)
	}
	id := d.in.peek(1)[0]
	ev := &jinsightEvents[id]
	if ev.name == "" {
		return nil, d.fail(&Error{Err: ErrUnknownEvent, Offset: start, MessageID: uint16(id),
			Detail: fmt.Sprintf("event id 0x%02x; events carry no length, so nothing after it can be read", id)})
	}
	size := 1 + ev.size
	if ev.variable {
		var err error
		if size, err = d.measure(id, start); err != nil {
			return nil, err
		}
	}
	if err := d.in.fill(size); err != nil {
		return nil, d.readErr(err, start, id)
	}
	b := d.in.peek(size)[1:]
	rec := d.parse(id, b)
	d.in.consume(size)
	d.last = start
	if id == jiTraceEnd || id == jiEndOfFile {
		d.ended, d.endAt, d.endID = true, start, id
	}
	return rec, nil
}

// afterEnd reads what follows the end event, up to the writer's
// trailer, and ends the records (io.EOF). As the format's readers do, it
// reads nothing beyond: what follows is not read, and said (Trailing),
// unless it is zeros (a file padded to a block). Resumable: a read error
// is returned as it came, and the trailer bytes already skipped stay
// skipped.
func (d *JinsightReader) afterEnd() error {
	if d.opts.Growing || d.trailing != "" {
		// A file followed as it is written: its end event ends it, and
		// the trailer its writer may not have written yet is not waited
		// for (the follower would wait for ever).
		return io.EOF
	}
	for d.trailer < jinsightTrailerSize {
		if d.in.buffered() == 0 {
			if err := d.in.fill(1); err != nil {
				return err // io.EOF: the input ends within the trailer
			}
		}
		n := min(d.in.buffered(), jinsightTrailerSize-d.trailer)
		d.in.consume(n)
		d.trailer += n
	}
	// The first bytes beyond, to show what they are: up to 8, fewer if
	// the input ends sooner; a read error to retry leaves nothing consumed.
	if err := d.in.fill(8); err != nil && (err != io.EOF || d.in.buffered() == 0) {
		return err
	}
	shown := d.in.unread()[:min(d.in.buffered(), 8)]
	if !slices.ContainsFunc(shown, func(b byte) bool { return b != 0 }) {
		return io.EOF // zeros: padding
	}
	more := "more bytes follow"
	if d.opts.InputSize > 0 {
		more = fmt.Sprintf("%d more bytes follow", d.opts.InputSize-d.in.offset())
	}
	d.trailing = fmt.Sprintf("%s at offset %d and the writer's %d-byte trailer ended the trace, but %s from offset %d, starting with %s: another file appended to it? They are not read",
		jinsightEvents[d.endID].name, d.endAt, jinsightTrailerSize, more, d.in.offset(), quoteDetail(string(shown)))
	return io.EOF
}

// Trailing says what followed the trace's end and was not read ("" when
// nothing did, or zeros).
func (d *JinsightReader) Trailing() string { return d.trailing }

// readHeader reads and checks the 45-byte header, which is little-endian
// whatever the platform.
func (d *JinsightReader) readHeader() (Record, error) {
	if err := d.in.fill(JinsightHeaderSize); err != nil {
		if err == io.EOF {
			if d.in.buffered() == 0 {
				return nil, io.EOF
			}
			return nil, d.fail(&Error{Err: ErrTruncated, Offset: 0, Element: "header",
				Detail: fmt.Sprintf("%d of %d bytes", d.in.buffered(), JinsightHeaderSize)})
		}
		return nil, err
	}
	h := d.in.peek(JinsightHeaderSize)
	le := binary.LittleEndian
	if h[0] != jinsightMagic {
		return nil, d.fail(&Error{Err: ErrBadMagic, Offset: 0, Element: "header", Field: "binary",
			Detail: fmt.Sprintf("first byte 0x%02x, want 'b'", h[0])})
	}
	hd := JinsightHeader{
		Version: le.Uint32(h[1:]), Platform: le.Uint32(h[5:]), NumberOfEvents: le.Uint32(h[9:]),
		MaxThreads: le.Uint32(h[13:]), MaxClasses: le.Uint32(h[17:]), TicksPerMicrosecond: le.Uint32(h[21:]),
		StartTicks: le.Uint64(h[25:]), VMStartTime: le.Uint32(h[33:]), ConnectionStartTime: le.Uint32(h[37:]),
		Overhead: le.Uint32(h[41:]),
	}
	if hd.Version != jinsightVersion {
		return nil, d.fail(&Error{Err: ErrVersion, Offset: 1, Element: "header", Field: "version",
			Detail: fmt.Sprintf("version %d, this reader knows version %d", hd.Version, jinsightVersion)})
	}
	p, ok := jinsightPlatforms[hd.Platform]
	if !ok {
		return nil, d.fail(&Error{Err: ErrValue, Offset: 5, Element: "header", Field: "platform",
			Detail: fmt.Sprintf("platform %d, which decides the byte order, is none of 11, 22, 33, 44, 55, 66", hd.Platform)})
	}
	if hd.TicksPerMicrosecond == 0 {
		return nil, d.fail(&Error{Err: ErrValue, Offset: 21, Element: "header", Field: "ticksPerMicrosecond",
			Detail: "0: no duration can be told"})
	}
	hd.PlatformName, hd.BigEndian = p.name, p.bigEndian
	d.order = binary.ByteOrder(binary.LittleEndian)
	if p.bigEndian {
		d.order = binary.BigEndian
	}
	d.in.consume(JinsightHeaderSize)
	d.header = hd
	return &d.header, nil
}

// measure finds the size of an event holding strings, reading as much of
// it as its lengths need. When a length or count is damaged, the error
// names the field that declared it, what it declares and what is left,
// since the event's own size is nowhere in the format.
func (d *JinsightReader) measure(id byte, start int64) (int, error) {
	pos := 1 + jinsightEvents[id].size // the fixed part
	// The member of a class being measured, to name a field of it:
	// list is "methods" or "fields" ("" outside them), member its index,
	// count what the list declares. Names are built only for an error.
	list, member, count := "", 0, 0
	// need makes n more bytes, of field, available; declared says they
	// are what a length declares rather than a field's fixed size.
	need := func(field string, n int, declared bool) error {
		if pos+n <= d.in.buffered() && pos+n <= d.opts.maxSize() {
			return nil // the common case, with no name to build
		}
		// what: "it declares 5000 bytes at event offset 15", and which
		// member of how many when inside the methods or fields.
		what := fmt.Sprintf("it needs %d bytes at event offset %d", n, pos)
		if declared {
			what = fmt.Sprintf("it declares %d bytes at event offset %d", n, pos)
		}
		if list != "" {
			what += fmt.Sprintf(" (%s count is %d)", list, count)
			field = fmt.Sprintf("%s[%d].%s", list, member, field)
		}
		fail := func(kind error, detail string) error {
			return d.fail(&Error{Err: kind, Offset: start, MessageID: uint16(id), Element: jinsightEvents[id].name,
				Field: field, Detail: detail})
		}
		if pos+n > d.opts.maxSize() {
			if left := d.opts.InputSize - start - int64(pos); d.opts.InputSize > 0 && int64(n) > left {
				return fail(ErrPastEnd, fmt.Sprintf("%s but only %d are left in the file: the file is damaged or not what it seems", what, max(left, 0)))
			}
			return fail(ErrTooLarge, fmt.Sprintf("%s, which makes the event more than %d bytes (--max-message-size)", what, d.opts.maxSize()))
		}
		if err := d.in.fill(pos + n); err != nil {
			if err == io.EOF || err == io.ErrUnexpectedEOF {
				return fail(ErrTruncated, fmt.Sprintf("%s but only %d are left", what, max(d.in.buffered()-pos, 0)))
			}
			return err
		}
		return nil
	}
	u16 := func(field string) (int, error) {
		if err := need(field, 2, false); err != nil {
			return 0, err
		}
		v := int(d.order.Uint16(d.in.peek(pos + 2)[pos:]))
		pos += 2
		return v, nil
	}
	str := func(field string) error {
		n, err := u16(field) // its length: named as the string it measures
		if err == nil {
			err = need(field, n, true)
			pos += n
		}
		return err
	}
	switch id {
	case jiThreadDefine, jiThreadNameChange:
		if err := str("threadName"); err != nil {
			return 0, err
		}
		return pos, nil
	case jiUserEvent:
		if err := str("message"); err != nil {
			return 0, err
		}
		return pos, nil
	}
	// EXTENDED_EXTENSIVE_CLASS_LOAD. classID, size: in the fixed part;
	// then the name, the methods, the fields, the superclass and the
	// interfaces.
	if err := str("className"); err != nil {
		return 0, err
	}
	for _, name := range [...]string{"methods", "fields"} { // each: name, signature, access flags
		n, err := u16(name + " count")
		if err != nil {
			return 0, err
		}
		list, count = name, n
		for member = range n {
			if err := str("name"); err != nil {
				return 0, err
			}
			if err := str("signature"); err != nil {
				return 0, err
			}
			if err := need("accessFlags", 2, false); err != nil {
				return 0, err
			}
			pos += 2
		}
		list = ""
	}
	if err := need("superClassID", 2, false); err != nil {
		return 0, err
	}
	pos += 2
	n, err := u16("interfaces count")
	if err != nil {
		return 0, err
	}
	if err := need("interfaces", 2*n, true); err != nil {
		return 0, err
	}
	return pos + 2*n, nil
}

// readErr reports a failed read inside an event: input that ends there is
// truncated; other reader errors pass through, so that a caller may retry.
func (d *JinsightReader) readErr(err error, start int64, id byte) error {
	if err == io.EOF || err == io.ErrUnexpectedEOF {
		return d.fail(&Error{Err: ErrTruncated, Offset: start, MessageID: uint16(id), Element: jinsightEvents[id].name,
			Detail: fmt.Sprintf("%d bytes left", d.in.buffered())})
	}
	return err
}

func (d *JinsightReader) fail(e *Error) error {
	e.Fatal = true
	d.fatal = e
	return e
}

// cursor reads fields in the trace's byte order.
type cursor struct {
	b     []byte
	order binary.ByteOrder
	in    *interner
}

func (c *cursor) u8() uint8 {
	v := c.b[0]
	c.b = c.b[1:]
	return v
}

func (c *cursor) u16() uint16 {
	v := c.order.Uint16(c.b)
	c.b = c.b[2:]
	return v
}

func (c *cursor) u32() uint32 {
	v := c.order.Uint32(c.b)
	c.b = c.b[4:]
	return v
}

func (c *cursor) u64() uint64 {
	v := c.order.Uint64(c.b)
	c.b = c.b[8:]
	return v
}

func (c *cursor) str() string {
	n := int(c.u16())
	s := c.in.bytes(fromModifiedUTF8(c.b[:n]))
	c.b = c.b[n:]
	return s
}

// parse fills the record of an event from its body, which measure or the
// fixed size made sure is complete.
func (d *JinsightReader) parse(id byte, b []byte) Record {
	c := cursor{b: b, order: d.order, in: d.intern}
	switch id {
	case jiClassDefine:
		d.classDefine = JinsightClassDefine{Ticks: c.u64(), ClassID: c.u16(), ClassObjectID: c.u32()}
		return &d.classDefine
	case jiExtensiveClassLoad:
		r := &d.classLoad
		r.Ticks, r.ClassID, r.Size, r.ClassName = c.u64(), c.u16(), c.u16(), c.str()
		r.Methods = readMembers(&c, r.Methods[:0])
		r.Fields = readMembers(&c, r.Fields[:0])
		r.SuperClassID = c.u16()
		r.Interfaces = r.Interfaces[:0]
		for n := c.u16(); n > 0; n-- {
			r.Interfaces = append(r.Interfaces, c.u16())
		}
		return r
	case jiWideMethodEnter:
		d.enter = JinsightMethodEnter{Ticks: c.u64(), ThreadID: c.u32(), ClassID: c.u16(), MethodID: c.u16(), ObjectID: c.u32(), LineNumber: c.u16()}
		return &d.enter
	case jiMethodLeave:
		d.leave = JinsightMethodLeave{Ticks: c.u64(), Overhead: c.u64(), ThreadID: c.u32()}
		return &d.leave
	case jiObjectDefined:
		d.objDefined = JinsightObjectDefined{Ticks: c.u64(), ObjectID: c.u32(), ClassID: c.u16()}
		return &d.objDefined
	case jiObjectCreated:
		d.objCreated = JinsightObjectCreated{Ticks: c.u64(), ObjectID: c.u32(), ClassID: int16(c.u16()), ThreadID: c.u32()}
		return &d.objCreated
	case jiObjectReclaimed:
		d.objReclaimed = JinsightObjectReclaimed{Ticks: c.u64(), ObjectID: c.u32()}
		return &d.objReclaimed
	case jiArrayDefined:
		d.arrDefined = JinsightArrayDefined{Ticks: c.u64(), ArrayType: c.u8(), ObjectID: c.u32(), Size: c.u32()}
		return &d.arrDefined
	case jiArrayClassDefined:
		d.arrClass = JinsightArrayClassDefined{Ticks: c.u64(), ObjectID: c.u32(), ClassID: c.u16(), Size: c.u32()}
		return &d.arrClass
	case jiArrayCreated:
		d.arrCreated = JinsightArrayCreated{Ticks: c.u64(), IsArray: c.u8(), ObjectID: c.u32(), Size: c.u32(), ThreadID: c.u32()}
		return &d.arrCreated
	case jiThreadDefine:
		d.threadDefine = JinsightThreadDefine{Ticks: c.u64(), ThreadID: c.u32(), ObjectID: c.u32(), ClassID: c.u16(), ThreadName: c.str()}
		return &d.threadDefine
	case jiThreadStart, jiThreadExit:
		d.threadEvent = JinsightThreadEvent{id: id, Ticks: c.u64(), ThreadID: c.u32()}
		return &d.threadEvent
	case jiThreadNameChange:
		d.rename = JinsightThreadNameChange{Ticks: c.u64(), ThreadID: c.u32(), ThreadName: c.str()}
		return &d.rename
	case jiGCStart, jiGCStop, jiBeginBurst, jiEndBurst:
		d.moment = JinsightMoment{id: id, Ticks: c.u64()}
		return &d.moment
	case jiUserEvent:
		d.user = JinsightUserEvent{Ticks: c.u64(), Message: c.str()}
		return &d.user
	case jiClassDefine2:
		copy(d.define2.Data[:], b)
		return &d.define2
	}
	d.end = JinsightEnd{id: id}
	return &d.end
}

func readMembers(c *cursor, out []JinsightMember) []JinsightMember {
	for n := c.u16(); n > 0; n-- {
		out = append(out, JinsightMember{Name: c.str(), Signature: c.str(), AccessFlags: c.u16()})
	}
	return out
}
