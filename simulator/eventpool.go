package simulator

import "github.com/proftop/proftop/decode"

// eventPool hands out reusable event structs, a ring per kind, so that the
// world allocates nothing per event.
type eventPool struct {
	threadStart      ring[decode.ThreadStart]
	threadEnd        ring[decode.ThreadEnd]
	classDef         ring[decode.ClassDef]
	methodDef        ring[decode.MethodDef]
	objAlloc         ring[decode.ObjAlloc]
	methodEntry      ring[decode.MethodEntry]
	methodExit       ring[decode.MethodExit]
	gcStart          ring[decode.GCStart]
	objFree          ring[decode.ObjFree]
	gcFinish         ring[decode.GCFinish]
	monWait          ring[decode.MonWait]
	monWaited        ring[decode.MonWaited]
	contendedEnter   ring[decode.MonContendedEnter]
	contendedEntered ring[decode.MonContendedEntered]
	agMethodEntry    ring[decode.AgMethodEntry]
	threadState      ring[decode.ThreadState]
	threadPoll       ring[decode.ThreadPoll]
	memoryPool       ring[decode.MemoryPool]
	gcTotals         ring[decode.GCTotals]
}

const ringSize = 256

type ring[T any] struct {
	items [ringSize]T
	i     int
}

func (r *ring[T]) next() *T {
	p := &r.items[r.i]
	r.i = (r.i + 1) % ringSize
	return p
}
