package state

import (
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/proftop/proftop/decode"
)

// figures are one method's numbers over some span. Times in ns; total -1
// when only aggregated reports (self time) were seen; cpu counts only calls
// that measured it; ownCPU is the CPU time in the method itself, apart from
// its callees', where the source says it (a call tree's nodes). samples
// counts the stack samples with the method on top (its self time),
// totalSamples those it was anywhere in. A method's are kept in two parts
// (callFigures and sampleFigures, methodfigures.go); figures is both, as
// rows and window buckets read them.
type figures struct {
	calls, self, total, cpu int64
	min, max                int64
	samples, totalSamples   int64
	ownCPU                  int64
}

// has says the figures hold anything: calls or samples.
func (f *figures) has() bool { return f.calls > 0 || f.samples > 0 || f.totalSamples > 0 }

// methodStat is what a cumulative snapshot reads of every method: kept
// small and separate from the rest (methodInfo), because a snapshot walks
// all of them.
type methodStat struct {
	cum        callFigures // and samplesOf's cum
	line       int64
	totalKnown bool
	touched    bool // the method has figures in the second being filled (curs)
	dead       bool // merged into another slot
	sampler    bool // a frame of stack samples, not of measured calls
	lineMixed  bool // a sampled label seen at two first lines: line unknown
}

// methodInfo is the rest of a method's figures and marks: its window.
// Its names are apart (methodText), so that these, 100,000 of them in a
// wide picture, hold no pointer for the collector to look through.
type methodInfo struct {
	win       callFigures // completed buckets of the window; and samplesOf's win
	cur       int32       // its figures in curs (and samplesOf's cur), while touched
	mark      uint32      // last pass that visited it (a stack sample, an expiry)
	into      int32       // the slot a dead slot was merged into
	samplesAt int32       // its sample figures' index in sampleFigs plus one; 0: none
}

// methodTable holds one slot per distinct method (class, name, signature,
// line), kept across streams; ids map to slots per stream.
type methodTable struct {
	stats slotPages[methodStat]
	info  slotPages[methodInfo]
	texts slotPages[methodText] // by slot: its key, name and signature
	mark  uint32

	// Incremental cumulative rows: gens[slot] is the generation of the
	// slot's last change; a table built at generation g only needs the
	// rows of slots changed after g, as long as the set of listed methods
	// has not changed since (members).
	gen       uint32
	gens      []uint32
	members   uint32             // generation of the last change to which methods are listed
	rowOf     []int32            // slot -> row in the cumulative table, as of members
	listed    int                // rows of the cumulative table, as of members
	totalSelf int64              // cumulative self time of every method measured (not sampled)
	names     []string           // display names by slot; shared with snapshots
	shared    bool               // names is shared: copy before changing an element
	byKey     nameIndex          // a defined method's key (methodKey) -> slot
	byFrame   map[frameKey]int32 // stack frame name -> slot, for samples
	byDisplay nameIndex          // display name -> the first slot named so
	// keyOf and displayOf read a slot's names for byKey and byDisplay.
	keyOf, displayOf nameOf
	renames          uint64            // display names changed (setName), for the thread rows that show them
	ids              idTable           // method id -> slot, of the current stream
	pending          map[int64][]int32 // class id -> slots waiting for its name
	// waitsFor is the class id (of the stream that defined it) a method
	// waits for the name of, while that class is unknown: few methods
	// ever do, so it is a map rather than 8 bytes in every methodInfo.
	waitsFor map[int32]int64
	keys     keyArena // the bytes of defined methods' keys
	keyBuf   []byte   // a key being looked up
	callers  callerLists
	touched  []int32
	curs     slotPages[callFigures] // the second being filled, of the touched methods only
	slotBits []uint64               // a bitset of every slot, to put touched in order (sortSlots)
	// sampleFigs are the sample figures of the methods that have any
	// (methodfigures.go).
	sampleFigs []methodSamples
	stackBuf   []int32 // a sample's slots, reused
	sampled    bool    // stack samples have arrived
	// cpuMeasured: a call's CPU time has been measured (its thread's CPU
	// read at both ends); until then every method's CPU is unknown, not 0.
	// ownCPUMeasured: the source said a method's own CPU time (apart from
	// its callees').
	cpuMeasured, ownCPUMeasured bool

	// samplerSelf is the cumulative self time of the methods of stack
	// samples: a source that measures calls and also samples (a ProfilerJ
	// snapshot) has two views of its methods, each its own 100%.
	samplerSelf int64
	samples     int64 // stack samples since watching began (each on top of one method)
	measured    bool  // calls were measured
	sampledToo  bool  // and stack samples arrived (both: two views)

	bucketWidth time.Duration
	buckets     []windowBucket // completed buckets, oldest first
	lastEntries int            // the entries of the latest bucket
	maxBuckets  int
	bucketEnd   time.Time
	// dueNs is bucketEnd in nanoseconds (0 before it is set): a window on
	// trace time asks for a rotation only from then on, not at each event.
	dueNs int64

	max     int       // slots, at most
	refused untracked // methods turned away by a full table
	// nameBytes counts the bytes of the names the slots hold (keys, names,
	// signatures), at most max × nameBytesPerMethod: a peer that names its
	// methods with kilobytes each fills the table by bytes long before its
	// count (a name has at most decode.DefaultMaxString bytes).
	nameBytes int64
	window    windowSet

	// The order of the interface's pages (methodorder.go), and the slots
	// changed since its last snapshot (all of them: changedAll).
	order      *methodOrder
	changed    []int32
	changedAll bool
}

// nameBytesPerMethod is what a method's names may take on average: a
// JVM's are 30 to 150 bytes (class, method and signature), so the bound
// holds max-methods real methods, and 200,000 with hostile names cost
// about 50 MB of names, not 800 MB.
const nameBytesPerMethod = 256

// frameKey is a stack frame's name, as a sampled frame or as a frame of
// measured calls (the call tree's): the two are kept apart.
type frameKey struct {
	name     string
	measured bool
}

// methodNotTracked stands for a method a full table turned away.
const methodNotTracked = "(method not tracked)"

func (mt *methodTable) init(window time.Duration, limit int) {
	mt.max = limit
	mt.byKey = nameIndex{}
	mt.byDisplay = nameIndex{}
	mt.keyOf = func(slot int32) string { return mt.texts.at(slot).key() }
	mt.displayOf = func(slot int32) string { return mt.texts.at(slot).display() }
	mt.byFrame = map[frameKey]int32{}
	mt.pending = map[int64][]int32{}
	mt.waitsFor = map[int32]int64{}
	mt.bucketWidth = time.Second
	// The window is the second being filled plus the completed ones before it.
	mt.maxBuckets = max(int(window/mt.bucketWidth)-1, 1)
}

func (mt *methodTable) newStream() {
	mt.ids.reset()
	clear(mt.pending)
}

func (mt *methodTable) name(slot int32) string { return mt.names[slot] }

func (mt *methodTable) setName(slot int32, name string) {
	if mt.shared {
		mt.names = append([]string(nil), mt.names...)
		mt.shared = false
	}
	mt.names[slot] = name
	mt.renames++
	mt.touch(slot)
}

// room says a new method whose names take nameBytes bytes fits in the
// table: by count, and by the bytes of the names it holds.
func (mt *methodTable) room(nameBytes int) bool {
	return mt.stats.len() < mt.max && mt.nameBytes+int64(nameBytes) <= int64(mt.max)*nameBytesPerMethod
}

// newSlot makes a slot for a method whose names take nameBytes bytes;
// -1, and the method counted as not tracked, when the table is full. Its
// text's key goes in byKey; a frame's slot byFrame finds.
func (mt *methodTable) newSlot(text methodText, display string, nameBytes int) int32 {
	if !mt.room(nameBytes) {
		mt.refused.addName(display)
		return -1
	}
	mt.nameBytes += int64(nameBytes)
	slot := int32(mt.stats.len())
	mt.stats.add(methodStat{})
	mt.info.add(methodInfo{})
	mt.texts.add(text)
	mt.gens = append(mt.gens, mt.gen)
	mt.names = append(mt.names, display)
	mt.callers.add()
	mt.window.at = append(mt.window.at, 0)
	mt.noteChanged(slot)
	if key := text.key(); key != "" {
		mt.byKey.set(key, slot, mt.keyOf)
	}
	return slot
}

// byID returns the slot of a method id, a provisional one when the
// method's definition has not arrived yet; -1 when the table is full.
func (mt *methodTable) byID(id int64) int32 {
	if slot, ok := mt.ids.get(id); ok {
		return slot
	}
	name := "method#" + strconv.FormatInt(id, 10)
	key := "\x00" + name + "\x00" + strconv.Itoa(mt.stats.len())
	if !mt.room(len(key)) {
		mt.refused.addName(name)
		return -1
	}
	slot := mt.newSlot(provisionalText(key), name, len(key))
	mt.ids.set(id, slot, mt.stats.len())
	return slot
}

// methodKey is a method's key: its display name (class.method) first, so
// that the display name can be a part of it rather than a string of its own.
func methodKey(class, name, sig string, line int64) string {
	return string(appendMethodKey(nil, class, name, sig, line))
}

// appendMethodKey appends a method's key (methodKey) to b.
func appendMethodKey(b []byte, class, name, sig string, line int64) []byte {
	b = append(b, class...)
	b = append(b, '.')
	b = append(b, name...)
	b = append(b, sig...)
	b = append(b, ':')
	return strconv.AppendInt(b, line, 10)
}

// keepKey makes the key in keyBuf a string to keep: in the arena when the
// method's class is known (its key is final), else one of its own, which
// goes when the class's name arrives.
func (mt *methodTable) keepKey(classKnown bool) string {
	if classKnown {
		return mt.keys.keep(mt.keyBuf)
	}
	return string(mt.keyBuf)
}

// define names a method id; a provisional slot for it is renamed, or merged
// into the slot of the same method from an earlier stream.
func (mt *methodTable) define(e *decode.MethodDef, classes map[int64]string) {
	class, known := classes[e.ClassIDRef]
	if !known {
		class = "class#" + strconv.FormatInt(e.ClassIDRef, 10)
	}
	// The key is looked up from a buffer, and made a string only when a
	// method is kept under it: one known already has it.
	mt.keyBuf = appendMethodKey(mt.keyBuf[:0], class, e.Name, e.Signature, e.StartLineNumber)
	keyLen, displayLen := len(mt.keyBuf), len(class)+1+len(e.Name)
	key := ""
	slot, seen := mt.byKey.getBytes(mt.keyBuf, mt.keyOf)
	if seen {
		key = mt.texts.at(slot).key() // the same bytes
	}
	// An id whose slot was merged into another is defined afresh: the
	// merged slot is the survivor's, its name no longer its own.
	if prov, ok := mt.ids.get(e.MethodID); ok && !mt.stats.at(prov).dead && (!seen || prov != slot) {
		if seen {
			mt.merge(prov, slot)
		} else {
			// Named now: its names count instead of the provisional key
			// (a slot made already may take the table a name over its bound).
			key = mt.keepKey(known)
			mt.nameBytes += int64(keyLen + len(e.Name) + len(e.Signature) - len(mt.texts.at(prov).key()))
			mt.unfile(prov)
			mt.byKey.set(key, prov, mt.keyOf)
			mt.setName(prov, key[:displayLen])
			slot, seen = prov, true
		}
	}
	if !seen {
		cost := keyLen + len(e.Name) + len(e.Signature)
		if !mt.room(cost) {
			// Counted as its events will name it, so that it counts once.
			mt.refused.addName("method#" + strconv.FormatInt(e.MethodID, 10))
			return
		}
		key = mt.keepKey(known)
		slot = mt.newSlot(keyText(key, len(class), len(e.Name), len(e.Signature)), key[:displayLen], cost)
	}
	display := key[:displayLen] // shares the key's bytes
	mt.ids.set(e.MethodID, slot, mt.stats.len())
	// The name and signature as the key holds them: the decoder's are not kept.
	*mt.texts.at(slot) = keyText(key, len(class), len(e.Name), len(e.Signature))
	mt.stats.at(slot).line = e.StartLineNumber
	mt.apart(slot, display)
	mt.touch(slot) // its row changes
	if !known {
		if mt.waitsFor[slot] != e.ClassIDRef { // waiting once per class, however often it is defined
			mt.pending[e.ClassIDRef] = append(mt.pending[e.ClassIDRef], slot)
		}
		mt.waitsFor[slot] = e.ClassIDRef
	} else if len(mt.waitsFor) > 0 {
		delete(mt.waitsFor, slot)
	}
}

// classDefined names the methods that were waiting for their class.
func (mt *methodTable) classDefined(id int64, class string) {
	merged := false
	for _, slot := range mt.pending[id] {
		st := mt.stats.at(slot)
		if st.dead || mt.waitsFor[slot] != id {
			continue
		}
		text := mt.texts.at(slot)
		name, sig := text.name(), text.sig()
		mt.keyBuf = appendMethodKey(mt.keyBuf[:0], class, name, sig, st.line)
		other, ok := mt.byKey.getBytes(mt.keyBuf, mt.keyOf)
		if ok && other != slot {
			mt.merge(slot, other)
			merged = true
			continue
		}
		key := text.key() // its key already (a class named as its placeholder)
		if !ok {
			key = mt.keepKey(true)
		}
		mt.nameBytes += int64(len(key) - len(text.key()))
		mt.unfile(slot)
		mt.byKey.set(key, slot, mt.keyOf)
		*text = keyText(key, len(class), len(name), len(sig))
		display := key[:len(class)+1+len(name)] // shares the key's bytes
		mt.setName(slot, display)
		mt.apart(slot, display)
		delete(mt.waitsFor, slot)
	}
	delete(mt.pending, id)
	if merged {
		// One pass for all the merges: the ids of merged slots name the survivors.
		mt.ids.remap(func(slot int32) int32 {
			if mt.stats.at(slot).dead {
				return mt.live(slot)
			}
			return slot
		})
	}
}

// apart keeps overloads apart on screen: when two methods share a display
// name (class.method), both show their signature, or their line when
// that is the same too.
func (mt *methodTable) apart(slot int32, display string) {
	other, ok := mt.byDisplay.get(display, mt.displayOf)
	if !ok || other == slot || mt.stats.at(other).dead {
		mt.byDisplay.set(display, slot, mt.displayOf)
		return
	}
	for _, s := range []int32{other, slot} {
		suffix := mt.texts.at(s).sig()
		if suffix == "" || mt.texts.at(other).sig() == mt.texts.at(slot).sig() {
			suffix = ":" + strconv.FormatInt(mt.stats.at(s).line, 10)
		}
		mt.setName(s, display+suffix)
	}
}

// unfile takes a slot's key out of byKey, if the key finds that slot
// (another slot may hold the same key since).
func (mt *methodTable) unfile(slot int32) {
	key := mt.texts.at(slot).key()
	if key == "" {
		return
	}
	if s, ok := mt.byKey.get(key, mt.keyOf); ok && s == slot {
		mt.byKey.remove(key, mt.keyOf)
	}
}

// merge moves the cumulative figures of one slot into another. The window
// of the merged slot is dropped (it is at most a window's worth of data).
//
// The merged slot's key no longer finds it: a slot found by key is always
// a live one. A dead slot's key once led a definition back to it, and the
// live slot it was merged into was merged into it in turn; following the
// merges then never ended (a stream that named a class twice, differently).
func (mt *methodTable) merge(from, into int32) {
	into = mt.live(into)
	if from == into || mt.stats.at(from).dead {
		return
	}
	mt.unfile(from)
	f, t := mt.stats.at(from), mt.stats.at(into)
	if mt.cumHas(from) {
		t.cum.merge(&f.cum)
		if ms := mt.samplesOf(from); ms != nil {
			mt.samplesFor(into).cum.add(ms.cum)
		}
	}
	f.dead = true
	f.cum = callFigures{}
	if ms := mt.samplesOf(from); ms != nil {
		ms.cum = sampleFigures{}
	}
	if w := mt.windowOf(from); w.has() {
		mt.addWindowSelf(from, -w.self, -w.samples)
	}
	mt.leave(from)
	mt.info.at(from).into = into
	mt.touch(from)
	mt.touch(into)
	mt.members = mt.gen
}

// live follows a merged slot to the slot that took its place: calls
// opened before a merge still end on the surviving method.
func (mt *methodTable) live(slot int32) int32 {
	for mt.stats.at(slot).dead {
		slot = mt.info.at(slot).into
	}
	return slot
}

// record adds finished calls to a method.
func (mt *methodTable) record(slot int32, calls, self, total, min, max, cpu int64) {
	if cpu >= 0 {
		mt.cpuMeasured = true
	}
	slot = mt.live(slot)
	st := mt.change(slot)
	st.cum.add(calls, self, total, min, max, cpu)
	mt.totalSelf += self
	mt.measured = true
	if total >= 0 {
		st.totalKnown = true
	}
	mt.curs.at(mt.info.at(slot).cur).add(calls, self, total, min, max, cpu)
	mt.addWindowSelf(slot, self, 0)
	if mt.curHas(slot) {
		mt.join(slot)
	}
}

// recordOwnCPU adds the CPU time spent in a method itself, which a call
// tree's node may say apart from its cumulated CPU time; -1: not said.
func (mt *methodTable) recordOwnCPU(slot int32, ns int64) {
	if ns < 0 || slot < 0 {
		return
	}
	mt.ownCPUMeasured = true
	slot = mt.live(slot)
	mt.change(slot)
	ms := mt.samplesFor(slot)
	ms.cum.ownCPU += ns
	ms.cur.ownCPU += ns
	if mt.curHas(slot) {
		mt.join(slot)
	}
}

// recordSamples adds stack samples to a method: self is the time they
// stand for when the method was on top (n of them), total when it was
// anywhere (nTotal).
func (mt *methodTable) recordSamples(slot int32, n, nTotal, self, total int64) {
	slot = mt.live(slot)
	st := mt.change(slot)
	samples := sampleFigures{samples: n, totalSamples: nTotal}
	ms := mt.samplesFor(slot)
	st.cum.addSampled(self, total)
	ms.cum.add(samples)
	st.totalKnown = true
	mt.samplerSelf += self
	mt.samples += n
	mt.sampledToo = true
	mt.curs.at(mt.info.at(slot).cur).addSampled(self, total)
	ms.cur.add(samples)
	mt.addWindowSelf(slot, self, n)
	if mt.curHas(slot) {
		mt.join(slot)
	}
}

// change readies a method's figures for an addition.
func (mt *methodTable) change(slot int32) *methodStat {
	st := mt.stats.at(slot)
	if !mt.cumHas(slot) {
		mt.members = mt.gen // a method joins the cumulative table
	}
	mt.touch(slot)
	if !st.touched {
		st.touched = true
		mt.touched = append(mt.touched, slot)
		mt.info.at(slot).cur = int32(mt.curs.len())
		mt.curs.add(callFigures{})
	}
	return st
}

// rotate closes the seconds that have passed into the window.
func (mt *methodTable) rotate(now time.Time) {
	defer func() { mt.dueNs = mt.bucketEnd.UnixNano() }()
	if mt.bucketEnd.IsZero() {
		mt.bucketEnd = now.Truncate(mt.bucketWidth).Add(mt.bucketWidth)
		return
	}
	for n := 0; !now.Before(mt.bucketEnd); n++ {
		if n > mt.maxBuckets {
			// Idle for longer than the window: everything has expired.
			mt.bucketEnd = now.Truncate(mt.bucketWidth).Add(mt.bucketWidth)
			for len(mt.buckets) > 0 {
				mt.expireOldest()
			}
			return
		}
		mt.closeBucket()
		mt.bucketEnd = mt.bucketEnd.Add(mt.bucketWidth)
	}
}

func (mt *methodTable) reset() {
	for i := range mt.stats.len() {
		st, in := mt.stats.at(int32(i)), mt.info.at(int32(i))
		st.cum, st.touched, st.totalKnown = callFigures{}, false, false
		in.win = callFigures{}
	}
	clear(mt.sampleFigs)
	mt.touched = mt.touched[:0]
	mt.curs.reset()
	mt.buckets = mt.buckets[:0]
	mt.clearWindow()
	mt.totalSelf, mt.samplerSelf, mt.samples, mt.members = 0, 0, 0, mt.gen
	mt.changed, mt.changedAll = mt.changed[:0], true
	mt.callers.reset()
}

// methodRow fills a snapshot row from a method's figures.
func (mt *methodTable) methodRow(slot int, f *figures) Method {
	st := mt.stats.at(int32(slot))
	m := Method{Slot: int32(slot), Line: int32(st.line), Calls: f.calls, Self: time.Duration(f.self), Total: -1, CPU: time.Duration(f.cpu),
		OwnCPU: time.Duration(f.ownCPU), Samples: f.samples, TotalSamples: f.totalSamples, Sampler: st.sampler && mt.twoViews(), Timed: f.max >= 0}
	if st.totalKnown {
		m.Total = time.Duration(f.total)
	}
	if f.min != math.MaxInt64 {
		m.Min = time.Duration(f.min)
	}
	if f.max > 0 {
		m.Max = time.Duration(f.max)
	}
	return m
}

// rows lists every method with calls, cumulative or over the window, with
// the total self time and the names (a shared slice). A table built at
// generation built (reused from a released snapshot of the same view) is
// patched where methods changed since, instead of rebuilt; recent rows only
// visit the methods of the window (window.go).
func (mt *methodTable) rows(recent bool, reused []Method, built uint32) (rows []Method, total selfTotals, gen uint32) {
	gen = mt.gen
	mt.gen++
	mt.shared = true
	if recent {
		return mt.recentRows(reused, built), mt.totals(true), gen
	}
	if built != noGen && built >= mt.members && len(reused) == mt.listed && mt.members != noGen {
		for slot, g := range mt.gens {
			// Slots made since the build have no calls (or the members would have changed).
			if g > built && slot < len(mt.rowOf) && mt.cumHas(int32(slot)) && !mt.stats.at(int32(slot)).dead {
				cum := mt.cumOf(int32(slot))
				reused[mt.rowOf[slot]] = mt.methodRow(slot, &cum)
			}
		}
		return reused, mt.totals(false), gen
	}
	out := reused[:0]
	if len(mt.rowOf) < mt.stats.len() {
		mt.rowOf = make([]int32, mt.stats.len())
	}
	for slot := range mt.stats.len() {
		st := mt.stats.at(int32(slot))
		mt.rowOf[slot] = int32(len(out))
		if !st.dead && mt.cumHas(int32(slot)) {
			cum := mt.cumOf(int32(slot))
			out = append(out, mt.methodRow(slot, &cum))
		}
	}
	mt.listed = len(out) // membership is unchanged: members stays
	return out, mt.totals(false), gen
}

// totals is the self time of every method of a view (the 100% of their
// percentages), and their samples.
func (mt *methodTable) totals(recent bool) selfTotals {
	if recent {
		return mt.window.self
	}
	return selfTotals{mt.totalSelf, mt.samplerSelf, mt.samples}
}

// noGen marks a table that cannot be patched.
const noGen = ^uint32(0)

// windowOf is a method's figures over the window, the current second included.
func (mt *methodTable) windowOf(slot int32) figures {
	in := mt.info.at(slot)
	w := in.win
	var s sampleFigures
	ms := mt.samplesOf(slot)
	if ms != nil {
		s = ms.win
	}
	if mt.stats.at(slot).touched {
		w.merge(mt.curs.at(in.cur))
		if ms != nil {
			s.add(ms.cur)
		}
	}
	return joinFigures(&w, &s)
}

// both is a method's figures over the window and since the start.
func (mt *methodTable) both(slot int32) (recent, cumulative Method, ok bool) {
	if slot < 0 || int(slot) >= mt.stats.len() {
		return Method{}, Method{}, false
	}
	w, cum := mt.windowOf(slot), mt.cumOf(slot)
	return mt.methodRow(int(slot), &w), mt.methodRow(int(slot), &cum), true
}

// MethodsSince returns the figures since the start (or the latest reset)
// of the methods in slots, in that order, each in the slot of its place:
// what a picture keeps of its rows beside their window.
func (a *Aggregator) MethodsSince(slots []int32) []Method {
	a.mu.Lock()
	defer a.mu.Unlock()
	out := make([]Method, len(slots))
	for i, slot := range slots {
		if _, cum, ok := a.methods.both(slot); ok {
			out[i] = cum
		}
		out[i].Slot = int32(i)
	}
	return out
}

// frameSlot returns the slot of a stack frame's method, by its name as
// the stack gives it ("pkg.Class.method", with its descriptor after it when
// the source sends one, so that overloads stay apart). The frames of stack
// samples and those of a measured call tree are apart: they are the two
// views of a source that has both.
func (mt *methodTable) frameSlot(frame string, measured bool) int32 {
	key := frameKey{frame, measured} // the frame's own bytes: its name is kept once
	if slot, ok := mt.byFrame[key]; ok {
		return slot
	}
	if !mt.room(len(frame)) {
		mt.refused.addName(frame)
		return -1
	}
	display := frame // the signature is the rest of the frame
	// A JVM descriptor has no space; a Ruby label's parentheses do
	// ("block (2 levels) in Foo#bar", "<top (required)>"): they are its name.
	if i := strings.IndexByte(frame, '('); i > 0 && !strings.ContainsRune(frame, ' ') {
		display = frame[:i]
	}
	nameAt := len(display) // no name without a dot
	if i := strings.LastIndexByte(display, '.'); i > 0 {
		nameAt = i + 1
	}
	slot := mt.newSlot(frameText(frame, len(display), nameAt), display, len(frame))
	mt.stats.at(slot).sampler = !measured
	mt.byFrame[key] = slot
	return slot
}

// frameSlots looks a stack's frames up (frameSlot) into stackBuf, which
// it returns: innermost first, within maxStackDepth.
func (mt *methodTable) frameSlots(st *decode.Stack, measured bool) []int32 {
	slots := mt.stackBuf[:0]
	for _, f := range st.Methods[:min(len(st.Methods), maxStackDepth)] {
		slots = append(slots, mt.frameSlot(f, measured))
	}
	mt.stackBuf = slots
	return slots
}

// sample adds n stack samples of one stack that stand for w ns: the
// innermost frame's method gets them as self time, every method on the
// stack (once, however often it recurs) as total time, and each frame's
// caller is the frame below it. firstLines says the stack's lines are
// its methods' first lines (rbkit's), which the methods take as theirs.
func (mt *methodTable) sample(st *decode.Stack, n, w int64, firstLines bool) {
	if len(st.Methods) == 0 {
		return
	}
	slots := mt.frameSlots(st, false)
	if firstLines {
		for i, slot := range slots {
			if slot >= 0 && i < len(st.Lines) {
				mt.firstLine(slot, st.Lines[i])
			}
		}
	}
	mt.mark++
	for i, slot := range slots {
		if slot < 0 {
			continue // not tracked: its share is left out
		}
		in := mt.info.at(slot)
		if in.mark == mt.mark {
			continue
		}
		in.mark = mt.mark
		if i == 0 {
			mt.recordSamples(slot, n, n, w, w)
		} else {
			mt.recordSamples(slot, 0, n, 0, w)
		}
	}
	for i := 0; i+1 < len(slots); i++ {
		mt.called(slots[i], slots[i+1], n)
	}
	mt.sampled = true
}

// firstLine takes a sampled method's first line. Two methods may share a
// label (two blocks of one method): a label seen at two lines has none.
func (mt *methodTable) firstLine(slot int32, line int64) {
	st := mt.stats.at(slot)
	if line <= 0 || st.line == line || st.lineMixed {
		return
	}
	if st.line == 0 {
		st.line = line
	} else {
		st.line, st.lineMixed = 0, true
	}
	mt.touch(slot) // its row changes
}
