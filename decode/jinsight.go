package decode

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
)

// A JinsightLive binary trace (.trc): a 45-byte header, then events, each
// an id byte and a layout of its own, with no lengths. The layouts are the
// seed document's, corrected as the only open writer and reader of the
// format agree (the project's jinsight-notes): the header's maxThreads
// comes before maxClasses; everything after the header is in the byte
// order of the header's platform; 0x64 (TRACE_END) or 0xff (END_OF_FILE)
// ends the events and whatever follows is ignored; 0x0d renames a thread;
// 0x6f (CLASS_DEFINE2) holds 18 bytes nobody has described.

// JinsightHeaderSize is the fixed size of a Jinsight trace's header.
const JinsightHeaderSize = 45

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
	fatal  error

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
		return nil, io.EOF
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
		d.ended = true
	}
	return rec, nil
}

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
// it as its lengths need.
func (d *JinsightReader) measure(id byte, start int64) (int, error) {
	pos := 1 + jinsightEvents[id].size // the fixed part
	need := func(n int) error {
		if pos+n > d.opts.maxSize() {
			return d.fail(&Error{Err: ErrTooLarge, Offset: start, MessageID: uint16(id), Element: jinsightEvents[id].name,
				Detail: fmt.Sprintf("more than %d bytes (--max-message-size)", d.opts.maxSize())})
		}
		if err := d.in.fill(pos + n); err != nil {
			return d.readErr(err, start, id)
		}
		return nil
	}
	u16 := func() (int, error) {
		if err := need(2); err != nil {
			return 0, err
		}
		v := int(d.order.Uint16(d.in.peek(pos + 2)[pos:]))
		pos += 2
		return v, nil
	}
	str := func() error {
		n, err := u16()
		if err == nil {
			err = need(n)
			pos += n
		}
		return err
	}
	if id != jiExtensiveClassLoad {
		// THREAD_DEFINE, THREAD_NAME_CHANGE and USER_EVENT end with a string.
		if err := str(); err != nil {
			return 0, err
		}
		return pos, nil
	}
	// classID, size: in the fixed part; then the name, the methods, the
	// fields, the superclass and the interfaces.
	if err := str(); err != nil {
		return 0, err
	}
	for range 2 { // methods, then fields: name, signature, access flags
		n, err := u16()
		if err != nil {
			return 0, err
		}
		for range n {
			if err := str(); err != nil {
				return 0, err
			}
			if err := str(); err != nil {
				return 0, err
			}
			if err := need(2); err != nil {
				return 0, err
			}
			pos += 2
		}
	}
	if err := need(2); err != nil { // superclass
		return 0, err
	}
	pos += 2
	n, err := u16()
	if err != nil {
		return 0, err
	}
	if err := need(2 * n); err != nil {
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
