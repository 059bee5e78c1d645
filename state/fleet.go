package state

import (
	"sync"
	"time"

	"github.com/proftop/proftop/client"
)

// Fleet is one Aggregator per JVM of a fleet. Each is fed on a goroutine
// of its own, so the JVMs aggregate in parallel and one busy JVM does not
// hold up the picture of another.
type Fleet struct {
	members []*Aggregator
}

// ForFleet lowers the bounds the user left at their defaults to what one
// JVM among many gets: a process watching a hundred JVMs must not be
// allowed a hundred times the memory of one. Limits set explicitly stay.
// Bounds that cut what a JVM legitimately shows (threads of a poll) are
// lowered less than those that only shorten history.
func (o Options) ForFleet() Options {
	lower := func(v *int, fleet int) {
		if *v <= 0 {
			*v = fleet
		}
	}
	lower(&o.MaxEndedThreads, 1_000)
	lower(&o.MaxMonitors, 2_000)
	lower(&o.History, 120)
	lower(&o.MaxThreads, 20_000)
	lower(&o.MaxTrackedObjects, 25_000)
	lower(&o.MaxClasses, 5_000)
	lower(&o.MaxRecentAllocations, 8_192)
	lower(&o.MaxMethods, 50_000)
	lower(&o.MaxSeries, 128)
	lower(&o.MaxVirtualListed, 1_000)
	lower(&o.MaxVirtualGroups, 200)
	if o.TelemetryMemory <= 0 {
		o.TelemetryMemory = 2 << 20
	}
	return o
}

// NewFleet returns n empty aggregators with the same options.
func NewFleet(n int, opts Options) *Fleet {
	f := &Fleet{members: make([]*Aggregator, n)}
	for i := range f.members {
		f.members[i] = New(opts)
	}
	return f
}

// Len is the number of JVMs.
func (f *Fleet) Len() int { return len(f.members) }

// Member is the i-th JVM's aggregator.
func (f *Fleet) Member(i int) *Aggregator { return f.members[i] }

// Feed feeds each aggregator from the source of the same index, each on
// its own goroutine, until every source's batches end.
func (f *Fleet) Feed(sources func(i int) client.Source) {
	var wg sync.WaitGroup
	for i, a := range f.members {
		src := sources(i)
		wg.Go(func() { a.Feed(src) })
	}
	wg.Wait()
}

// FleetSnapshot is the fleet at one moment: a summary per JVM, in the
// order the JVMs were given.
type FleetSnapshot struct {
	Taken time.Time
	JVMs  []Summary
}

// Snapshot summarizes every JVM now. It takes one snapshot per JVM, one
// after the other, each under its own aggregator's lock only.
func (f *Fleet) Snapshot(now time.Time) *FleetSnapshot {
	s := &FleetSnapshot{Taken: now, JVMs: make([]Summary, len(f.members))}
	for i, a := range f.members {
		s.JVMs[i] = a.Summary(now)
	}
	return s
}

// Deadlocked lists the JVMs (by index) with a deadlock now.
func (s *FleetSnapshot) Deadlocked() []int {
	var out []int
	for i := range s.JVMs {
		if len(s.JVMs[i].Deadlocks) > 0 {
			out = append(out, i)
		}
	}
	return out
}
