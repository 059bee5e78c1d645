package state

import "sort"

// callerCount counts the calls of a method from one caller.
type callerCount struct {
	slot  int32
	calls int64
}

// maxCallers bounds the callers kept per method; when full, the least
// frequent one makes way (an approximate top list, which is what a
// drill-in shows).
const maxCallers = 8

// callerLists holds every method's callers. A slot has an index into the
// lists (4 bytes) rather than a list of its own (a 24-byte slice header):
// most methods of a wide picture are called by none that is measured, and
// 100,000 empty headers are 2.4 MB.
type callerLists struct {
	of    []int32 // slot -> its list's index in lists plus one; 0: none yet
	lists [][]callerCount
}

// add makes room for a new slot, with no callers.
func (c *callerLists) add() { c.of = append(c.of, 0) }

// len is the number of slots.
func (c *callerLists) len() int { return len(c.of) }

// get returns a slot's callers (nil: none).
func (c *callerLists) get(slot int32) []callerCount {
	if i := c.of[slot]; i > 0 {
		return c.lists[i-1]
	}
	return nil
}

// list returns the list of a slot's callers, made if need be, to change.
func (c *callerLists) list(slot int32) *[]callerCount {
	if c.of[slot] == 0 {
		c.lists = append(c.lists, nil)
		c.of[slot] = int32(len(c.lists))
	}
	return &c.lists[c.of[slot]-1]
}

// reset empties every list, keeping the storage.
func (c *callerLists) reset() {
	for i := range c.lists {
		c.lists[i] = c.lists[i][:0]
	}
}

// called notes who called a method, n times (calls, or samples).
func (mt *methodTable) called(slot, caller int32, n int64) {
	if caller < 0 || slot < 0 {
		return
	}
	slot, caller = mt.live(slot), mt.live(caller)
	list := mt.callers.list(slot)
	cs := *list
	low := -1
	for i := range cs {
		if cs[i].slot == caller {
			cs[i].calls += n
			return
		}
		if low < 0 || cs[i].calls < cs[low].calls {
			low = i
		}
	}
	if len(cs) < maxCallers {
		*list = append(cs, callerCount{slot: caller, calls: n})
		return
	}
	cs[low] = callerCount{slot: caller, calls: cs[low].calls + n}
}

func (mt *methodTable) callersOf(slot int32) []Caller {
	if slot < 0 || int(slot) >= mt.callers.len() {
		return nil
	}
	cs := mt.callers.get(slot)
	out := make([]Caller, 0, len(cs))
	for _, c := range cs {
		out = append(out, Caller{Name: mt.names[c.slot], Calls: c.calls})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Calls > out[j].Calls })
	return out
}
