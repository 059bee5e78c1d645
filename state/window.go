package state

import (
	"cmp"
	"slices"
)

// The recent view lists the methods of the window. A snapshot of it costs
// what changed since the table it reuses was built, not what the window
// holds: the aggregator keeps the window's members in a dense list (the
// table's rows are in its order) with a journal of the methods that joined
// and left it, and their self time summed. A released table is brought up
// to date by replaying the journal on it and rewriting the rows of the
// methods whose window figures changed since it was built.

// windowSet is the methods of the window: those with calls or samples in
// a completed bucket or in the second being filled.
type windowSet struct {
	slots   []int32 // the members, in the order of the recent table's rows
	at      []int32 // slot -> its index in slots plus one; 0 when not a member
	journal []windowChange
	since   uint32 // the journal holds every change from this generation on
	self    selfTotals
}

// windowChange is a method that joined the window (appended to slots) or
// left it (index: its row, which the last row replaced).
type windowChange struct {
	gen   uint32
	slot  int32
	index int32 // -1 for a join
}

// journalFloor is the least length at which the journal is cut. Beyond the
// window's own size it is cut by half, its older changes dropped: tables
// built before them are rebuilt, which costs no more than replaying them.
var journalFloor = 4096 // a variable for the tests

func (mt *methodTable) note(c windowChange) {
	w := &mt.window
	if n := len(w.journal); n >= max(journalFloor, len(w.slots)) {
		// Cut where a generation begins, so that the journal holds every
		// change from since on.
		gen := w.journal[n/2].gen
		k, _ := slices.BinarySearchFunc(w.journal, gen, func(c windowChange, g uint32) int { return cmp.Compare(c.gen, g) })
		if k == 0 {
			k, gen = n, mt.gen
		}
		w.journal, w.since = w.journal[:copy(w.journal, w.journal[k:])], gen
	}
	w.journal = append(w.journal, c)
}

// join adds a method to the window (its first call or sample in it).
func (mt *methodTable) join(slot int32) {
	w := &mt.window
	if w.at[slot] != 0 {
		return
	}
	w.slots = append(w.slots, slot)
	w.at[slot] = int32(len(w.slots))
	mt.note(windowChange{gen: mt.gen, slot: slot, index: -1})
}

// leave drops a method from the window: its last bucket expired, or it
// was merged into another slot.
func (mt *methodTable) leave(slot int32) {
	w := &mt.window
	if w.at[slot] == 0 {
		return
	}
	i := w.at[slot] - 1
	last := w.slots[len(w.slots)-1]
	w.slots[i] = last
	w.at[last] = i + 1
	w.slots = w.slots[:len(w.slots)-1]
	w.at[slot] = 0
	mt.note(windowChange{gen: mt.gen, slot: slot, index: i})
}

// addWindowSelf keeps the window's self time, apart for the frames of
// stack samples and measured calls, and its samples (see selfTotals).
func (mt *methodTable) addWindowSelf(slot int32, self, samples int64) {
	if mt.stats.at(slot).sampler {
		mt.window.self.sampled += self
	} else {
		mt.window.self.measured += self
	}
	mt.window.self.samples += samples
}

// clearWindow empties the window (a reset).
func (mt *methodTable) clearWindow() {
	w := &mt.window
	for _, slot := range w.slots {
		w.at[slot] = 0
	}
	w.slots = w.slots[:0]
	w.journal, w.since = w.journal[:0], mt.gen
	w.self = selfTotals{}
}

// recentRows lists the methods of the window. A table built at
// generation built (reused from a released snapshot of the recent view) is
// brought up to date when the journal reaches back to it.
func (mt *methodTable) recentRows(reused []Method, built uint32) []Method {
	w := &mt.window
	if built != noGen && built >= w.since && w.since != noGen {
		// Room for the methods that joined since, made once.
		rows := slices.Grow(reused, max(len(w.slots)-len(reused), 0))
		for _, c := range w.journal {
			switch {
			case c.gen <= built:
				// Already in the table.
			case c.index < 0:
				rows = append(rows, Method{Slot: c.slot})
			default:
				last := len(rows) - 1
				rows[c.index] = rows[last]
				rows = rows[:last]
			}
		}
		if len(rows) == len(w.slots) {
			for slot, g := range mt.gens {
				if g > built && w.at[slot] != 0 {
					win := mt.windowOf(int32(slot))
					rows[w.at[slot]-1] = mt.methodRow(slot, &win)
				}
			}
			return rows
		}
		reused = rows // the journal does not match the table: rebuild it
	}
	out := slices.Grow(reused[:0], len(w.slots))
	for _, slot := range w.slots {
		win := mt.windowOf(slot)
		out = append(out, mt.methodRow(int(slot), &win))
	}
	return out
}
