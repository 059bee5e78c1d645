package state

// threadIndex finds the current stream's threads by id. Sources number
// their threads densely from small numbers (a JVM's thread ids, TPTP's),
// so ids below a bound of four per thread known live in a flat array:
// one load an event, where a map lookup among 10,000 threads was a
// twentieth of a wide replay. Other ids (a virtual thread's, numbered in
// the millions) go to a map. Neither grows beyond what the thread table
// bounds, whatever ids a peer sends.
type threadIndex struct {
	dense []*thread // by id; nil: none
	other map[int64]*thread
}

// threadIndexFloor is the least bound of the dense ids.
const threadIndexFloor = 1024

func (x *threadIndex) get(id int64) *thread {
	if uint64(id) < uint64(len(x.dense)) && x.dense[id] != nil {
		return x.dense[id]
	}
	if len(x.other) == 0 {
		return nil
	}
	return x.other[id] // filed before the dense ids reached it, or beyond them
}

// set files t under id; known is how many threads the table holds.
func (x *threadIndex) set(id int64, t *thread, known int) {
	// An id the dense part holds already stays there, whatever the bound is
	// now (threads expire): it must not be filed twice.
	if bound := int64(max(threadIndexFloor, 4*known)); id >= 0 && (id < bound || id < int64(len(x.dense))) {
		if id >= int64(len(x.dense)) {
			n := min(max(int64(2*len(x.dense)), id+1), bound)
			x.dense = append(x.dense, make([]*thread, n-int64(len(x.dense)))...)
		}
		x.dense[id] = t
		if len(x.other) > 0 {
			delete(x.other, id)
		}
		return
	}
	if x.other == nil {
		x.other = map[int64]*thread{}
	}
	x.other[id] = t
}

// remove forgets the thread filed under id.
func (x *threadIndex) remove(id int64) {
	if uint64(id) < uint64(len(x.dense)) {
		x.dense[id] = nil
	}
	delete(x.other, id)
}

// each calls fn with every thread filed.
func (x *threadIndex) each(fn func(*thread)) {
	for _, t := range x.dense {
		if t != nil {
			fn(t)
		}
	}
	for _, t := range x.other {
		fn(t)
	}
}

// reset forgets every thread.
func (x *threadIndex) reset() {
	clear(x.dense)
	clear(x.other)
}
