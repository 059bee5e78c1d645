package state

// idTable maps the current stream's method ids to slots. Profilers number
// their methods densely from 1, so ids below a bound proportional to the
// methods known live in a flat array, one load per event instead of a map
// lookup (a tenth of a wide replay's CPU); other ids go to a map. The
// array never grows beyond four entries per method known, whatever ids a
// peer sends, nor does the map.
type idTable struct {
	dense []int32 // id -> slot + 1; 0: none
	other map[int64]int32
}

// denseFloor is the least bound of the dense ids.
const denseFloor = 1024

func (t *idTable) get(id int64) (int32, bool) {
	if id >= 0 && id < int64(len(t.dense)) && t.dense[id] != 0 {
		return t.dense[id] - 1, true
	}
	if len(t.other) == 0 {
		return 0, false
	}
	slot, ok := t.other[id]
	return slot, ok
}

// set maps id to slot; known is how many methods there are.
func (t *idTable) set(id int64, slot int32, known int) {
	if bound := int64(max(denseFloor, 4*known)); id >= 0 && id < bound {
		if id >= int64(len(t.dense)) {
			n := min(max(int64(2*len(t.dense)), id+1), bound)
			t.dense = append(t.dense, make([]int32, n-int64(len(t.dense)))...)
		}
		t.dense[id] = slot + 1
		if len(t.other) > 0 {
			delete(t.other, id)
		}
		return
	}
	if t.other == nil {
		t.other = map[int64]int32{}
	}
	if _, ok := t.other[id]; !ok && len(t.other) >= max(denseFloor, 4*known) {
		return // a peer naming its methods by ever new ids: the rest are not kept
	}
	t.other[id] = slot
}

// remap maps every id's slot through f, in one pass (the merges of a
// class definition, however many).
func (t *idTable) remap(f func(slot int32) int32) {
	for i, s := range t.dense {
		if s != 0 {
			t.dense[i] = f(s-1) + 1
		}
	}
	for id, s := range t.other {
		t.other[id] = f(s)
	}
}

// replace maps the ids of one slot to another (rare: merged slots).
func (t *idTable) replace(from, to int32) {
	for i, s := range t.dense {
		if s == from+1 {
			t.dense[i] = to + 1
		}
	}
	for id, s := range t.other {
		if s == from {
			t.other[id] = to
		}
	}
}

// reset forgets every id (a new stream numbers its methods afresh).
func (t *idTable) reset() {
	clear(t.dense)
	clear(t.other)
}
