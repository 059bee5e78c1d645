package state

import (
	"hash/maphash"
	"math"
	"math/rand/v2"
)

// The aggregator's tables are bounded (Options): a source with more
// threads, methods or monitors than that is shown in part, and the rest is
// counted, so that the screen says what it leaves out ("12,345 more
// threads not tracked") instead of growing without limit.

// NotTracked counts what a full table turned away: distinct threads,
// methods and monitors the picture leaves out. Counts up to
// NotTrackedExactUpTo are exact; larger ones are estimates, within a
// fraction of a percent.
type NotTracked struct {
	Threads  int64 `json:"threads"`
	Methods  int64 `json:"methods"`
	Monitors int64 `json:"monitors"`
	// MonitorsForgotten counts the idle locks a full table dropped to make
	// room (since the start or the latest reset; exact up to
	// NotTrackedExactUpTo, then an estimate): their figures since watching
	// began went with them.
	MonitorsForgotten int64 `json:"monitorsForgotten,omitempty"`
}

// untracked counts the distinct keys a full table refused, in fixed
// memory whatever their number: exactly while they are few (a set of
// their hashes), then from a bitmap of the hashes, read by linear
// counting: within a fraction of a percent up to millions.
type untracked struct {
	few  hashSet  // the hashes, while there are at most exactFew; then none
	many bool     // more than exactFew: the bitmap counts
	bits []uint64 // nil until the first refusal
	set  int      // bits set
}

const (
	// untrackedBits is the bitmap's size: 128 KiB, taken at the first refusal.
	untrackedBits = 1 << 20
	exactFew      = NotTrackedExactUpTo
)

// NotTrackedExactUpTo is the largest count of NotTracked known exactly.
const NotTrackedExactUpTo = 16_384

func (u *untracked) add(h uint64) {
	if u.bits == nil {
		u.bits = make([]uint64, untrackedBits/64)
	}
	if !u.many && !u.few.add(h, exactFew) {
		u.many, u.few = true, hashSet{} // many: the bitmap counts from here
	}
	i := h & (untrackedBits - 1)
	w, b := i/64, uint64(1)<<(i%64)
	if u.bits[w]&b == 0 {
		u.bits[w] |= b
		u.set++
	}
}

func (u *untracked) addID(id int64) { u.add(hashID(id)) }

var untrackedSeed = maphash.MakeSeed()

func (u *untracked) addName(s string) { u.add(maphash.String(untrackedSeed, s)) }

// count estimates how many distinct keys were added.
func (u *untracked) count() int64 {
	if !u.many {
		return int64(u.few.n)
	}
	m := float64(untrackedBits)
	zero := max(m-float64(u.set), 1) // a full bitmap: the estimate is a lower bound
	return int64(math.Round(-m * math.Log(zero/m)))
}

func (u *untracked) reset() { *u = untracked{} }

// idSeed makes the hashes of ids this process's own: a peer that knew
// them could send ids that all fall in one slot of an open-addressing
// table (recentClasses, hashSet), each lookup then a walk of all of them.
var idSeed = rand.Uint64()

// hashID is an id's hash, seeded (idSeed).
func hashID(id int64) uint64 { return mix(uint64(id) ^ idSeed) }

// mix spreads the bits of an id (splitmix64's finalizer): ids often
// differ only in their low bits.
func mix(x uint64) uint64 {
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	x ^= x >> 31
	return x
}

// maxStackDepth bounds the frames kept of one stack, innermost first: a
// stack deeper than that is cut, so that a peer's stacks cannot take
// memory without limit.
const maxStackDepth = 1024

// maxClasses bounds the class names kept per stream.
const maxClasses = 1 << 17

// hashSet is a set of hashes, open addressing with linear probing: the
// monitors an H2 replay drops to make room (140,000 in two minutes) went
// into a map, whose growth cost more than the rest of counting them.
type hashSet struct {
	slots []uint64 // 0: empty; the hash 0 is held by zero
	zero  bool
	n     int
}

// add puts h in the set, which holds at most limit hashes; false, h not
// added, when it is new and the set is full.
func (s *hashSet) add(h uint64, limit int) bool {
	if h == 0 {
		if !s.zero {
			if s.n >= limit {
				return false
			}
			s.zero, s.n = true, s.n+1
		}
		return true
	}
	if 2*(s.n+1) > len(s.slots) {
		if s.has(h) {
			return true
		}
		if s.n >= limit {
			return false
		}
		s.grow()
	}
	mask := uint64(len(s.slots) - 1)
	for i := h & mask; ; i = (i + 1) & mask {
		switch s.slots[i] {
		case h:
			return true
		case 0:
			if s.n >= limit {
				return false
			}
			s.slots[i] = h
			s.n++
			return true
		}
	}
}

// has says h is in the set.
func (s *hashSet) has(h uint64) bool {
	if h == 0 {
		return s.zero
	}
	if len(s.slots) == 0 {
		return false
	}
	mask := uint64(len(s.slots) - 1)
	for i := h & mask; s.slots[i] != 0; i = (i + 1) & mask {
		if s.slots[i] == h {
			return true
		}
	}
	return false
}

// grow doubles the slots (at least 64), placing the hashes anew.
func (s *hashSet) grow() {
	old := s.slots
	s.slots = make([]uint64, max(64, 2*len(old)))
	mask := uint64(len(s.slots) - 1)
	for _, h := range old {
		if h == 0 {
			continue
		}
		i := h & mask
		for s.slots[i] != 0 {
			i = (i + 1) & mask
		}
		s.slots[i] = h
	}
}
