package decode

import (
	"fmt"
	"io"
	"math"
	"sort"
	"strconv"
	"strings"
	"time"
)

// JinsightDecoder maps a Jinsight trace into the event model: threads,
// classes and methods as definitions, enters and leaves as method entries
// and exits paired by tickets from per-thread stacks rebuilt here (a leave
// names no method), creations and reclaims as allocations and frees, and
// the objects the trace saw as a census by class. Times are nanoseconds
// since the epoch, from the ticks and the header's ticksPerMicrosecond:
// approximate, since the agent calibrates that rate itself.
//
// Its tables are bounded: threads and classes by ErrBound errors, each
// thread's stack and the objects remembered by counted overflow.
type JinsightDecoder struct {
	r         *JinsightReader
	limit     jinsightLimits
	maxString int // the bound on an event's strings (0: none)

	// Events waiting to be returned. Those of which one record makes
	// several sit in stores, which may move while they grow: the queue
	// holds their indexes until the record is done.
	queue   []queued
	qi      int
	exits   []MethodExit
	defs    []MethodDef
	census  []ObjectCensus
	enter   MethodEntry
	class   ClassDef
	tstart  ThreadStart
	tend    ThreadEnd
	alloc   ObjAlloc
	free    ObjFree
	coll    Collection
	custom  Custom
	end     TraceEnd
	arrDef  ClassDef
	process ProcessCreate
	err     error // returned once the queue drains

	base      int64 // ns since the epoch at the header's startTicks
	startTick uint64
	perMicro  int64

	threads    map[uint32]*jinsightThread
	classNames map[uint16]string
	arrayNames map[int64]bool   // pseudo classes of arrays already defined
	objects    map[uint32]int64 // object -> class
	byClass    map[int64]int64  // class -> objects of it remembered
	ticket     int32
	gcStart    uint64
	gcOpen     bool
	lastTicks  uint64
	// farTicks is the latest record's time, when it was far from the one
	// before (far): a record that agrees with it makes it a real jump.
	farTicks    uint64
	far         bool
	censusID    int64
	censusDirty int // objects defined since the last census
	finished    bool

	// Counted for the notes.
	closedAtBurst   int64
	closedAtExit    int64
	closedAtEnd     int64
	unmatchedLeaves int64
	tooDeep         int64
	untracked       int64
}

// jinsightThread is a thread's name and open frames.
type jinsightThread struct {
	latest  uint64 // ticks of its latest method record
	name    string
	defined uint64 // ticks of its THREAD_DEFINE
	frames  []jinsightFrame
	deeper  int // frames entered beyond the bound, left without a trace
}

type jinsightFrame struct {
	ticket int32
	method int64
	class  uint16
}

// jinsightLimits are the decoder's bounds.
type jinsightLimits struct {
	threads int // distinct threads
	depth   int // open frames per thread
	objects int // objects remembered for their class
}

var defaultJinsightLimits = jinsightLimits{threads: 1 << 16, depth: 4096, objects: 1 << 20}

// censusEvery is how many newly seen objects make a new census of them, so
// that a trace followed as it is written shows its objects as they come.
const censusEvery = 1024

// NewJinsightDecoder returns a decoder of the Jinsight trace in r.
func NewJinsightDecoder(r io.Reader, opts Options) *JinsightDecoder {
	return &JinsightDecoder{r: NewJinsightReader(r, opts), limit: defaultJinsightLimits,
		threads: map[uint32]*jinsightThread{}, classNames: map[uint16]string{}, arrayNames: map[int64]bool{},
		objects: map[uint32]int64{}, byClass: map[int64]int64{}, maxString: opts.maxString()}
}

// NextRecord returns the trace's own records instead of events (for
// `proftop decode`); a caller uses this or Next, not both.
func (d *JinsightDecoder) NextRecord() (Record, error) { return d.r.NextRecord() }

func (d *JinsightDecoder) Offset() int64      { return d.r.Offset() }
func (d *JinsightDecoder) InputOffset() int64 { return d.r.InputOffset() }
func (d *JinsightDecoder) Clock() Clock       { return Clock{} }
func (d *JinsightDecoder) Format() Format     { return FormatJinsight }
func (d *JinsightDecoder) Still() bool        { return false }

// Notes say that durations are approximate, and what the decoder repaired.
func (d *JinsightDecoder) Notes() []string {
	var out []string
	if d.perMicro > 0 {
		out = append(out, fmt.Sprintf("times approximate: %d ticks per µs, the agent's own calibration, overstated on a busy machine", d.perMicro))
	}
	if d.closedAtBurst > 0 {
		out = append(out, counted(d.closedAtBurst, "frame", "frames")+" open at a burst's end closed there")
	}
	if d.closedAtExit > 0 {
		out = append(out, counted(d.closedAtExit, "frame", "frames")+" open when "+pick(d.closedAtExit, "its thread", "their threads")+" exited closed there")
	}
	if d.closedAtEnd > 0 {
		out = append(out, counted(d.closedAtEnd, "frame", "frames")+" open at the end of the trace closed there")
	}
	if t := d.r.Trailing(); t != "" {
		out = append(out, t)
	}
	if d.unmatchedLeaves > 0 {
		out = append(out, counted(d.unmatchedLeaves, "leave", "leaves")+" without an enter on "+pick(d.unmatchedLeaves, "its", "their")+" thread ignored")
	}
	if d.tooDeep > 0 {
		out = append(out, fmt.Sprintf("%d calls deeper than %d frames not shown", d.tooDeep, d.limit.depth))
	}
	if d.untracked > 0 {
		out = append(out, fmt.Sprintf("%d objects beyond the %d remembered not counted by class", d.untracked, d.limit.objects))
	}
	if d.finished && !d.r.Ended() && d.r.fatal == nil {
		out = append(out, "the trace ends without TRACE_END: its writer stopped early")
	}
	return out
}

// counted says how many of a thing: "1 frame", "2 frames".
func counted(n int64, one, many string) string {
	return strconv.FormatInt(n, 10) + " " + pick(n, one, many)
}

// pick is the word for one, or for many.
func pick(n int64, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// Next returns the next event. At the end of the input (or at a fatal
// error) the frames still open are closed and the census taken first, so
// that what was read is shown.
func (d *JinsightDecoder) Next() (Event, error) {
	ev, err := d.next()
	if err == nil {
		boundEvent(ev, d.maxString)
	}
	return ev, err
}

func (d *JinsightDecoder) next() (Event, error) {
	for {
		if d.qi < len(d.queue) {
			q := d.queue[d.qi]
			d.qi++
			return d.resolve(q), nil
		}
		if d.err != nil {
			return nil, d.err
		}
		d.queue, d.qi = d.queue[:0], 0
		d.exits, d.defs, d.census = d.exits[:0], d.defs[:0], d.census[:0]
		rec, err := d.r.NextRecord()
		if err == nil {
			err = d.apply(rec)
		}
		if err != nil {
			if err != io.EOF && !IsFatal(err) {
				return nil, err // a read error to retry: nothing is lost
			}
			d.finish(err)
		}
	}
}

// finish ends the decoding: the frames still open are closed and the
// census taken, so that what was read is shown, and, when the trace says
// it ended (TRACE_END), the end of the trace: what its threads did after
// is not known. err comes after them.
func (d *JinsightDecoder) finish(err error) {
	if !d.finished {
		d.finished = true
		d.closeAll(d.lastTicks, &d.closedAtEnd)
		d.takeCensus(d.lastTicks)
		if d.r.Ended() {
			d.end = TraceEnd{Time: d.ns(d.lastTicks)}
			d.push(&d.end)
		}
	}
	d.err = err
}

// ns converts ticks to nanoseconds since the epoch.
func (d *JinsightDecoder) ns(ticks uint64) Ticks {
	delta := int64(ticks - d.startTick)
	return Ticks(d.base + delta/d.perMicro*1000 + delta%d.perMicro*1000/d.perMicro)
}

// queued is an event waiting: ev, or the index'th of a store.
type queued struct {
	ev    Event
	store uint8
	index int
}

const (
	inExits = iota + 1
	inDefs
	inCensus
)

func (d *JinsightDecoder) push(ev Event) { d.queue = append(d.queue, queued{ev: ev}) }

func (d *JinsightDecoder) pushStored(store uint8, index int) {
	d.queue = append(d.queue, queued{store: store, index: index})
}

func (d *JinsightDecoder) resolve(q queued) Event {
	switch q.store {
	case inExits:
		return &d.exits[q.index]
	case inDefs:
		return &d.defs[q.index]
	case inCensus:
		return &d.census[q.index]
	}
	return q.ev
}

// methodID makes a trace-wide method id of a class and its method number.
func methodID(class, method uint16) int64 { return int64(class)<<16 | int64(method) }

// The pseudo class ids of arrays: of a primitive type, of a class.
const (
	primitiveArrayClass = 1 << 20
	objectArrayClass    = 2 << 20
)

var primitiveArrays = [...]string{1: "int[]", 2: "long[]", 3: "float[]", 4: "double[]", 5: "boolean[]", 6: "byte[]", 7: "char[]", 8: "short[]"}

// className is a class's name in Java's dotted form, or class#N while its
// load has not been read.
func (d *JinsightDecoder) className(id int64) string {
	switch {
	case id >= objectArrayClass:
		return d.className(id-objectArrayClass) + "[]"
	case id >= primitiveArrayClass:
		if t := id - primitiveArrayClass; t < int64(len(primitiveArrays)) && primitiveArrays[t] != "" {
			return primitiveArrays[t]
		}
		return "array#" + strconv.FormatInt(id-primitiveArrayClass, 10)
	}
	if name, ok := d.classNames[uint16(id)]; ok {
		return name
	}
	return "class#" + strconv.FormatInt(id, 10)
}

// thread returns a thread's table entry, creating it on first sight.
func (d *JinsightDecoder) thread(id uint32) (*jinsightThread, error) {
	if t := d.threads[id]; t != nil {
		return t, nil
	}
	if len(d.threads) >= d.limit.threads {
		return nil, d.r.fail(&Error{Err: ErrBound, Offset: d.r.Offset(),
			Detail: fmt.Sprintf("more than %d threads", d.limit.threads)})
	}
	t := &jinsightThread{name: "thread-" + strconv.FormatUint(uint64(id), 10)}
	d.threads[id] = t
	return t, nil
}

func (d *JinsightDecoder) apply(rec Record) error {
	// A time far from the one before is damage (the trace has no
	// checksum): taken as that one, so that the record still pairs and
	// counts, and said after it is applied.
	var bad error
	if ticks := recordTicks(rec); ticks != nil {
		bad = d.plausible(rec, ticks)
		if bad == nil {
			bad = d.inOrder(rec, *ticks)
		}
	}
	if err := d.applyRecord(rec); err != nil {
		return err
	}
	return bad
}

// maxThreadStepBack is how far a thread's method records may step back
// in time: the agent's own traces do by tens of microseconds (ticks read
// on several processors); a record far later than its thread's next is
// damaged, and made a call of seconds out of one of microseconds.
const maxThreadStepBack = time.Second

// inOrder checks a method record's ticks against its thread's latest:
// much earlier, one of the two is damaged (which one, the trace cannot
// tell). The record is applied as it is; the error says where.
func (d *JinsightDecoder) inOrder(rec Record, ticks uint64) error {
	var id uint32
	switch r := rec.(type) {
	case *JinsightMethodEnter:
		id = r.ThreadID
	case *JinsightMethodLeave:
		id = r.ThreadID
	default:
		return nil
	}
	t := d.threads[id]
	if t == nil {
		return nil
	}
	was := t.latest
	t.latest = max(was, ticks)
	if d.perMicro > 0 && was > ticks && was-ticks > d.ticksIn(maxThreadStepBack) {
		back := (time.Duration((was-ticks)/uint64(d.perMicro)) * time.Microsecond).Round(time.Millisecond)
		t.latest = ticks // the records after it go by it: one error a damaged time, not one a record
		return &Error{Err: ErrValue, Offset: d.r.Offset(), Element: rec.Type(), Field: "ticks",
			Detail: fmt.Sprintf("%d is %v earlier than thread %d's record before (%d): one of the two is damaged", ticks, back, id, was)}
	}
	return nil
}

// ticksIn is how many ticks span d, at most the largest number of them
// (a header's calibration may be any number).
func (d *JinsightDecoder) ticksIn(span time.Duration) uint64 {
	micros := uint64(span / time.Microsecond)
	if uint64(d.perMicro) > math.MaxUint64/micros {
		return math.MaxUint64
	}
	return uint64(d.perMicro) * micros
}

// maxTicksJump is how far, in time, a record's ticks may be from the
// record's before: a trace spans hours at most, and one byte of a time
// damaged (the upper bytes of 8) moves it by days to centuries.
const maxTicksJump = 24 * time.Hour

// plausible checks a record's ticks against the record's before, and
// replaces ticks far from them by those. Two records in a row that agree
// on a time far from the one before are a real jump (a long pause between
// bursts, a damaged start in the header): the second is taken as it is,
// and so are those after.
func (d *JinsightDecoder) plausible(rec Record, ticks *uint64) error {
	if d.perMicro <= 0 {
		return nil
	}
	limit := d.ticksIn(maxTicksJump)
	near := func(a, b uint64) bool { return a-b <= limit || b-a <= limit }
	was := d.lastTicks
	switch {
	case near(*ticks, was):
		d.farTicks, d.far = 0, false
		return nil
	case d.far && near(*ticks, d.farTicks):
		d.farTicks, d.far = 0, false
		return nil
	}
	d.farTicks, d.far = *ticks, true
	jump := "later"
	if *ticks < was {
		jump = "earlier"
	}
	bad := *ticks
	*ticks = was
	return &Error{Err: ErrValue, Offset: d.r.Offset(), Element: rec.Type(), Field: "ticks",
		Detail: fmt.Sprintf("%d is more than %v %s than the record before (%d): taken as that", bad, maxTicksJump, jump, was)}
}

// recordTicks is where a record holds its time, nil when it has none.
func recordTicks(rec Record) *uint64 {
	switch r := rec.(type) {
	case *JinsightClassDefine:
		return &r.Ticks
	case *JinsightClassLoad:
		return &r.Ticks
	case *JinsightMethodEnter:
		return &r.Ticks
	case *JinsightMethodLeave:
		return &r.Ticks
	case *JinsightObjectDefined:
		return &r.Ticks
	case *JinsightObjectCreated:
		return &r.Ticks
	case *JinsightObjectReclaimed:
		return &r.Ticks
	case *JinsightArrayDefined:
		return &r.Ticks
	case *JinsightArrayClassDefined:
		return &r.Ticks
	case *JinsightArrayCreated:
		return &r.Ticks
	case *JinsightThreadDefine:
		return &r.Ticks
	case *JinsightThreadEvent:
		return &r.Ticks
	case *JinsightThreadNameChange:
		return &r.Ticks
	case *JinsightMoment:
		return &r.Ticks
	case *JinsightUserEvent:
		return &r.Ticks
	}
	return nil
}

func (d *JinsightDecoder) applyRecord(rec Record) error {
	switch r := rec.(type) {
	case *JinsightHeader:
		d.perMicro = int64(r.TicksPerMicrosecond)
		d.startTick = r.StartTicks
		start := r.ConnectionStartTime
		if start == 0 {
			start = r.VMStartTime
		}
		d.base = int64(start) * 1e9
		d.lastTicks = r.StartTicks
		if r.VMStartTime != 0 {
			// When the JVM started: the header's uptime.
			d.process = ProcessCreate{Time: Ticks(int64(r.VMStartTime) * 1e9)}
			d.push(&d.process)
		}
		return nil
	case *JinsightClassLoad:
		d.classLoaded(r)
	case *JinsightMethodEnter:
		return d.entered(r)
	case *JinsightMethodLeave:
		return d.left(r)
	case *JinsightObjectDefined:
		d.seen(r.ObjectID, int64(r.ClassID))
	case *JinsightObjectCreated:
		d.seen(r.ObjectID, int64(uint16(r.ClassID)))
		d.allocated(r.Ticks, r.ThreadID, r.ObjectID, int64(uint16(r.ClassID)), 0, false)
	case *JinsightArrayDefined:
		d.seen(r.ObjectID, primitiveArrayClass+int64(r.ArrayType))
	case *JinsightArrayClassDefined:
		d.seen(r.ObjectID, objectArrayClass+int64(r.ClassID))
	case *JinsightArrayCreated:
		class, ok := d.objects[r.ObjectID]
		if !ok {
			class = primitiveArrayClass + int64(r.IsArray)
			d.seen(r.ObjectID, class)
		}
		d.allocated(r.Ticks, r.ThreadID, r.ObjectID, class, int64(r.Size), true)
	case *JinsightObjectReclaimed:
		if class, ok := d.objects[r.ObjectID]; ok {
			delete(d.objects, r.ObjectID)
			d.countClass(class, -1)
			d.censusDirty++
		}
		d.free = ObjFree{Time: d.ns(r.Ticks), ObjIDRef: int64(r.ObjectID)}
		d.push(&d.free)
	case *JinsightThreadDefine:
		t, err := d.thread(r.ThreadID)
		if err != nil {
			return err
		}
		t.name, t.defined = r.ThreadName, r.Ticks
		d.started(r.ThreadID, t, r.Ticks)
	case *JinsightThreadEvent:
		t, err := d.thread(r.ThreadID)
		if err != nil {
			return err
		}
		if r.IsStart() {
			d.started(r.ThreadID, t, r.Ticks)
			break
		}
		d.closeFrames(r.ThreadID, t, r.Ticks, &d.closedAtExit)
		d.tend = ThreadEnd{ThreadMoment{ThreadIDRef: int64(r.ThreadID), Time: d.ns(r.Ticks)}}
		d.push(&d.tend)
	case *JinsightThreadNameChange:
		t, err := d.thread(r.ThreadID)
		if err != nil {
			return err
		}
		t.name = r.ThreadName
		d.started(r.ThreadID, t, t.defined)
	case *JinsightMoment:
		d.moment(r)
	case *JinsightUserEvent:
		d.custom = Custom{Body: r.Message}
		d.push(&d.custom)
	}
	return nil
}

// started tells the thread's name, as of when it was defined.
func (d *JinsightDecoder) started(id uint32, t *jinsightThread, ticks uint64) {
	d.tstart = ThreadStart{ThreadID: int64(id), ThreadName: t.name, Time: d.ns(ticks)}
	d.push(&d.tstart)
}

func (d *JinsightDecoder) classLoaded(r *JinsightClassLoad) {
	name := strings.ReplaceAll(r.ClassName, "/", ".")
	d.classNames[r.ClassID] = name
	at := d.ns(r.Ticks)
	super := ""
	if r.SuperClassID != 0 {
		super = d.className(int64(r.SuperClassID))
	}
	d.class = ClassDef{Time: at, ClassID: int64(r.ClassID), Name: name, Superclass: super,
		NumMethods: int32(len(r.Methods)), NumInstanceFields: int32(len(r.Fields)), NumInterfaces: int32(len(r.Interfaces))}
	d.push(&d.class)
	for i, m := range r.Methods {
		d.defs = append(d.defs, MethodDef{Name: m.Name, Signature: m.Signature, MethodID: methodID(r.ClassID, uint16(i)),
			ClassIDRef: int64(r.ClassID), StartLineNumber: -1, EndLineNumber: -1,
			IsNative: accessBit(m.AccessFlags, 0x0100), IsAbstract: accessBit(m.AccessFlags, 0x0400),
			IsStatic: accessBit(m.AccessFlags, 0x0008), IsSynchronized: accessBit(m.AccessFlags, 0x0020)})
		d.pushStored(inDefs, len(d.defs)-1)
	}
}

func accessBit(access, bit uint16) byte {
	if access&bit != 0 {
		return 1
	}
	return 0
}

func (d *JinsightDecoder) entered(r *JinsightMethodEnter) error {
	t, err := d.thread(r.ThreadID)
	if err != nil {
		return err
	}
	d.lastTicks = r.Ticks
	if len(t.frames) >= d.limit.depth || t.deeper > 0 {
		t.deeper++
		d.tooDeep++
		return nil
	}
	d.ticket++
	f := jinsightFrame{ticket: d.ticket, method: methodID(r.ClassID, r.MethodID), class: r.ClassID}
	t.frames = append(t.frames, f)
	obj := int64(r.ObjectID)
	if r.ObjectID == 0xffffffff {
		obj = 0 // a static call
	}
	d.enter = MethodEntry{ThreadIDRef: int64(r.ThreadID), Time: d.ns(r.Ticks), MethodIDRef: f.method, Ticket: f.ticket,
		TransientObjIDRef: obj, ClassIDRef: int64(r.ClassID), StackDepth: int64(len(t.frames))}
	d.push(&d.enter)
	return nil
}

func (d *JinsightDecoder) left(r *JinsightMethodLeave) error {
	t, err := d.thread(r.ThreadID)
	if err != nil {
		return err
	}
	d.lastTicks = r.Ticks
	switch {
	case t.deeper > 0:
		t.deeper--
	case len(t.frames) == 0:
		d.unmatchedLeaves++
	default:
		d.exit(r.ThreadID, t, r.Ticks)
	}
	return nil
}

// exit leaves the innermost open frame of a thread.
func (d *JinsightDecoder) exit(id uint32, t *jinsightThread, ticks uint64) {
	f := t.frames[len(t.frames)-1]
	t.frames = t.frames[:len(t.frames)-1]
	d.exits = append(d.exits, MethodExit{ThreadIDRef: int64(id), Time: d.ns(ticks), Ticket: f.ticket,
		MethodIDRef: f.method, ClassIDRef: int64(f.class)})
	d.pushStored(inExits, len(d.exits)-1)
}

// closeFrames closes a thread's open frames at ticks, innermost first,
// counting them.
func (d *JinsightDecoder) closeFrames(id uint32, t *jinsightThread, ticks uint64, counter *int64) {
	*counter += int64(len(t.frames) + t.deeper)
	t.deeper = 0
	for len(t.frames) > 0 {
		d.exit(id, t, ticks)
	}
}

// closeAll closes the open frames of every thread, in thread order.
func (d *JinsightDecoder) closeAll(ticks uint64, counter *int64) {
	ids := make([]uint32, 0, len(d.threads))
	for id, t := range d.threads {
		if len(t.frames) > 0 || t.deeper > 0 {
			ids = append(ids, id)
		}
	}
	sort.Slice(ids, func(i, j int) bool { return ids[i] < ids[j] })
	for _, id := range ids {
		d.closeFrames(id, d.threads[id], ticks, counter)
	}
}

func (d *JinsightDecoder) moment(r *JinsightMoment) {
	d.lastTicks = r.Ticks
	switch r.id {
	case jiGCStart:
		d.gcStart, d.gcOpen = r.Ticks, true
	case jiGCStop:
		pause := Ticks(0)
		if d.gcOpen && r.Ticks >= d.gcStart {
			pause = d.ns(r.Ticks) - d.ns(d.gcStart)
		}
		d.gcOpen = false
		d.coll = Collection{Time: d.ns(r.Ticks), Pause: pause, UsedBefore: -1, UsedAfter: -1, Committed: -1}
		d.push(&d.coll)
	case jiEndBurst:
		d.closeAll(r.Ticks, &d.closedAtBurst)
		d.takeCensus(r.Ticks)
	}
}

// seen remembers an object's class, within the bound.
func (d *JinsightDecoder) seen(obj uint32, class int64) {
	old, known := d.objects[obj]
	switch {
	case known && old == class:
		return
	case known:
		d.countClass(old, -1)
	case len(d.objects) >= d.limit.objects:
		d.untracked++
		return
	}
	d.objects[obj] = class
	d.countClass(class, 1)
	d.censusDirty++
	// A census as the objects come, less often as they grow many.
	if d.censusDirty >= max(censusEvery, len(d.objects)/4) {
		d.takeCensus(d.lastTicks)
	}
}

func (d *JinsightDecoder) countClass(class, n int64) {
	if d.byClass[class] += n; d.byClass[class] <= 0 {
		delete(d.byClass, class)
	}
}

// allocated reports an allocation, defining the pseudo class of an array
// the first time one is allocated.
func (d *JinsightDecoder) allocated(ticks uint64, thread, obj uint32, class, size int64, array bool) {
	if class >= primitiveArrayClass && !d.arrayNames[class] {
		d.arrayNames[class] = true
		d.arrDef = ClassDef{Time: d.ns(ticks), ClassID: class, Name: d.className(class)}
		d.push(&d.arrDef)
	}
	d.alloc = ObjAlloc{ThreadIDRef: int64(thread), Time: d.ns(ticks), ObjID: int64(obj), ClassIDRef: class, Size: size}
	if array {
		d.alloc.IsArray = 1
	}
	d.push(&d.alloc)
}

// takeCensus counts the objects the trace saw (and did not see reclaimed)
// by class: a census that replaces the previous one.
func (d *JinsightDecoder) takeCensus(ticks uint64) {
	if d.censusDirty == 0 {
		return
	}
	d.censusDirty = 0
	classes := make([]int64, 0, len(d.byClass))
	for c := range d.byClass {
		classes = append(classes, c)
	}
	sort.Slice(classes, func(i, j int) bool { return classes[i] < classes[j] })
	d.censusID++
	at := d.ns(ticks)
	for _, c := range classes {
		d.census = append(d.census, ObjectCensus{Time: at, Census: d.censusID, Class: d.className(c),
			Count: d.byClass[c], Bytes: -1, MaxCount: -1})
		d.pushStored(inCensus, len(d.census)-1)
	}
}
