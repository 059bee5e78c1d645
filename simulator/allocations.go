package simulator

import "github.com/proftop/proftop/decode"

// Allocations: the service's threads allocate objects of a few classes as
// they work (objAlloc, with sizes); a collection frees most of those still
// alive (objFree), a few survive to the old generation. Object ids are
// remembered in a bounded ring, as a profiler's would be, so that the
// frees name objects that were allocated.

// allocatedClass is a class the service allocates, with its share of the
// allocations (out of 100) and an object's size.
type allocatedClass struct {
	name  string
	share int
	size  int64
}

var allocatedClasses = []allocatedClass{
	{"byte[]", 30, 1024},
	{"java.lang.String", 25, 40},
	{"java.util.HashMap$Node", 15, 32},
	{"com.acme.shop.order.Order", 8, 96},
	{"com.acme.shop.order.OrderLine", 12, 48},
	{"com.fasterxml.jackson.core.json.UTF8JsonGenerator", 5, 256},
	{"org.postgresql.core.v3.SimpleQuery", 5, 128},
}

// maxLive bounds the objects a collection may free.
const maxLive = 1 << 14

// freeChunk is how many objects one step of a collection frees.
const freeChunk = 64

// allocate makes the thread allocate one object.
func (w *World) allocate(t *thread) {
	pick := w.rnd.IntN(100)
	c := allocatedClasses[len(allocatedClasses)-1]
	for _, ac := range allocatedClasses {
		if pick < ac.share {
			c = ac
			break
		}
		pick -= ac.share
	}
	w.nextObject++
	obj := 0x6000_0000 + w.nextObject*16
	oa := w.pool.objAlloc.next()
	*oa = decode.ObjAlloc{ThreadIDRef: t.id, Time: w.now, ObjID: obj, Size: c.size, ClassIDRef: w.classID(c.name)}
	w.emit(oa)
	if len(w.live) < maxLive {
		w.live = append(w.live, obj)
	}
}

// freeSome frees the next objects of a collection in progress: all but
// one in ten, which survive.
func (w *World) freeSome() {
	for n := 0; n < freeChunk && w.freeing < len(w.live); n++ {
		obj := w.live[w.freeing]
		w.freeing++
		if obj%160 == 0 {
			w.survivors = append(w.survivors, obj) // one in ten lives on
			continue
		}
		of := w.pool.objFree.next()
		*of = decode.ObjFree{Time: w.now, ObjIDRef: obj, ObjAge: int64(w.rnd.IntN(15))}
		w.emit(of)
	}
	if w.freeing >= len(w.live) {
		w.live = append(w.live[:0], w.survivors...)
		w.survivors = w.survivors[:0]
		w.freeing = -1
		if len(w.live) > maxLive/2 {
			w.live = w.live[:0] // the old generation is not collected here: forget what it holds
		}
	}
}
