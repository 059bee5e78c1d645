package simulator

import (
	"time"

	"github.com/proftop/proftop/decode"
)

// The monitors of the simulated service: contention, waits and deadlocks.

func (w *World) allocateLock(l int) {
	mon := &w.locks[l]
	if mon.allocated {
		return
	}
	mon.allocated = true
	mon.classID = w.classID(lockClass[l])
	oa := w.pool.objAlloc.next()
	*oa = decode.ObjAlloc{Time: w.now, ObjID: mon.obj, Size: 16, ClassIDRef: mon.classID}
	w.emit(oa)
}

// acquire takes a monitor for the frame at index frame, or blocks on it.
func (w *World) acquire(t *thread, l, frame int) {
	mon := &w.locks[l]
	switch mon.owner {
	case t.slot:
		return // re-entrant: the outer frame keeps it
	case -1:
		mon.owner = t.slot
		t.calls[frame].lock = l
		return
	}
	t.calls[frame].lock = l
	t.state, t.onLock, t.stalledAt = blocked, l, w.now
	w.setRunnable(t, false)
	mon.entrants = append(mon.entrants, t.slot)
	ev := w.pool.contendedEnter.next()
	ev.ThreadIDRef, ev.Time, ev.ObjIDRef, ev.ThreadOwner = t.id, w.now, mon.obj, w.threads[mon.owner].id
	w.fillStack(&ev.Stack, t, false)
	w.emit(ev)
}

// release frees a monitor: sometimes the releasing code notifies a waiter,
// and the first blocked thread gets the monitor.
func (w *World) release(t *thread, l int) {
	mon := &w.locks[l]
	if mon.owner != t.slot {
		return
	}
	mon.owner = -1
	if len(mon.waitSet) > 0 && w.rnd.IntN(2) == 0 {
		w.wake(w.threads[mon.waitSet[0]])
	}
	w.grant(l)
}

// grant gives a free monitor to its first blocked thread.
func (w *World) grant(l int) {
	mon := &w.locks[l]
	if mon.owner != -1 || len(mon.entrants) == 0 {
		return
	}
	next := w.threads[mon.entrants[0]]
	mon.entrants = mon.entrants[:copy(mon.entrants, mon.entrants[1:])]
	mon.owner = next.slot
	w.unstall(next)
	next.state, next.onLock = running, noLock
	w.setRunnable(next, true)
	ev := w.pool.contendedEntered.next()
	ev.ThreadIDRef, ev.Time, ev.ObjIDRef = next.id, w.now, mon.obj
	w.fillStack(&ev.Stack, next, false)
	w.emit(ev)
}

// wait makes the owner of the top frame's monitor call Object.wait(timeout).
func (w *World) wait(t *thread, timeoutMS int64) {
	top := &t.calls[len(t.calls)-1]
	l := top.lock
	mon := &w.locks[l]
	t.state, t.onLock, t.waitTimeout, t.stalledAt = waiting, l, timeoutMS, w.now
	t.waitUntil = 0
	if timeoutMS > 0 {
		t.waitUntil = w.now + decode.Ticks(timeoutMS)*1e6
		w.nextWake = min(w.nextWake, t.waitUntil)
	}
	w.setRunnable(t, false)
	mon.waitSet = append(mon.waitSet, t.slot)
	ev := w.pool.monWait.next()
	ev.ThreadIDRef, ev.Time, ev.ObjIDRef, ev.Timeout = t.id, w.now, mon.obj, timeoutMS
	w.fillStack(&ev.Stack, t, true)
	w.emit(ev)
	mon.owner = -1
	w.grant(l)
}

// wake ends a thread's wait (notified or timed out); it must then get the
// monitor back, contending for it if another thread holds it.
func (w *World) wake(t *thread) {
	l := t.onLock
	mon := &w.locks[l]
	for i, s := range mon.waitSet {
		if s == t.slot {
			mon.waitSet = append(mon.waitSet[:i], mon.waitSet[i+1:]...)
			break
		}
	}
	ev := w.pool.monWaited.next()
	ev.ThreadIDRef, ev.Time, ev.ObjIDRef, ev.Timeout = t.id, w.now, mon.obj, t.waitTimeout
	w.fillStack(&ev.Stack, t, true)
	w.emit(ev)
	if mon.owner == -1 && len(mon.entrants) == 0 {
		w.unstall(t)
		t.state, t.onLock, t.waitUntil = running, noLock, 0
		mon.owner = t.slot
		w.setRunnable(t, true)
		return
	}
	if mon.owner == -1 {
		w.grant(l)
	}
	// Still off the CPU: the wait runs into the contention to get the
	// monitor back, one stall from the wait's start.
	t.state, t.onLock, t.waitUntil = blocked, l, 0
	mon.entrants = append(mon.entrants, t.slot)
	ce := w.pool.contendedEnter.next()
	ce.ThreadIDRef, ce.Time, ce.ObjIDRef, ce.ThreadOwner = t.id, w.now, mon.obj, w.threads[mon.owner].id
	w.fillStack(&ce.Stack, t, false)
	w.emit(ce)
}

// unstall ends a thread's time blocked or waiting: its top frame keeps
// it, to be left out of the CPU time the frame is charged at its exit.
func (w *World) unstall(t *thread) {
	t.calls[len(t.calls)-1].stalled += w.now - t.stalledAt
}

// wakeTimedOut ends the waits whose timeout has passed.
func (w *World) wakeTimedOut() {
	w.nextWake = maxTicks
	for _, t := range w.threads {
		if t.state != waiting || t.waitUntil == 0 {
			continue
		}
		if t.waitUntil <= w.now {
			w.wake(t)
		} else {
			w.nextWake = min(w.nextWake, t.waitUntil)
		}
	}
}

// releaseAll hands every monitor an ended thread held to its next thread.
func (w *World) releaseAll(t *thread) {
	for l := range w.locks {
		if w.locks[l].owner == t.slot {
			w.locks[l].owner = -1
			w.grant(l)
		}
	}
}

func removeSlot(s []int, slot int) []int {
	for i, v := range s {
		if v == slot {
			return append(s[:i], s[i+1:]...)
		}
	}
	return s
}

// startDeadlock makes two billing threads transfer between the same two
// accounts in opposite directions: each holds one account's monitor and
// blocks on the other's. The two are reserved first and take no new work,
// so the deadlock starts as soon as both have finished what they do.
func (w *World) startDeadlock() {
	var pair []*thread
	for _, t := range w.threads {
		if t.reserved && t.state != ended {
			pair = append(pair, t)
		}
	}
	for _, s := range w.runnable {
		if t := w.threads[s]; len(pair) < 2 && t.kind == kindBilling && !t.reserved {
			t.reserved = true
			pair = append(pair, t)
		}
	}
	w.nextDeadlock = w.now + decode.Ticks(50*time.Millisecond)
	if len(pair) < 2 || w.locks[lockAccountA].owner != -1 || w.locks[lockAccountB].owner != -1 {
		return
	}
	a, b := pair[0], pair[1]
	if len(a.calls) != a.base || len(b.calls) != b.base || a.state != running || b.state != running {
		return
	}
	a.reserved, b.reserved = false, false
	b.reversed = true
	w.enter(a, mTransfer)
	w.enter(a, mWithdraw) // takes account A
	w.enter(b, mTransfer)
	w.enter(b, mWithdraw) // takes account B
	w.enter(a, mDeposit)  // blocks on B, owned by b
	w.enter(b, mDeposit)  // blocks on A, owned by a
	w.inDeadlock = true
	w.deadlocked = [2]int{a.slot, b.slot}
	w.deadlockEnd = w.now + decode.Ticks(w.cfg.DeadlockFor)
}

// endDeadlock kills the two deadlocked threads, as an operator would, and
// the pool replaces them. Both are gone before their monitors are handed
// on, so that neither gets the other's monitor on its way out.
func (w *World) endDeadlock() {
	w.inDeadlock = false
	w.nextDeadlock = w.now + w.jitter(decode.Ticks(w.cfg.DeadlockEvery))
	var victims []*thread
	for _, s := range w.deadlocked {
		if t := w.threads[s]; t.state != ended {
			w.detach(t)
			victims = append(victims, t)
		}
	}
	for _, t := range victims {
		w.releaseAll(t)
	}
	for _, t := range victims {
		w.startThread(threadSpec{name: w.poolThreadName(t.kind), group: "main", kind: t.kind})
	}
}
