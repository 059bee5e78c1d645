package decode

import (
	"fmt"
	"reflect"
	"strings"
	"sync"
	"unsafe"
)

// fieldType is how one attribute is encoded on the wire.
type fieldType uint8

const (
	fieldByte   fieldType = iota + 1 // 1 byte
	fieldInt                         // 4 bytes, signed
	fieldLong                        // 8 bytes, signed
	fieldDouble                      // 8 bytes, IEEE 754
	fieldString                      // bytes up to a NUL, in the stream's charset
	fieldTicks                       // a long holding timer ticks; decimal seconds in XML
	fieldStack                       // stackDepth int, stackMethods string[], stackLines long[]
)

// wireSize is the smallest number of bytes the attribute takes in a binary message.
func (t fieldType) wireSize() int {
	switch t {
	case fieldByte, fieldString:
		return 1
	case fieldInt, fieldStack:
		return 4
	default:
		return 8
	}
}

// The wire names of the three attributes a Stack field stands for.
const (
	attrStackDepth   = "stackDepth"
	attrStackMethods = "stackMethods"
	attrStackLines   = "stackLines"
)

// field is one attribute of a kind: its wire name, encoding and where it
// lives in the kind's struct.
type field struct {
	name string
	typ  fieldType
	off  uintptr
	// optional: an attribute added after the message's first version
	// (tag option ",optional"); a binary message that ends before it comes
	// from a writer that predates it, and it takes its default.
	optional bool
}

// kindSpec is one row of the event table: everything a codec needs to know
// about a kind, so that a single generic reader and writer serve them all.
type kindSpec struct {
	kind    Kind
	wireID  uint16 // binary message id; 0 when the kind has no binary form
	name    string // the specification's element name
	fields  []field
	runs    []fieldRun     // fields grouped for the binary decoder
	flat    *flatLayout    // the binary decoder's shortcut; nil for a kind with a stack
	byName  map[string]int // XML attribute name to field index ("stackDepth" to the stack field)
	stack   int            // index of the Stack field, or -1
	time    int            // index of the "time" field, or -1
	minBody int            // bytes of the attributes when every string is empty and every stack has depth 0
	// custom: the kind travels inside custom messages, in proftop's
	// convention (custom.go); its id names it but never appears on the wire.
	custom bool
	// inPlace: flat messages of this kind may be decoded straight into a
	// Batch (BinaryDecoder.AppendNext); not the system messages the
	// decoder acts on, nor the custom messages it converts.
	inPlace bool

	fresh  func() Event               // a new zero event of this kind
	base   func(Event) unsafe.Pointer // the address of the event's struct
	clone  func(Event) Event          // a shallow copy
	arenaF func() arena               // storage for a Batch
}

// maxWireID bounds the message ids the table may know: TPTP's run to 1041,
// proftop's extensions start at 1100; 1130 to 1139 name the kinds carried
// in custom messages.
const maxWireID = 1199

// eventTable holds every kind's layout, by kind, wire id and element name.
type eventTable struct {
	byKind [numKinds]*kindSpec
	byWire [maxWireID + 1]*kindSpec
	byName map[string]*kindSpec
	// byConvention finds the kinds carried in custom messages by name.
	byConvention map[string]*kindSpec
}

// The table is built on first use, not at start-up: reading sixty structs'
// tags costs a run that decodes nothing (proftop --version) a tenth of
// its start-up.
var (
	tableOnce sync.Once
	table     eventTable
)

// kindTable returns the event table, built the first time it is asked for.
func kindTable() *eventTable {
	tableOnce.Do(buildTable)
	return &table
}

// specOf is the layout of kind k.
func specOf(k Kind) *kindSpec { return kindTable().byKind[k] }

// buildTable fills the event table, indexed by wire id.
func buildTable() {
	table.byName = map[string]*kindSpec{}
	table.byConvention = map[string]*kindSpec{}
	register[Unknown](0, "unknown")
	register[Encoding](1, "encoding")
	register[Frequency](2, "frequency")
	register[Node](1001, "node")
	register[ProcessCreate](1002, "processCreate")
	register[AgentCreate](1003, "agentCreate")
	register[AgentDestroy](1004, "agentDestroy")
	register[TraceStart](1005, "traceStart")
	register[TraceEnd](1006, "traceEnd")
	register[Filter](1007, "filter")
	register[Option](1008, "option")
	register[ThreadStart](1009, "threadStart")
	register[ThreadEnd](1010, "threadEnd")
	register[ClassDef](1011, "classDef")
	register[MethodDef](1012, "methodDef")
	register[ObjAlloc](1014, "objAlloc")
	register[MethodEntry](1015, "methodEntry")
	register[MethodExit](1016, "methodExit")
	register[GCStart](1023, "gcStart")
	register[ObjFree](1024, "objFree")
	register[GCFinish](1027, "gcFinish")
	register[RuntimeInitDone](1030, "runtimeInitDone")
	register[RuntimeShutdown](1031, "runtimeShutdown")
	register[MonWait](1032, "monWait")
	register[MonWaited](1033, "monWaited")
	register[MonContendedEnter](1034, "monContendedEnter")
	register[MonContendedEntered](1035, "monContendedEntered")
	register[AgMethodEntry](1036, "agMethodEntry")
	register[AgMethodExit](1037, "agMethodExit")
	register[HeapDumpDef](1038, "heapDumpDef")
	register[GCRoot](1039, "gcRoot")
	register[ObjReference](1040, "objReference")
	register[Custom](1041, "custom")
	register[Sample](1100, "sample")
	register[ThreadState](1101, "threadState")
	register[ThreadPoll](1102, "threadPoll")
	register[MemoryPool](1103, "memoryPool")
	register[Collection](1104, "collection")
	register[GCTotals](1105, "gcTotals")
	register[ObjectCensus](1106, "objectCensus")
	register[Allocation](1107, "allocation")
	register[ObjClass](1108, "objClass")
	// 1120-1129: what snapshot files (ProfilerJ) hold beyond the above.
	register[ThreadCPU](1120, "threadCpu")
	register[Coverage](1121, "coverage")
	register[TelemetrySeries](1130, "telemetrySeries")
	register[TelemetryValue](1131, "telemetryValue")
	register[TelemetryProblem](1132, "telemetryProblem")
	register[Probe](1133, "probe")
	for _, k := range []Kind{KindTelemetrySeries, KindTelemetryValue, KindTelemetryProblem, KindProbe} {
		carriedInCustom(k)
	}
	// 1140-1149: virtual threads (docs/trace-extensions.md).
	register[ThreadGroup](1140, "threadGroup")
	register[VirtualThreads](1141, "virtualThreads")
	register[SourceNote](1142, "sourceNote")
	register[VirtualPinned](1143, "virtualPinned")
	// 1150-: what the agent says of itself.
	register[AgentCost](1150, "agentCost")
	for k, sp := range table.byKind {
		if sp == nil {
			panic(fmt.Sprintf("decode: kind %d has no registry entry", k))
		}
	}
}

// carriedInCustom marks a kind as travelling inside custom messages only:
// a message with its id, or an element of its name, is not taken for it.
func carriedInCustom(k Kind) {
	sp := table.byKind[k]
	sp.custom = true
	table.byWire[sp.wireID] = nil
	delete(table.byName, sp.name)
	table.byConvention[sp.name] = sp
}

// register adds the kind of T to the table. The field layout comes from T's
// struct tags, read once here; the codecs then use plain offsets.
func register[T any, PT interface {
	*T
	Event
}](wireID uint16, name string) {
	var zero T
	k := PT(&zero).Kind()
	sp := &kindSpec{
		kind:   k,
		wireID: wireID,
		name:   name,
		byName: map[string]int{},
		stack:  -1,
		time:   -1,
		fresh:  func() Event { return PT(new(T)) },
		base:   func(e Event) unsafe.Pointer { return unsafe.Pointer(e.(PT)) },
		clone: func(e Event) Event {
			c := *e.(PT)
			return PT(&c)
		},
		arenaF: func() arena { return &arenaOf[T, PT]{} },
	}
	sp.fields = appendFields(nil, reflect.TypeFor[T](), 0)
	for i, f := range sp.fields {
		if f.typ == fieldStack {
			sp.stack = i
			sp.byName[attrStackDepth] = i
		} else {
			sp.byName[f.name] = i
		}
		if f.name == "time" {
			sp.time = i
		}
		sp.minBody += f.typ.wireSize()
	}
	sp.runs = fieldRuns(sp.fields)
	if allTagged(reflect.TypeFor[T]()) {
		sp.flat = newFlatLayout(sp.fields)
	}
	sp.inPlace = sp.flat != nil && k != KindEncoding && k != KindFrequency && k != KindCustom
	table.byKind[k] = sp
	table.byName[name] = sp
	if wireID != 0 {
		table.byWire[wireID] = sp
	}
}

// fieldRun is a stretch of a kind's attributes that the binary decoder
// takes at once: fixed-size attributes in a row (size > 0 bytes in all),
// whose bytes are checked once for the whole run, or one string or stack
// (size 0).
type fieldRun struct {
	first, end int // fields[first:end]
	size       int
	// copies cover the run when the stream's byte order is the machine's:
	// attributes that lie in the struct as they lie on the wire, one after
	// the other, are copied at once instead of read one by one.
	copies []fieldCopy
}

// fieldCopy is a stretch of a fixed run that is the same bytes in memory.
type fieldCopy struct {
	off  uintptr // in the struct
	wire int     // in the run
	size int
}

func fieldRuns(fields []field) []fieldRun {
	var runs []fieldRun
	for i, f := range fields {
		if f.typ == fieldString || f.typ == fieldStack {
			runs = append(runs, fieldRun{first: i, end: i + 1})
			continue
		}
		size := f.typ.wireSize()
		// An optional attribute starts a run: a body may end just before it.
		if n := len(runs); n > 0 && runs[n-1].size > 0 && !f.optional {
			r := &runs[n-1]
			last := &r.copies[len(r.copies)-1]
			if last.off+uintptr(last.size) == f.off {
				last.size += size
			} else {
				r.copies = append(r.copies, fieldCopy{off: f.off, wire: r.size, size: size})
			}
			r.end = i + 1
			r.size += size
			continue
		}
		runs = append(runs, fieldRun{first: i, end: i + 1, size: size, copies: []fieldCopy{{off: f.off, size: size}}})
	}
	return runs
}

var (
	ticksType = reflect.TypeFor[Ticks]()
	stackType = reflect.TypeFor[Stack]()
)

// appendFields flattens a struct's tagged fields, embedded structs included,
// in declaration order, which is wire order.
func appendFields(out []field, t reflect.Type, base uintptr) []field {
	for i := range t.NumField() {
		sf := t.Field(i)
		if sf.Anonymous {
			out = appendFields(out, sf.Type, base+sf.Offset)
			continue
		}
		tag, ok := sf.Tag.Lookup("tptp")
		if !ok {
			continue
		}
		name, opt, _ := strings.Cut(tag, ",")
		if opt != "" && opt != "optional" {
			panic(fmt.Sprintf("decode: %s.%s has the unknown tag option %q", t.Name(), sf.Name, opt))
		}
		out = append(out, field{name: name, typ: fieldTypeOf(t, sf), off: base + sf.Offset, optional: opt == "optional"})
	}
	return out
}

func fieldTypeOf(t reflect.Type, sf reflect.StructField) fieldType {
	switch {
	case sf.Type == ticksType:
		return fieldTicks
	case sf.Type == stackType:
		return fieldStack
	}
	switch sf.Type.Kind() {
	case reflect.Uint8:
		return fieldByte
	case reflect.Int32:
		return fieldInt
	case reflect.Int64:
		return fieldLong
	case reflect.Float64:
		return fieldDouble
	case reflect.String:
		return fieldString
	}
	panic(fmt.Sprintf("decode: %s.%s has type %s, which has no wire encoding", t.Name(), sf.Name, sf.Type))
}

// String returns the specification's element name of the kind.
func (k Kind) String() string {
	if k < numKinds {
		return specOf(k).name
	}
	return fmt.Sprintf("kind(%d)", uint8(k))
}

// WireID returns the binary message id of the kind, 0 when it has none.
func (k Kind) WireID() uint16 {
	if k < numKinds {
		return specOf(k).wireID
	}
	return 0
}

// Kinds lists every kind the table knows, in table order.
func Kinds() []Kind {
	out := make([]Kind, 0, numKinds)
	for k := range numKinds {
		out = append(out, k)
	}
	return out
}

// KindByName finds a kind by its element name ("threadStart").
func KindByName(name string) (Kind, bool) {
	sp, ok := kindTable().byName[name]
	if !ok {
		return 0, false
	}
	return sp.kind, true
}

// KindByWireID finds a kind by its binary message id.
func KindByWireID(id uint16) (Kind, bool) {
	if sp := specByWire(id); sp != nil {
		return sp.kind, true
	}
	return 0, false
}

// AttributeNames lists the kind's attributes in wire order, by their
// specification names; a stack counts as stackDepth, stackMethods, stackLines.
func (k Kind) AttributeNames() []string {
	var out []string
	for _, f := range specOf(k).fields {
		if f.typ == fieldStack {
			out = append(out, attrStackDepth, attrStackMethods, attrStackLines)
		} else {
			out = append(out, f.name)
		}
	}
	return out
}

// Clone returns a copy of ev that owns all its memory, so that it stays valid
// after the decoder that produced it moves on.
func Clone(ev Event) Event {
	sp := specOf(ev.Kind())
	c := sp.clone(ev)
	p := sp.base(c)
	if sp.stack >= 0 {
		st := fieldAt[Stack](p, sp.fields[sp.stack].off)
		st.Methods = append([]string(nil), st.Methods...)
		st.Lines = append([]int64(nil), st.Lines...)
	}
	if u, ok := c.(*Unknown); ok {
		u.Attrs = append([]Attr(nil), u.Attrs...)
	}
	return c
}

// Time returns the "time" attribute of an event, when its kind has one.
func Time(ev Event) (Ticks, bool) {
	sp := specOf(ev.Kind())
	if sp.time < 0 {
		return 0, false
	}
	return *fieldAt[Ticks](sp.base(ev), sp.fields[sp.time].off), true
}

// specByWire is the kind with binary message id id, nil if none.
func specByWire(id uint16) *kindSpec { return kindTable().wire(id) }

// wire is the kind with binary message id id, nil if none.
func (t *eventTable) wire(id uint16) *kindSpec {
	if int(id) < len(t.byWire) {
		return t.byWire[id]
	}
	return nil
}

// fieldAt is the field of type T at offset off in the struct at p. The
// registry checked at start-up that the type is right.
func fieldAt[T any](p unsafe.Pointer, off uintptr) *T {
	return (*T)(unsafe.Add(p, off))
}
