package state

// A snapshot's deadlocks are looked for again only when owners or waiters
// may have changed since the previous snapshot looked: a search walks
// every monitor, thousands of them, at every refresh otherwise.

// deadlocksFound are the deadlocks a snapshot found, and the generations
// of the changes to locks they were found at.
type deadlocksFound struct {
	ok        bool
	gen, mgen uint64
	found     []Deadlock
}

// locksChanged notes an event that may change who owns or waits for a
// lock: deadlocks are looked for again, by Apply and by the next snapshot.
func (a *Aggregator) locksChanged() {
	a.deadlocksDirty = true
	a.locksGen++
}

// deadlocks are the deadlocks now, for a snapshot: its own copy, whose
// Since the snapshot sets.
func (a *Aggregator) deadlocks() []Deadlock {
	f := &a.deadlocksSeen
	if !f.ok || f.gen != a.locksGen || f.mgen != a.monitors.gen {
		*f = deadlocksFound{ok: true, gen: a.locksGen, mgen: a.monitors.gen, found: a.monitors.deadlocks(&a.threads)}
	}
	return append([]Deadlock{}, f.found...) // an empty list in JSON, not null
}
