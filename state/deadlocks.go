package state

import (
	"slices"
	"strconv"
	"strings"
	"time"
)

// A deadlock that clears (its threads are killed, the JVM restarts) should
// not vanish without a trace: the aggregator remembers the latest ones,
// when they were first and last seen.

// maxRecentDeadlocks bounds the deadlocks remembered after they clear.
const maxRecentDeadlocks = 5

// PastDeadlock is a deadlock that was seen and is over.
type PastDeadlock struct {
	Deadlock
	Since time.Time `json:"since"` // when it formed, or was first seen
	Until time.Time `json:"until"` // last seen
}

// deadlockLog follows the deadlocks from snapshot to snapshot.
type deadlockLog struct {
	live   map[string]*PastDeadlock // the deadlocks of the latest snapshot, by their threads
	recent []PastDeadlock           // the latest over, newest first
}

func deadlockKey(d *Deadlock) string {
	ids := slices.Clone(d.Threads)
	slices.Sort(ids)
	var b strings.Builder
	for _, id := range ids {
		b.WriteString(strconv.FormatInt(id, 10))
		b.WriteByte(',')
	}
	return b.String()
}

// update takes the deadlocks found at trace time now.
func (l *deadlockLog) update(found []Deadlock, now time.Time) {
	if l.live == nil {
		l.live = map[string]*PastDeadlock{}
	}
	seen := map[string]bool{}
	for i := range found {
		k := deadlockKey(&found[i])
		seen[k] = true
		if p := l.live[k]; p != nil {
			p.Until = now
			p.Deadlock = found[i]
			continue
		}
		// From when it formed, as the trace says, when that is known: a
		// replay takes few snapshots, and a deadlock seen by one of them
		// only has lasted since its last thread blocked, not 0 s.
		since := now
		if f := found[i].Since; !f.IsZero() && f.Before(now) {
			since = f
		}
		l.live[k] = &PastDeadlock{Deadlock: found[i], Since: since, Until: now}
	}
	for k, p := range l.live {
		if seen[k] {
			continue
		}
		delete(l.live, k)
		l.recent = append([]PastDeadlock{*p}, l.recent...)
		if len(l.recent) > maxRecentDeadlocks {
			l.recent = l.recent[:maxRecentDeadlocks]
		}
	}
}

// since says since when each deadlock now has lasted: from when it formed
// (the last of its threads blocked), or else from when it was first seen.
func (l *deadlockLog) since(d *Deadlock) time.Time {
	if p := l.live[deadlockKey(d)]; p != nil {
		return p.Since
	}
	return time.Time{}
}
