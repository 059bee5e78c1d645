package decode

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
)

// rbkit (a Ruby profiler) publishes msgpack frames over ZeroMQ; this file
// turns them into proftop's events, the same ones a JVM's trace gives:
//
//	cpu_sample            Sample (one, count 1, no weight: rbkit does not say
//	                      how much time a sample stands for; its lines are the
//	                      methods' first lines), and ThreadStart the first
//	                      time a thread id is seen, undated (time 0): rbkit
//	                      tells no thread's start, and one seen in a sample
//	                      may have run for hours
//	obj_created           ClassDef (once per class name) and ObjAlloc; an
//	                      object without a class has ClassIDRef 0
//	obj_destroyed         ObjFree
//	gc_start, gc_end_m    one Collection at the end of marking: the pause is
//	                      the marking (Ruby sweeps lazily, interleaved with the
//	                      program); gc_end_s ends the sweep and adds nothing
//	gc_stats              GCTotals for minor and major collections, and two
//	                      MemoryPools: the object heap (live slots and the
//	                      heap's size, in bytes) and ObjectSpace.memsize_of_all
//	object_space_dump     ObjectCensus lines, by class and allocation site,
//	                      once every object the dump announced has arrived
//	handshake             ProcessCreate and AgentCreate (a recording starts
//	                      with the handshake reply); the process undated, for
//	                      rbkit does not tell when it started (the handshake's
//	                      time is when it was asked for)
//
// Timestamps are float milliseconds since the epoch; events carry them as
// nanoseconds (the default clock).

// ErrMsgpack is a frame that is not well-formed msgpack, or not the shape
// an rbkit frame has.
var ErrMsgpack = errors.New("malformed rbkit frame")

// Bounds on what a peer can make the decoder keep.
const (
	maxRbkitThreads      = 4096  // thread ids remembered (to send ThreadStart once)
	maxRbkitClasses      = 65536 // class names given an id
	maxRbkitCensusGroups = 20000 // (class, site) groups of one object-space dump
)

// The collectors and pools gc_stats is reported as.
const (
	RbkitMinorGC    = "minor GC"
	RbkitMajorGC    = "major GC"
	RbkitCollection = "Ruby GC"
	RbkitObjectHeap = "object heap"
	RbkitMemsize    = "memsize of all objects"
)

// rbkitOtherClasses names the objects of the classes beyond maxRbkitClasses.
const rbkitOtherClasses = "(other classes)"

// rvalueSize is the size of one object slot on 64-bit Ruby, used when
// gc_stats gives no way to work it out.
const rvalueSize = 40

// rbkitMapper holds what the events of one stream need across frames:
// thread and class ids, the collection in progress, the dump being
// assembled, the frame counter.
type rbkitMapper struct {
	rr        *rbkitReader
	msg       rbMessage
	maxString int // the bound on an event's strings (0: none)

	threads   map[int64]bool
	classes   map[string]int64
	nextClass int64
	cfunc     map[string]string // label -> "label <cfunc>"
	gcStart   float64           // ms; 0: no collection in progress

	census rbCensus

	handshake    RbkitHandshake // the latest handshake reply (a recording's first frame)
	hasHandshake bool

	frames      int64
	lastCounter int64 // -1 before the first frame
	// counterFloor is the counter a connection before this one reached
	// (-1: none): a first frame at or below it is another server's.
	counterFloor int64
	lost         int64
	restarts     int64

	out    []Event
	arenas [numKinds]arena
	// Scratch events of the frequent kinds: emit copies them into the
	// arenas, so that building one costs no allocation.
	alloc   ObjAlloc
	free    ObjFree
	sampled Sample
	methods []string
	lines   []int64
}

type censusKey struct{ class, site string }

type censusGroup struct {
	count, bytes int64
	sized        bool
}

// rbCensus is an object-space dump being assembled: its parts share a
// correlation id and the first announces how many objects are coming.
type rbCensus struct {
	active     bool
	corr       int64
	total, got int64
	id         int64 // the census id: the first part's time, ns
	groups     map[censusKey]*censusGroup
}

func newRbkitMapper(opts Options) *rbkitMapper {
	return &rbkitMapper{rr: newRbkitReader(newInterner()), threads: map[int64]bool{}, classes: map[string]int64{},
		cfunc: map[string]string{}, lastCounter: -1, counterFloor: -1, maxString: opts.maxString()}
}

// emit copies an event into the frame's storage.
func (m *rbkitMapper) emit(ev Event) {
	k := ev.Kind()
	if m.arenas[k] == nil {
		m.arenas[k] = specOf(k).arenaF()
	}
	kept := m.arenas[k].add(ev)
	boundEvent(kept, m.maxString)
	m.out = append(m.out, kept)
}

// frame decodes one whole frame (checked by msgpackScan) into m.out. On
// error nothing of the frame is kept.
func (m *rbkitMapper) frame(b []byte) error {
	m.out = m.out[:0]
	for _, a := range m.arenas {
		if a != nil {
			a.reset()
		}
	}
	m.methods, m.lines = m.methods[:0], m.lines[:0]
	if err := m.rr.parse(b, &m.msg); err != nil {
		return err
	}
	m.frames++
	msg := &m.msg
	if msg.hasCounter {
		switch {
		case m.lastCounter >= 0 && msg.counter > m.lastCounter+1:
			m.lost += msg.counter - m.lastCounter - 1
		case m.lastCounter >= 0 && msg.counter <= m.lastCounter,
			m.lastCounter < 0 && msg.counter <= m.counterFloor:
			m.restarts++ // a new server process counts from 0 again
		}
		m.lastCounter = msg.counter
	}
	if msg.typ == rbkitHandshake {
		h := &msg.handshake
		m.handshake, m.hasHandshake = *h, true
		t := msTicks(msg.ts)
		m.emit(&ProcessCreate{ProcessID: strconv.FormatInt(h.PID, 10), Name: h.ProcessName, PID: int32(h.PID)})
		m.emit(&AgentCreate{AgentName: "rbkit", AgentType: "rbkit", Version: h.ServerVersion + " (protocol " + h.ProtocolVersion + ")", Time: t})
		return nil
	}
	for i := range msg.events {
		m.event(&msg.events[i])
	}
	return nil
}

// msTicks converts rbkit's float milliseconds to nanosecond ticks.
func msTicks(ms float64) Ticks {
	ns := math.Round(ms * 1e6)
	if math.IsNaN(ns) || ns > math.MaxInt64/2 || ns < math.MinInt64/2 {
		return 0
	}
	return Ticks(ns)
}

func (m *rbkitMapper) event(ev *rbEvent) {
	ts := ev.ts
	if !ev.hasTS {
		ts = m.msg.ts
	}
	t := msTicks(ts)
	switch ev.typ {
	case rbkitCPUSample:
		m.sample(m.msg.frames[ev.first:ev.first+ev.n], t)
	case rbkitObjCreated:
		m.alloc = ObjAlloc{Time: t, ObjID: ev.obj.id, ClassIDRef: m.classID(ev.obj.class, t)}
		m.emit(&m.alloc)
	case rbkitObjDestroyed:
		m.free = ObjFree{Time: t, ObjIDRef: ev.obj.id}
		m.emit(&m.free)
	case rbkitGCStart:
		m.gcStart = ts
	case rbkitGCEndMark:
		pause := Ticks(0)
		if m.gcStart > 0 && ts >= m.gcStart {
			pause = msTicks(ts - m.gcStart) // the difference first: float64 holds ms since the epoch to 0.25 µs
		}
		m.gcStart = 0
		m.emit(&Collection{Time: t, Collector: RbkitCollection, Pause: pause, UsedBefore: -1, UsedAfter: -1, Committed: -1})
	case rbkitGCStats:
		m.gcStats(m.msg.stats[ev.first:ev.first+ev.n], t)
	case rbkitObjectSpaceDump:
		m.dump(ev, m.msg.objects[ev.first:ev.first+ev.n], t)
	}
}

// classID names a class by an id of this stream, defining it the first
// time; nil (no class) is id 0.
func (m *rbkitMapper) classID(name string, t Ticks) int64 {
	if name == "" {
		return 0
	}
	if id, ok := m.classes[name]; ok {
		return id
	}
	if len(m.classes) >= maxRbkitClasses {
		name = rbkitOtherClasses // beyond the bound, one class stands for the rest
		if id, ok := m.classes[name]; ok {
			return id
		}
	}
	m.nextClass++
	m.classes[name] = m.nextClass
	m.emit(&ClassDef{Time: t, ClassID: m.nextClass, Name: name})
	return m.nextClass
}

// sample turns a cpu_sample's frames into a Sample of its thread.
func (m *rbkitMapper) sample(frames []rbFrame, t Ticks) {
	if len(frames) == 0 {
		return
	}
	thread := frames[0].thread
	if !m.threads[thread] {
		if len(m.threads) >= maxRbkitThreads {
			clear(m.threads)
		}
		m.threads[thread] = true
		m.emit(&ThreadStart{ThreadID: thread, TransientThreadID: thread, ThreadName: rbkitThreadName(frames, thread)})
	}
	first := len(m.methods)
	for i := range frames {
		name, line := m.frameName(&frames[i])
		m.methods = append(m.methods, name)
		m.lines = append(m.lines, line)
	}
	m.sampled = Sample{ThreadIDRef: thread, Time: t, Count: 1, Flags: SampleFirstLines,
		Stack: Stack{Methods: m.methods[first:len(m.methods):len(m.methods)], Lines: m.lines[first:len(m.lines):len(m.lines)]}}
	m.emit(&m.sampled)
}

// frameName is the label Ruby gives a frame ("Ledger#reconcile", "block
// (2 levels) in Foo#bar"), with " <cfunc>" after a C function's.
func (m *rbkitMapper) frameName(f *rbFrame) (string, int64) {
	name := f.label
	if name == "" {
		name = f.method
	}
	if name == "" {
		name = "(unnamed frame)"
	}
	if f.file != "<cfunc>" {
		return name, f.line
	}
	c, ok := m.cfunc[name]
	if !ok {
		if len(m.cfunc) >= maxRbkitClasses {
			clear(m.cfunc)
		}
		c = name + " <cfunc>"
		m.cfunc[name] = c
	}
	return c, 0 // a C function's line means nothing
}

// rbkitThreadName names a Ruby thread by what it runs: "main" for the
// main thread, else the outermost frame's label (a thread is a block).
func rbkitThreadName(frames []rbFrame, id int64) string {
	bottom := frames[len(frames)-1].label
	switch bottom {
	case "<main>":
		return "main"
	case "":
		return "thread " + strconv.FormatInt(id, 10)
	}
	return bottom
}

// gcStats reports the counts and sizes of gc_stats.
func (m *rbkitMapper) gcStats(stats []rbStat, t Ticks) {
	v := map[string]int64{}
	for _, s := range stats {
		v[s.key] = s.value
	}
	if n, ok := v["minor_gc_count"]; ok {
		m.emit(&GCTotals{Time: t, Collector: RbkitMinorGC, Count: n})
	}
	if n, ok := v["major_gc_count"]; ok {
		m.emit(&GCTotals{Time: t, Collector: RbkitMajorGC, Count: n})
	}
	live, hasLive := v["heap_live_slots"]
	size, hasSize := v["total_heap_size"]
	if hasLive || hasSize {
		slot := int64(rvalueSize)
		if slots := live + v["heap_free_slots"] + v["heap_final_slots"]; hasSize && slots > 0 && size/slots > 0 {
			slot = size / slots
		}
		committed := int64(-1)
		if hasSize {
			committed = size
		}
		m.emit(&MemoryPool{Time: t, Name: RbkitObjectHeap, Heap: PoolHeap, Used: live * slot, Committed: committed, Max: -1})
	}
	if n, ok := v["total_memsize"]; ok {
		m.emit(&MemoryPool{Time: t, Name: RbkitMemsize, Heap: PoolOther, Used: n, Committed: -1, Max: -1})
	}
}

// dump adds a part of an object-space dump; the census is reported once
// the announced total has arrived. A dump that another one interrupts is
// dropped.
func (m *rbkitMapper) dump(ev *rbEvent, objects []rbObject, t Ticks) {
	c := &m.census
	if !c.active || c.corr != ev.corr {
		*c = rbCensus{active: true, corr: ev.corr, id: int64(t), groups: map[censusKey]*censusGroup{}}
	}
	if ev.total > 0 {
		c.total = ev.total
	}
	for i := range objects {
		o := &objects[i]
		k := censusKey{class: o.class}
		if o.file != "" {
			k.site = o.file
			if o.hasLine {
				k.site += ":" + strconv.FormatInt(o.line, 10)
			}
		}
		g := c.groups[k]
		if g == nil {
			if len(c.groups) >= maxRbkitCensusGroups {
				k = censusKey{class: "(other classes)"}
				g = c.groups[k]
			}
			if g == nil {
				g = &censusGroup{}
				c.groups[k] = g
			}
		}
		g.count++
		if o.size >= 0 {
			g.bytes += o.size
			g.sized = true
		}
	}
	c.got += int64(len(objects))
	if c.got < c.total {
		return
	}
	keys := make([]censusKey, 0, len(c.groups))
	for k := range c.groups {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b censusKey) int {
		if n := cmp.Compare(c.groups[b].count, c.groups[a].count); n != 0 {
			return n
		}
		return cmp.Or(cmp.Compare(a.class, b.class), cmp.Compare(a.site, b.site))
	})
	for _, k := range keys {
		g := c.groups[k]
		bytes := int64(-1)
		if g.sized {
			bytes = g.bytes
		}
		m.emit(&ObjectCensus{Time: t, Census: c.id, Class: k.class, Site: k.site, Count: g.count, Bytes: bytes, MaxCount: -1})
	}
	*c = rbCensus{}
}

// scanError describes a frame that msgpackScan refused: nothing of it
// was read, its counter included.
func (m *rbkitMapper) scanError(offset int64, cause error, fatal bool) *Error {
	m.msg.reset()
	return m.frameError(offset, cause, fatal)
}

// frameError describes a malformed frame: which frame, where, and why.
func (m *rbkitMapper) frameError(offset int64, cause error, fatal bool) *Error {
	detail := cause.Error()
	if m.msg.hasCounter {
		detail = fmt.Sprintf("frame with counter %d: %s", m.msg.counter, detail)
	}
	return &Error{Err: ErrMsgpack, Offset: offset, Element: "rbkit frame", Detail: detail, Fatal: fatal}
}

// RbkitDecoder reads a recording of rbkit frames: msgpack maps one after
// the other, as the PUB socket sent them (the handshake reply may come
// first). A malformed frame is reported once (a non-fatal *Error) and
// skipped; bytes that are not msgpack at all end the stream.
type RbkitDecoder struct {
	in       chunkReader
	opts     Options
	m        *rbkitMapper
	scan     msgpackScan
	scanning bool
	next     int
	last     int64 // offset of the frame the last event came from
	fatal    error
}

// NewRbkitDecoder returns a decoder of the rbkit recording in r.
func NewRbkitDecoder(r io.Reader, opts Options) *RbkitDecoder {
	return &RbkitDecoder{in: newChunkReader(r), opts: opts, m: newRbkitMapper(opts)}
}

// Next returns the next event (see Decoder). Errors of one frame are
// non-fatal *Errors; the frame is skipped.
func (d *RbkitDecoder) Next() (Event, error) {
	for d.next >= len(d.m.out) {
		if d.fatal != nil {
			return nil, d.fatal
		}
		frame, at, err := d.cut()
		if err != nil {
			return nil, err
		}
		d.next, d.last = 0, at
		ferr := d.m.frame(frame)
		d.in.consume(len(frame))
		if ferr != nil {
			d.m.out = d.m.out[:0]
			return nil, d.m.frameError(at, ferr, false)
		}
	}
	ev := d.m.out[d.next]
	d.next++
	return ev, nil
}

// cut returns the next whole frame from the input (valid until the next
// read) and its offset, io.EOF at a clean end.
func (d *RbkitDecoder) cut() ([]byte, int64, error) {
	if !d.scanning {
		d.scan.reset()
		d.scanning = true
	}
	at := d.in.offset()
	for {
		buf := d.in.unread()
		if len(buf) > 0 && !isMapCode(buf[0]) {
			d.fatal = d.notAFrame(at)
			return nil, at, d.fatal
		}
		res, err := d.scan.scan(buf)
		switch {
		case res == scanDone:
			d.scanning = false
			if d.scan.deep {
				d.in.consume(d.scan.pos)
				return nil, at, d.m.scanError(at, fmt.Errorf("nested deeper than %d levels", maxNesting), false)
			}
			return d.in.peek(d.scan.pos), at, nil
		case res == scanError:
			d.fatal = d.m.scanError(at, err, true)
			return nil, at, d.fatal
		case d.scan.want > uint64(d.opts.maxSize()):
			d.fatal = d.tooLarge(at)
			return nil, at, d.fatal
		}
		if err := d.in.fill(max(d.in.buffered()+1, int(d.scan.want))); err != nil {
			if err == io.EOF {
				if d.in.buffered() == 0 {
					return nil, at, io.EOF
				}
				detail := fmt.Sprintf("%d bytes of an unfinished frame", d.in.buffered())
				if what := d.scan.unfinished(at, d.in.buffered()); what != "" {
					detail += ": " + what
				}
				d.fatal = &Error{Err: ErrTruncated, Offset: at, Element: "rbkit frame", Fatal: true, Detail: detail}
				return nil, at, d.fatal
			}
			return nil, at, err
		}
	}
}

// notAFrame refuses data at offset at that does not start a frame. Every
// frame rbkit sends is a msgpack map; anything else where a frame should
// begin means the recording ended and something else follows (another
// file appended to it, damage). Read as frames, its bytes would each be
// a small msgpack value, refused one by one (one error per byte, then a
// bogus length swallowing the rest), so the stream ends here with one
// error that shows what follows.
func (d *RbkitDecoder) notAFrame(at int64) *Error {
	// Up to 8 bytes to show; fewer if the input has no more now.
	_ = d.in.fill(8)
	buf := d.in.unread()
	more := ""
	if d.opts.InputSize > 0 {
		more = fmt.Sprintf(" (%d bytes to the end of the file)", d.opts.InputSize-at)
	}
	return &Error{Err: ErrMsgpack, Offset: at, Element: "rbkit frame", Fatal: true,
		Detail: fmt.Sprintf("want a map, got %s (byte 0x%02x): no rbkit frame starts here, so the recording ends; what follows%s, starting with %s, is not read",
			msgpackKind(buf[0]), buf[0], more, quoteDetail(string(buf[:min(len(buf), 8)])))}
}

// tooLarge refuses a frame that would outgrow the maximum. A length that
// declares more than the file has left is damage, said as such (as the
// binary decoder does); otherwise the frame is named by what made it grow.
func (d *RbkitDecoder) tooLarge(at int64) *Error {
	v := d.scan.short
	if v.valid {
		declared := fmt.Sprintf("%s at offset %d declares %d bytes", msgpackKind(v.code), at+int64(v.at), v.body)
		if left := d.opts.InputSize - at - int64(v.at+1+v.head); d.opts.InputSize > 0 && int64(v.body) > left {
			return &Error{Err: ErrPastEnd, Offset: at, Element: "rbkit frame", Fatal: true,
				Detail: fmt.Sprintf("%s but only %d are left in the file: the file is damaged or not what it seems", declared, max(left, 0))}
		}
		return &Error{Err: ErrTooLarge, Offset: at, Element: "rbkit frame", Fatal: true,
			Detail: fmt.Sprintf("%s, which makes the frame more than %d bytes (--max-message-size)", declared, d.opts.maxSize())}
	}
	detail := fmt.Sprintf("more than %d bytes (--max-message-size)", d.opts.maxSize())
	if what := d.scan.unfinished(at, d.in.buffered()); what != "" {
		detail += ": " + what
	}
	return &Error{Err: ErrTooLarge, Offset: at, Element: "rbkit frame", Fatal: true, Detail: detail}
}

func (d *RbkitDecoder) Offset() int64      { return d.last }
func (d *RbkitDecoder) InputOffset() int64 { return d.in.offset() }
func (d *RbkitDecoder) Clock() Clock       { return Clock{} }
func (d *RbkitDecoder) Format() Format     { return FormatRbkit }

// Lost is the count of frames the server's counter says never arrived.
func (d *RbkitDecoder) Lost() int64 { return d.m.lost }

// Frames is the count of frames decoded.
func (d *RbkitDecoder) Frames() int64 { return d.m.frames }

// Handshake is the recording's handshake reply (who the process is),
// once read; false when none came yet.
func (d *RbkitDecoder) Handshake() (RbkitHandshake, bool) { return d.m.handshake, d.m.hasHandshake }

// RbkitFrames decodes rbkit frames one at a time, as a ZeroMQ subscriber
// receives them: the transport delimits them, so a malformed frame never
// costs the next one.
type RbkitFrames struct {
	m    *rbkitMapper
	scan msgpackScan
	opts Options
}

// NewRbkitFrames returns a decoder for the frames of one server process.
func NewRbkitFrames(opts Options) *RbkitFrames {
	return &RbkitFrames{m: newRbkitMapper(opts), opts: opts}
}

// Decode returns the events of one frame, valid until the next call. A
// malformed frame gives a non-fatal *Error (offset is the frame's position
// in the stream, for the message) and no event.
func (f *RbkitFrames) Decode(frame []byte, offset int64) ([]Event, error) {
	f.m.out = f.m.out[:0]
	if len(frame) > f.opts.maxSize() {
		return nil, &Error{Err: ErrTooLarge, Offset: offset, Element: "rbkit frame",
			Detail: fmt.Sprintf("%d bytes, more than %d (--max-message-size)", len(frame), f.opts.maxSize())}
	}
	if err := checkFrame(&f.scan, frame); err != nil {
		return nil, f.m.scanError(offset, err, false)
	}
	if err := f.m.frame(frame); err != nil {
		return nil, f.m.frameError(offset, err, false)
	}
	return f.m.out, nil
}

// Lost is the count of frames the server's counter says never arrived.
func (f *RbkitFrames) Lost() int64 { return f.m.lost }

// Restarts counts the times the frame counter went back: a new server.
func (f *RbkitFrames) Restarts() int64 { return f.m.restarts }

// Counter is the latest frame counter seen; -1: none yet.
func (f *RbkitFrames) Counter() int64 { return f.m.lastCounter }

// After says the server's counter had reached counter on a connection
// before this one: rbkit's goes on across clients, so a first frame at or
// below it comes from a server started again (Restarts), though the
// handshake reads the same (a process started again as pid 1 in a
// container, its profiling turned on by itself at boot). Frames published
// between the two connections are not counted lost.
func (f *RbkitFrames) After(counter int64) { f.m.counterFloor = counter }

// checkFrame checks that b is exactly one msgpack value of bounded nesting.
func checkFrame(s *msgpackScan, b []byte) error {
	s.reset()
	res, err := s.scan(b)
	switch {
	case res == scanError:
		return err
	case res == scanMore:
		return fmt.Errorf("the frame ends inside a value (%d bytes)", len(b))
	case s.deep:
		return fmt.Errorf("nested deeper than %d levels", maxNesting)
	case s.pos != len(b):
		return fmt.Errorf("%d bytes after the frame's map", len(b)-s.pos)
	}
	return nil
}

// ParseRbkitHandshake reads the reply to the "handshake" command.
func ParseRbkitHandshake(b []byte) (RbkitHandshake, error) {
	var s msgpackScan
	if err := checkFrame(&s, b); err != nil {
		return RbkitHandshake{}, fmt.Errorf("handshake reply: %w", err)
	}
	rr := newRbkitReader(newInterner())
	var msg rbMessage
	if err := rr.parse(b, &msg); err != nil {
		return RbkitHandshake{}, fmt.Errorf("handshake reply: %w", err)
	}
	if msg.typ != rbkitHandshake {
		return RbkitHandshake{}, fmt.Errorf("handshake reply: message type %d (%s), want 8 (handshake)", msg.typ, rbkitEventName(msg.typ))
	}
	return msg.handshake, nil
}
