package state

import (
	"encoding/binary"
	"math"
)

// windowBucket is one second of the window: the figures of the methods with
// calls or samples in it, in slot order, packed as varints. A wide window
// (100,000 methods active every second) holds a million of them: packed,
// an entry takes some 10 to 20 bytes instead of 72.
//
// An entry is the slot's distance from the previous entry's, a byte of
// flags saying which of the rarer fields follow, then calls, self, total,
// and those fields. Most entries of a wide window are a method called once
// in the second, without callees: one call, its total its self time, and
// its min and max its total; flags say so instead of four varints, which
// halves such an entry (about 6 bytes instead of 15).
type windowBucket []byte

const (
	hasCPU         = 1 << iota // cpu follows
	hasMin                     // min follows (else math.MaxInt64: no timed call)
	hasMax                     // max follows (else -1)
	hasSamples                 // samples and totalSamples follow
	hasOwnCPU                  // ownCPU follows
	totalIsSelf                // total does not follow: it is self
	minMaxAreTotal             // neither min nor max follows: both are total
	oneCall                    // calls does not follow: it is 1
)

// appendEntry packs one method's figures; prev is the previous entry's slot.
func (b windowBucket) appendEntry(prev, slot int32, f *figures) windowBucket {
	var flags byte
	if f.cpu != 0 {
		flags |= hasCPU
	}
	if f.calls == 1 {
		flags |= oneCall
	}
	if f.total == f.self {
		flags |= totalIsSelf
	}
	switch {
	case f.min != math.MaxInt64 && f.min == f.total && f.max == f.total:
		flags |= minMaxAreTotal
	default:
		if f.min != math.MaxInt64 {
			flags |= hasMin
		}
		if f.max != -1 {
			flags |= hasMax
		}
	}
	if f.samples != 0 || f.totalSamples != 0 {
		flags |= hasSamples
	}
	if f.ownCPU != 0 {
		flags |= hasOwnCPU
	}
	b = binary.AppendUvarint(b, uint64(slot-prev))
	b = append(b, flags)
	if flags&oneCall == 0 {
		b = binary.AppendVarint(b, f.calls)
	}
	b = binary.AppendVarint(b, f.self)
	if flags&totalIsSelf == 0 {
		b = binary.AppendVarint(b, f.total)
	}
	if flags&hasCPU != 0 {
		b = binary.AppendVarint(b, f.cpu)
	}
	if flags&hasMin != 0 {
		b = binary.AppendVarint(b, f.min)
	}
	if flags&hasMax != 0 {
		b = binary.AppendVarint(b, f.max)
	}
	if flags&hasSamples != 0 {
		b = binary.AppendVarint(b, f.samples)
		b = binary.AppendVarint(b, f.totalSamples)
	}
	if flags&hasOwnCPU != 0 {
		b = binary.AppendVarint(b, f.ownCPU)
	}
	return b
}

// entry unpacks the entry at pos, after the one of slot prev; it returns
// the position of the next entry.
func (b windowBucket) entry(pos int, prev int32) (slot int32, f figures, next int) {
	uv := func() uint64 {
		v, n := binary.Uvarint(b[pos:])
		pos += n
		return v
	}
	sv := func() int64 {
		v, n := binary.Varint(b[pos:])
		pos += n
		return v
	}
	slot = prev + int32(uv())
	flags := b[pos]
	pos++
	f.calls = 1
	if flags&oneCall == 0 {
		f.calls = sv()
	}
	f.self = sv()
	f.total = f.self
	if flags&totalIsSelf == 0 {
		f.total = sv()
	}
	f.min, f.max = math.MaxInt64, -1
	if flags&minMaxAreTotal != 0 {
		f.min, f.max = f.total, f.total
	}
	if flags&hasCPU != 0 {
		f.cpu = sv()
	}
	if flags&hasMin != 0 {
		f.min = sv()
	}
	if flags&hasMax != 0 {
		f.max = sv()
	}
	if flags&hasSamples != 0 {
		f.samples, f.totalSamples = sv(), sv()
	}
	if flags&hasOwnCPU != 0 {
		f.ownCPU = sv()
	}
	return slot, f, pos
}

// closeBucket closes the second being filled into the window.
func (mt *methodTable) closeBucket() {
	var b windowBucket
	if len(mt.buckets) >= mt.maxBuckets {
		b = mt.expireOldest()
	}
	// Sized at once, as the last second's took per method: a bucket of a
	// wide window (a megabyte) grown by appends is copied a dozen times.
	if n := len(mt.buckets); n > 0 && len(mt.buckets[n-1]) > 0 {
		last := mt.buckets[n-1]
		if want := len(last)/max(mt.lastEntries, 1)*len(mt.touched) + len(last)/8; cap(b) < want {
			b = make(windowBucket, 0, want)
		}
	}
	mt.lastEntries = len(mt.touched)
	b = b[:0]
	mt.slotBits = sortSlots(mt.touched, mt.stats.len(), mt.slotBits)
	prev := int32(0)
	for _, slot := range mt.touched {
		in := mt.info.at(slot)
		cur := mt.curOf(slot)
		b = b.appendEntry(prev, slot, &cur)
		prev = slot
		in.win.merge(mt.curs.at(in.cur))
		if ms := mt.samplesOf(slot); ms != nil {
			ms.win.add(ms.cur)
			ms.cur = sampleFigures{}
		}
		mt.stats.at(slot).touched = false
	}
	mt.touched = mt.touched[:0]
	mt.curs.reset()
	mt.buckets = append(mt.buckets, b)
}

// expireOldest drops the oldest bucket from the window; it returns the
// bucket's storage for reuse.
func (mt *methodTable) expireOldest() windowBucket {
	old := mt.buckets[0]
	mt.buckets = mt.buckets[:copy(mt.buckets, mt.buckets[1:])]
	// min and max cannot be subtracted: the methods still in the window
	// get them again from the buckets left, in one pass over them.
	mt.mark++
	redo := false
	prev := int32(0)
	for pos := 0; pos < len(old); {
		var slot int32
		var e figures
		slot, e, pos = old.entry(pos, prev)
		prev = slot
		in := mt.info.at(slot)
		mt.touch(slot) // its window figures change
		if !mt.stats.at(slot).dead {
			mt.addWindowSelf(slot, -e.self, -e.samples)
		}
		in.win.calls -= e.calls
		in.win.self -= e.self
		in.win.total -= e.total
		in.win.cpu -= e.cpu
		ms := mt.samplesOf(slot)
		if ms != nil {
			ms.win.add(sampleFigures{samples: -e.samples, totalSamples: -e.totalSamples, ownCPU: -e.ownCPU})
		}
		if !mt.winHas(slot) {
			in.win = callFigures{}
			if ms != nil {
				ms.win = sampleFigures{}
			}
			if !mt.stats.at(slot).touched || !mt.curHas(slot) {
				mt.leave(slot)
			}
			continue
		}
		in.win.min, in.win.max = math.MaxInt64, -1
		in.mark, redo = mt.mark, true
	}
	if !redo {
		return old
	}
	for _, b := range mt.buckets {
		prev := int32(0)
		for pos := 0; pos < len(b); {
			var slot int32
			var e figures
			slot, e, pos = b.entry(pos, prev)
			prev = slot
			if in := mt.info.at(slot); in.mark == mt.mark {
				in.win.min = min(in.win.min, e.min)
				in.win.max = max(in.win.max, e.max)
			}
		}
	}
	return old
}
