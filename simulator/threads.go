package simulator

import (
	"strconv"

	"github.com/proftop/proftop/decode"
)

// The threads of the simulated service: their lives, and their calls.

func (w *World) startThread(spec threadSpec) *thread {
	w.nextThreadID++
	t := &thread{slot: len(w.threads), id: w.nextThreadID, name: spec.name, group: spec.group, kind: spec.kind, runIdx: -1, onLock: noLock}
	for _, s := range w.threads {
		if s.state == ended {
			t.slot = s.slot
			break
		}
	}
	if t.slot == len(w.threads) {
		w.threads = append(w.threads, t)
	} else {
		w.threads[t.slot] = t
	}
	w.threadSerial[spec.kind]++
	parent := "system"
	if spec.group == "system" {
		parent = ""
	}
	ts := w.pool.threadStart.next()
	*ts = decode.ThreadStart{ThreadID: t.id, Time: w.now, GroupName: spec.group, ParentName: parent,
		ObjIDRef: 0x7e00_0000 + t.id*0x30, ThreadName: spec.name}
	w.emit(ts)
	for _, m := range baseStack[spec.kind] {
		w.pushFrame(t, m)
	}
	t.base = len(t.calls)
	if _, works := baseStack[spec.kind]; works && spec.kind != kindFinalizer {
		w.setRunnable(t, true)
	}
	return t
}

// pushFrame puts a method on a thread's stack without an event (frames
// entered before tracing began, or Object.wait).
func (w *World) pushFrame(t *thread, m int) {
	meth := &catalog[m]
	t.calls = append(t.calls, call{m: m, line: meth.start + w.rnd.Int64N(meth.lines+1), entered: w.now, lock: noLock})
}

func (w *World) setRunnable(t *thread, on bool) {
	switch {
	case on && t.runIdx < 0:
		t.runIdx = len(w.runnable)
		w.runnable = append(w.runnable, t.slot)
	case !on && t.runIdx >= 0:
		last := w.runnable[len(w.runnable)-1]
		w.runnable[t.runIdx] = last
		w.threads[last].runIdx = t.runIdx
		w.runnable = w.runnable[:len(w.runnable)-1]
		t.runIdx = -1
	}
}

// work runs one step of a thread's call tree: enter a callee or return.
func (w *World) work(t *thread) {
	top := &t.calls[len(t.calls)-1]
	meth := &catalog[top.m]
	if len(t.calls) == t.base {
		if !t.reserved {
			w.enter(t, meth.callees[w.rnd.IntN(len(meth.callees))])
		}
		return
	}
	if w.rnd.IntN(20) == 0 {
		w.allocate(t)
		return
	}
	if len(meth.callees) > 0 && len(t.calls) < maxDepth && top.callees < len(meth.callees)+1 && w.rnd.IntN(10) < 6 {
		top.callees++
		w.enter(t, meth.callees[w.rnd.IntN(len(meth.callees))])
		return
	}
	// A leaf stays on the stack in proportion to its cost.
	if len(meth.callees) == 0 && w.rnd.Int64N(meth.cost+20) >= 20 {
		return
	}
	// The connection pool is sometimes exhausted: borrow waits for a connection.
	if top.m == mBagBorrow && top.lock != noLock && w.rnd.IntN(12) == 0 {
		w.wait(t, []int64{250, 500, 1000}[w.rnd.IntN(3)])
		return
	}
	w.exit(t)
}

func (w *World) enter(t *thread, m int) {
	w.define(m)
	meth := &catalog[m]
	w.nextTicket++
	t.calls = append(t.calls, call{m: m, ticket: w.nextTicket, line: meth.start + w.rnd.Int64N(meth.lines+1), entered: w.now, lock: noLock})
	if !w.cfg.Aggregated {
		me := w.pool.methodEntry.next()
		*me = decode.MethodEntry{ThreadIDRef: t.id, Time: w.now, MethodIDRef: int64(m + 1), Ticket: w.nextTicket,
			ClassIDRef: w.methodClass[m], StackDepth: int64(len(t.calls))}
		w.emit(me)
	}
	lock := meth.lock
	if t.reversed && (lock == lockAccountA || lock == lockAccountB) {
		lock = lockAccountA + lockAccountB - lock
	}
	if lock != noLock {
		w.acquire(t, lock, len(t.calls)-1)
	}
}

func (w *World) exit(t *thread) {
	c := t.calls[len(t.calls)-1]
	t.calls = t.calls[:len(t.calls)-1]
	dur := w.now - c.entered
	self := max(dur-c.child, 0)
	if len(t.calls) > 0 {
		t.calls[len(t.calls)-1].child += dur
	}
	// Dozens of threads share a few cores, and waiting on a socket or a
	// disk costs little CPU; blocked on a monitor or in Object.wait, none.
	onCPU := max(self-c.stalled, 0)
	cpu := onCPU / 5
	if catalog[c.m].cost >= 100 {
		cpu = onCPU / 50
	}
	t.cpu += cpu
	if w.cfg.Aggregated {
		w.accumulate(t, c.m, self, cpu)
	} else {
		mx := w.pool.methodExit.next()
		*mx = decode.MethodExit{ThreadIDRef: t.id, Time: w.now, Ticket: c.ticket, ThreadCPUTime: t.cpu, MethodIDRef: int64(c.m + 1),
			ClassIDRef: w.methodClass[c.m]}
		w.emit(mx)
	}
	if c.lock != noLock {
		w.release(t, c.lock)
	}
	if len(t.calls) == t.base {
		t.reversed = false
	}
}

// fillStack writes a thread's stack, innermost frame first, into an
// event's reusable stack.
func (w *World) fillStack(st *decode.Stack, t *thread, inWait bool) {
	st.Methods, st.Lines = st.Methods[:0], st.Lines[:0]
	if inWait {
		st.Methods = append(st.Methods, w.frameNames[mObjectWait])
		st.Lines = append(st.Lines, -1)
	}
	for i := len(t.calls) - 1; i >= 0 && len(st.Methods) < maxDepth; i-- {
		st.Methods = append(st.Methods, w.frameNames[t.calls[i].m])
		st.Lines = append(st.Lines, t.calls[i].line)
	}
}

// churn ends an idle pool thread and starts its replacement, as thread
// pools do.
func (w *World) churn() {
	t := w.threads[w.runnable[w.rnd.IntN(len(w.runnable))]]
	if (t.kind != kindHTTP && t.kind != kindBilling) || len(t.calls) != t.base || w.holdsAny(t) || t.reserved {
		return
	}
	if w.inDeadlock && (t.slot == w.deadlocked[0] || t.slot == w.deadlocked[1]) {
		return
	}
	kind := t.kind
	w.kill(t)
	w.startThread(threadSpec{name: w.poolThreadName(kind), group: "main", kind: kind})
}

func (w *World) poolThreadName(k threadKind) string {
	n := w.threadSerial[k] + 1
	if k == kindBilling {
		return "pool-2-thread-" + strconv.Itoa(n)
	}
	return "http-nio-8080-exec-" + strconv.Itoa(n)
}

func (w *World) holdsAny(t *thread) bool {
	for i := range w.locks {
		if w.locks[i].owner == t.slot {
			return true
		}
	}
	return false
}

// kill ends a thread wherever it is: its monitors go to their next threads.
func (w *World) kill(t *thread) {
	w.detach(t)
	w.releaseAll(t)
}

// detach ends a thread: it leaves every queue and its threadEnd is sent.
func (w *World) detach(t *thread) {
	if t.state == blocked || t.state == waiting {
		mon := &w.locks[t.onLock]
		mon.entrants = removeSlot(mon.entrants, t.slot)
		mon.waitSet = removeSlot(mon.waitSet, t.slot)
	}
	w.setRunnable(t, false)
	t.state = ended
	te := w.pool.threadEnd.next()
	*te = decode.ThreadEnd{ThreadMoment: decode.ThreadMoment{ThreadIDRef: t.id, Time: w.now}}
	w.emit(te)
	if w.cfg.Aggregated {
		for m := range numMethods {
			if i := t.slot*numMethods + m; i < len(w.agg) {
				w.agg[i] = aggregate{}
			}
		}
	}
}
