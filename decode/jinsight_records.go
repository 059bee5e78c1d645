package decode

import (
	"encoding/hex"
)

// The records of a Jinsight trace, named and laid out as the seed document
// names them (ids are the trace's own numbers: classes and threads from 1
// or 2, methods 0..n-1 within their class, objects as the agent numbered
// them; 0xffffffff is no object, a static call).

// JinsightHeader is the trace's header.
type JinsightHeader struct {
	Version             uint32
	Platform            uint32
	PlatformName        string // derived from Platform
	BigEndian           bool   // derived from Platform: the byte order after the header
	NumberOfEvents      uint32 // 0 when the writer did not count them
	MaxThreads          uint32
	MaxClasses          uint32
	TicksPerMicrosecond uint32
	StartTicks          uint64
	VMStartTime         uint32 // seconds since the epoch
	ConnectionStartTime uint32 // seconds since the epoch
	Overhead            uint32 // ticks
}

// JinsightClassDefine is CLASS_DEFINE: a class id, described by the
// EXTENDED_EXTENSIVE_CLASS_LOAD that follows.
type JinsightClassDefine struct {
	Ticks         uint64
	ClassID       uint16
	ClassObjectID uint32
}

// JinsightMember is a method or field of a class load.
type JinsightMember struct {
	Name        string
	Signature   string
	AccessFlags uint16
}

// JinsightClassLoad is EXTENDED_EXTENSIVE_CLASS_LOAD: a class's name, its
// methods (numbered 0..n-1 in this order), fields, superclass and
// interfaces.
type JinsightClassLoad struct {
	Ticks        uint64
	ClassID      uint16
	Size         uint16
	ClassName    string
	Methods      []JinsightMember
	Fields       []JinsightMember
	SuperClassID uint16 // 0: none
	Interfaces   []uint16
}

// JinsightMethodEnter is WIDE_METHOD_ENTER.
type JinsightMethodEnter struct {
	Ticks      uint64
	ThreadID   uint32
	ClassID    uint16
	MethodID   uint16
	ObjectID   uint32 // 0xffffffff: a static call
	LineNumber uint16
}

// JinsightMethodLeave is METHOD_LEAVE: it names no method; it leaves the
// latest method entered on its thread.
type JinsightMethodLeave struct {
	Ticks    uint64
	Overhead uint64
	ThreadID uint32
}

// JinsightObjectDefined is OBJECT_DEFINED: an object first seen (as a
// receiver, for the open agent), not necessarily allocated.
type JinsightObjectDefined struct {
	Ticks    uint64
	ObjectID uint32
	ClassID  uint16
}

// JinsightObjectCreated is OBJECT_CREATED: an object allocated.
type JinsightObjectCreated struct {
	Ticks    uint64
	ObjectID uint32
	ClassID  int16
	ThreadID uint32
}

// JinsightObjectReclaimed is OBJECT_RECLAIMED.
type JinsightObjectReclaimed struct {
	Ticks    uint64
	ObjectID uint32
}

// JinsightArrayDefined is ARRAY_DEFINED: an array of a primitive type
// (1 int, 2 long, 3 float, 4 double, 5 boolean, 6 byte, 7 char, 8 short).
type JinsightArrayDefined struct {
	Ticks     uint64
	ArrayType uint8
	ObjectID  uint32
	Size      uint32
}

// JinsightArrayClassDefined is ARRAY_CLASS_DEFINED: an array of objects.
type JinsightArrayClassDefined struct {
	Ticks    uint64
	ObjectID uint32
	ClassID  uint16
	Size     uint32
}

// JinsightArrayCreated is ARRAY_CREATED: an array allocated.
type JinsightArrayCreated struct {
	Ticks    uint64
	IsArray  uint8
	ObjectID uint32
	Size     uint32
	ThreadID uint32
}

// JinsightThreadDefine is THREAD_DEFINE.
type JinsightThreadDefine struct {
	Ticks      uint64
	ThreadID   uint32
	ObjectID   uint32
	ClassID    uint16
	ThreadName string
}

// JinsightThreadEvent is THREAD_START or THREAD_EXIT.
type JinsightThreadEvent struct {
	id       byte
	Ticks    uint64
	ThreadID uint32
}

// JinsightThreadNameChange is THREAD_NAME_CHANGE (0x0d).
type JinsightThreadNameChange struct {
	Ticks      uint64
	ThreadID   uint32
	ThreadName string
}

// JinsightMoment is GC_START, GC_STOP, BEGIN_BURST or END_BURST.
type JinsightMoment struct {
	id    byte
	Ticks uint64
}

// JinsightUserEvent is USER_EVENT: text to overlay on the trace.
type JinsightUserEvent struct {
	Ticks   uint64
	Message string
}

// JinsightClassDefine2 is CLASS_DEFINE2 (0x6f): 18 bytes whose fields no
// open document describes, kept as they are.
type JinsightClassDefine2 struct {
	Data [18]byte
}

// JinsightEnd is TRACE_END (0x64) or END_OF_FILE (0xff): the end of the events.
type JinsightEnd struct {
	id byte
}

func (*JinsightHeader) Type() string            { return "HEADER" }
func (*JinsightClassDefine) Type() string       { return jinsightEvents[jiClassDefine].name }
func (*JinsightClassLoad) Type() string         { return jinsightEvents[jiExtensiveClassLoad].name }
func (*JinsightMethodEnter) Type() string       { return jinsightEvents[jiWideMethodEnter].name }
func (*JinsightMethodLeave) Type() string       { return jinsightEvents[jiMethodLeave].name }
func (*JinsightObjectDefined) Type() string     { return jinsightEvents[jiObjectDefined].name }
func (*JinsightObjectCreated) Type() string     { return jinsightEvents[jiObjectCreated].name }
func (*JinsightObjectReclaimed) Type() string   { return jinsightEvents[jiObjectReclaimed].name }
func (*JinsightArrayDefined) Type() string      { return jinsightEvents[jiArrayDefined].name }
func (*JinsightArrayClassDefined) Type() string { return jinsightEvents[jiArrayClassDefined].name }
func (*JinsightArrayCreated) Type() string      { return jinsightEvents[jiArrayCreated].name }
func (*JinsightThreadDefine) Type() string      { return jinsightEvents[jiThreadDefine].name }
func (r *JinsightThreadEvent) Type() string     { return jinsightEvents[r.id].name }
func (*JinsightThreadNameChange) Type() string  { return jinsightEvents[jiThreadNameChange].name }
func (r *JinsightMoment) Type() string          { return jinsightEvents[r.id].name }
func (*JinsightUserEvent) Type() string         { return jinsightEvents[jiUserEvent].name }
func (*JinsightClassDefine2) Type() string      { return jinsightEvents[jiClassDefine2].name }
func (r *JinsightEnd) Type() string             { return jinsightEvents[r.id].name }

// IsStart says a thread event is THREAD_START rather than THREAD_EXIT.
func (r *JinsightThreadEvent) IsStart() bool { return r.id == jiThreadStart }

func (r *JinsightHeader) AppendJSON(dst []byte) []byte {
	o := newJSONObject(dst, r.Type())
	o.uint("version", uint64(r.Version))
	o.uint("platform", uint64(r.Platform))
	o.str("platformName", r.PlatformName)
	o.bool("bigEndian", r.BigEndian)
	o.uint("numberOfEvents", uint64(r.NumberOfEvents))
	o.uint("maxThreads", uint64(r.MaxThreads))
	o.uint("maxClasses", uint64(r.MaxClasses))
	o.uint("ticksPerMicrosecond", uint64(r.TicksPerMicrosecond))
	o.uint("startTicks", r.StartTicks)
	o.uint("vmStartTime", uint64(r.VMStartTime))
	o.uint("connectionStartTime", uint64(r.ConnectionStartTime))
	o.uint("overhead", uint64(r.Overhead))
	return o.end()
}

func (r *JinsightClassDefine) AppendJSON(dst []byte) []byte {
	o := newJSONObject(dst, r.Type())
	o.uint("ticks", r.Ticks)
	o.uint("classID", uint64(r.ClassID))
	o.uint("classObjectID", uint64(r.ClassObjectID))
	return o.end()
}

func (r *JinsightClassLoad) AppendJSON(dst []byte) []byte {
	o := newJSONObject(dst, r.Type())
	o.uint("ticks", r.Ticks)
	o.uint("classID", uint64(r.ClassID))
	o.uint("size", uint64(r.Size))
	o.str("className", r.ClassName)
	o.raw("methods", appendMembers(nil, r.Methods))
	o.raw("fields", appendMembers(nil, r.Fields))
	o.uint("superClassID", uint64(r.SuperClassID))
	ids := make([]int64, len(r.Interfaces))
	for i, v := range r.Interfaces {
		ids[i] = int64(v)
	}
	o.ints("interfaces", ids)
	return o.end()
}

func appendMembers(dst []byte, ms []JinsightMember) []byte {
	dst = append(dst, '[')
	for i, m := range ms {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = append(dst, `{"name":`...)
		dst = appendJSONString(dst, m.Name)
		dst = appendJSONKey(dst, "signature")
		dst = appendJSONString(dst, m.Signature)
		dst = appendJSONKey(dst, "accessFlags")
		dst = appendUint(dst, uint64(m.AccessFlags))
		dst = append(dst, '}')
	}
	return append(dst, ']')
}

func (r *JinsightMethodEnter) AppendJSON(dst []byte) []byte {
	o := newJSONObject(dst, r.Type())
	o.uint("ticks", r.Ticks)
	o.uint("threadID", uint64(r.ThreadID))
	o.uint("classID", uint64(r.ClassID))
	o.uint("methodID", uint64(r.MethodID))
	o.uint("objectID", uint64(r.ObjectID))
	o.uint("lineNumber", uint64(r.LineNumber))
	return o.end()
}

func (r *JinsightMethodLeave) AppendJSON(dst []byte) []byte {
	o := newJSONObject(dst, r.Type())
	o.uint("ticks", r.Ticks)
	o.uint("overhead", r.Overhead)
	o.uint("threadID", uint64(r.ThreadID))
	return o.end()
}

func (r *JinsightObjectDefined) AppendJSON(dst []byte) []byte {
	o := newJSONObject(dst, r.Type())
	o.uint("ticks", r.Ticks)
	o.uint("objectID", uint64(r.ObjectID))
	o.uint("classID", uint64(r.ClassID))
	return o.end()
}

func (r *JinsightObjectCreated) AppendJSON(dst []byte) []byte {
	o := newJSONObject(dst, r.Type())
	o.uint("ticks", r.Ticks)
	o.uint("objectID", uint64(r.ObjectID))
	o.int("classID", int64(r.ClassID))
	o.uint("threadID", uint64(r.ThreadID))
	return o.end()
}

func (r *JinsightObjectReclaimed) AppendJSON(dst []byte) []byte {
	o := newJSONObject(dst, r.Type())
	o.uint("ticks", r.Ticks)
	o.uint("objectID", uint64(r.ObjectID))
	return o.end()
}

func (r *JinsightArrayDefined) AppendJSON(dst []byte) []byte {
	o := newJSONObject(dst, r.Type())
	o.uint("ticks", r.Ticks)
	o.uint("arrayType", uint64(r.ArrayType))
	o.uint("objectID", uint64(r.ObjectID))
	o.uint("size", uint64(r.Size))
	return o.end()
}

func (r *JinsightArrayClassDefined) AppendJSON(dst []byte) []byte {
	o := newJSONObject(dst, r.Type())
	o.uint("ticks", r.Ticks)
	o.uint("objectID", uint64(r.ObjectID))
	o.uint("classID", uint64(r.ClassID))
	o.uint("size", uint64(r.Size))
	return o.end()
}

func (r *JinsightArrayCreated) AppendJSON(dst []byte) []byte {
	o := newJSONObject(dst, r.Type())
	o.uint("ticks", r.Ticks)
	o.uint("isArray", uint64(r.IsArray))
	o.uint("objectID", uint64(r.ObjectID))
	o.uint("size", uint64(r.Size))
	o.uint("threadID", uint64(r.ThreadID))
	return o.end()
}

func (r *JinsightThreadDefine) AppendJSON(dst []byte) []byte {
	o := newJSONObject(dst, r.Type())
	o.uint("ticks", r.Ticks)
	o.uint("threadID", uint64(r.ThreadID))
	o.uint("objectID", uint64(r.ObjectID))
	o.uint("classID", uint64(r.ClassID))
	o.str("threadName", r.ThreadName)
	return o.end()
}

func (r *JinsightThreadEvent) AppendJSON(dst []byte) []byte {
	o := newJSONObject(dst, r.Type())
	o.uint("ticks", r.Ticks)
	o.uint("threadID", uint64(r.ThreadID))
	return o.end()
}

func (r *JinsightThreadNameChange) AppendJSON(dst []byte) []byte {
	o := newJSONObject(dst, r.Type())
	o.uint("ticks", r.Ticks)
	o.uint("threadID", uint64(r.ThreadID))
	o.str("threadName", r.ThreadName)
	return o.end()
}

func (r *JinsightMoment) AppendJSON(dst []byte) []byte {
	o := newJSONObject(dst, r.Type())
	o.uint("ticks", r.Ticks)
	return o.end()
}

func (r *JinsightUserEvent) AppendJSON(dst []byte) []byte {
	o := newJSONObject(dst, r.Type())
	o.uint("ticks", r.Ticks)
	o.str("message", r.Message)
	return o.end()
}

func (r *JinsightClassDefine2) AppendJSON(dst []byte) []byte {
	o := newJSONObject(dst, r.Type())
	o.str("data", hex.EncodeToString(r.Data[:]))
	return o.end()
}

func (r *JinsightEnd) AppendJSON(dst []byte) []byte {
	o := newJSONObject(dst, r.Type())
	return o.end()
}
