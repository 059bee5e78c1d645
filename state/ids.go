package state

// idIndex finds what the current stream numbers by id: methods, threads.
// Sources number them densely from small numbers (a JVM's thread ids,
// TPTP's method ids), so ids below a bound of four per item known (at
// least denseFloor) live in a flat array, one load an event instead of a
// map lookup (a tenth of a wide replay's CPU for the methods, a twentieth
// for the threads); other ids (a virtual thread's, numbered in the
// millions) go to a map. The zero V stands for none. The array never
// grows beyond the bound, whatever ids a peer sends.
type idIndex[V comparable] struct {
	dense []V
	other map[int64]V
}

// denseFloor is the least bound of the dense ids.
const denseFloor = 1024

// get returns what id is filed under; the zero V when none.
func (x *idIndex[V]) get(id int64) V {
	var none V
	if uint64(id) < uint64(len(x.dense)) && x.dense[id] != none {
		return x.dense[id]
	}
	if len(x.other) == 0 {
		return none
	}
	return x.other[id] // filed before the dense ids reached it, or beyond them
}

// inDense says id is filed in the array when known items are known: below
// the bound, or where the array reaches already (items expire, and the
// bound shrinks: an id the array holds must not be filed twice).
func (x *idIndex[V]) inDense(id int64, known int) bool {
	return id >= 0 && (id < int64(max(denseFloor, 4*known)) || id < int64(len(x.dense)))
}

// set files v under id; known is how many items there are.
func (x *idIndex[V]) set(id int64, v V, known int) {
	if !x.inDense(id, known) {
		if x.other == nil {
			x.other = map[int64]V{}
		}
		x.other[id] = v
		return
	}
	if id >= int64(len(x.dense)) {
		n := min(max(int64(2*len(x.dense)), id+1), int64(max(denseFloor, 4*known)))
		x.dense = append(x.dense, make([]V, n-int64(len(x.dense)))...)
	}
	x.dense[id] = v
	if len(x.other) > 0 {
		delete(x.other, id)
	}
}

// remove forgets what id is filed under.
func (x *idIndex[V]) remove(id int64) {
	if uint64(id) < uint64(len(x.dense)) {
		var none V
		x.dense[id] = none
	}
	delete(x.other, id)
}

// each calls fn with everything filed.
func (x *idIndex[V]) each(fn func(V)) {
	var none V
	for _, v := range x.dense {
		if v != none {
			fn(v)
		}
	}
	for _, v := range x.other {
		fn(v)
	}
}

// update files everything again as f makes it, in one pass.
func (x *idIndex[V]) update(f func(V) V) {
	var none V
	for i, v := range x.dense {
		if v != none {
			x.dense[i] = f(v)
		}
	}
	for id, v := range x.other {
		x.other[id] = f(v)
	}
}

// reset forgets every id (a new stream numbers its items afresh).
func (x *idIndex[V]) reset() {
	clear(x.dense)
	clear(x.other)
}

// idTable maps the current stream's method ids to slots (slot + 1 filed).
// The map of ids beyond the array is bounded as the array is: a peer
// naming its methods by ever new ids gets the rest not kept.
type idTable struct{ idIndex[int32] }

func (t *idTable) get(id int64) (int32, bool) {
	v := t.idIndex.get(id)
	return v - 1, v != 0
}

// set maps id to slot; known is how many methods there are.
func (t *idTable) set(id int64, slot int32, known int) {
	if !t.inDense(id, known) {
		if _, ok := t.other[id]; !ok && len(t.other) >= max(denseFloor, 4*known) {
			return
		}
	}
	t.idIndex.set(id, slot+1, known)
}

// remap maps every id's slot through f, in one pass (the merges of a
// class definition, however many).
func (t *idTable) remap(f func(slot int32) int32) {
	t.update(func(v int32) int32 { return f(v-1) + 1 })
}

// replace maps the ids of one slot to another (rare: merged slots).
func (t *idTable) replace(from, to int32) {
	t.update(func(v int32) int32 {
		if v == from+1 {
			return to + 1
		}
		return v
	})
}
