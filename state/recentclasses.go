package state

// recentClasses remembers the classes of the latest objects allocated or
// named, at most size of them, in memory fixed at the first: a ring of
// them in the order they came, and an index into the ring by object
// (open addressing, linear probing). An object the ring overwrites leaves
// the index by shifting back the entries after it, which leaves no
// tombstone: a stream of allocations that never ends costs no rehashing.
// A map did, deleting an object for every one added: its rehashes were a
// twentieth of replaying a JVM's recording.
type recentClasses struct {
	size  int
	ring  []classOfObject // in the order they came; overwritten from next on once full
	next  int
	index []int32 // ring position + 1 of the object that hashes here; 0: none
	mask  uint64
}

// classOfObject is an object and the class id it was last given.
type classOfObject struct {
	obj, class int64
}

func (r *recentClasses) init(size int) { *r = recentClasses{size: max(size, 1)} }

// get returns the class id of an object, if it is among the latest.
func (r *recentClasses) get(obj int64) (int64, bool) {
	if r.index == nil {
		return 0, false
	}
	if p := r.find(obj); p >= 0 {
		return r.ring[p].class, true
	}
	return 0, false
}

// put gives an object its class: as the latest, the oldest going when the
// ring is full, unless it has one already.
func (r *recentClasses) put(obj, class int64) {
	if r.index == nil {
		r.grow(min(r.size, 512))
	}
	if p := r.find(obj); p >= 0 {
		r.ring[p].class = class // given again (its address reused): its place kept, so that the ring holds size objects
		return
	}
	var pos int
	if len(r.ring) < r.size {
		if 2*(len(r.ring)+1) > len(r.index) {
			r.grow(min(2*len(r.ring), r.size))
		}
		pos = len(r.ring)
		r.ring = append(r.ring, classOfObject{obj, class})
	} else {
		pos = r.next
		r.remove(r.ring[pos].obj)
		r.ring[pos] = classOfObject{obj, class}
		r.next = (r.next + 1) % r.size
	}
	r.file(obj, pos)
}

// file enters an object not in the index at its ring position.
func (r *recentClasses) file(obj int64, pos int) {
	i := hashID(obj) & r.mask
	for r.index[i] != 0 {
		i = (i + 1) & r.mask
	}
	r.index[i] = int32(pos + 1)
}

// grow makes room for n objects: the index, at most half full, is made
// anew from the ring. Memory follows the objects seen until size of them.
func (r *recentClasses) grow(n int) {
	slots := 1
	for slots < 2*n {
		slots <<= 1
	}
	if slots <= len(r.index) {
		return
	}
	r.index, r.mask = make([]int32, slots), uint64(slots-1)
	r.ring = append(make([]classOfObject, 0, n), r.ring...)
	for pos, e := range r.ring {
		r.file(e.obj, pos)
	}
}

// find returns the ring position of an object; -1 when it is not there.
func (r *recentClasses) find(obj int64) int {
	for i := hashID(obj) & r.mask; ; i = (i + 1) & r.mask {
		p := r.index[i]
		if p == 0 {
			return -1
		}
		if r.ring[p-1].obj == obj {
			return int(p - 1)
		}
	}
}

// remove takes an object out of the index, as the ring is to overwrite
// its place. The entries of the probe run after it that may move are
// shifted back: a lookup stops at the first empty slot, and must not meet
// one before its object.
func (r *recentClasses) remove(obj int64) {
	i := hashID(obj) & r.mask
	for {
		p := r.index[i]
		if p == 0 {
			return // not in the index
		}
		if r.ring[p-1].obj == obj {
			break
		}
		i = (i + 1) & r.mask
	}
	for j := (i + 1) & r.mask; r.index[j] != 0; j = (j + 1) & r.mask {
		home := hashID(r.ring[r.index[j]-1].obj) & r.mask
		// The entry at j may fill the hole at i if its home is not in
		// (i, j]: its probe from home then passes i.
		if (j-home)&r.mask >= (j-i)&r.mask {
			r.index[i] = r.index[j]
			i = j
		}
	}
	r.index[i] = 0
}

// reset forgets every object, keeping the memory.
func (r *recentClasses) reset() {
	clear(r.index)
	r.ring, r.next = r.ring[:0], 0
}
