package state

import (
	"hash/fnv"
	"sort"
	"time"
)

// groupMonitors folds the monitors into one row per class and site: a
// thousand short-lived locks of one class taken at one place (a database's
// row locks) read as one line. A group's figures add up its locks'; its
// maximum is theirs; its owner is the first lock's that has one.
func groupMonitors(ms []Monitor) []Monitor {
	byKey := map[string]int{}
	var out []Monitor
	for i := range ms {
		m := &ms[i]
		key := m.Class + "\x00" + m.Site
		j, ok := byKey[key]
		if !ok {
			g := *m
			g.Object = groupID(key)
			g.Grouped = 1
			g.ByAddress = false // a group's row is a class at a place, not a lock
			g.Waiters = append([]Waiter(nil), m.Waiters...)
			byKey[key] = len(out)
			out = append(out, g)
			continue
		}
		g := &out[j]
		g.Grouped++
		g.Enters += m.Enters
		g.Waits += m.Waits
		g.BlockedSum += m.BlockedSum
		g.BlockedMax = max(g.BlockedMax, m.BlockedMax)
		g.Waiters = append(g.Waiters, m.Waiters...)
		g.Synchronizer = g.Synchronizer || m.Synchronizer
		if g.Owner == 0 && m.Owner != 0 {
			g.Owner, g.OwnerName, g.OwnerStack, g.OwnerFrom = m.Owner, m.OwnerName, m.OwnerStack, m.OwnerFrom
		}
		if m.LastSeen.After(g.LastSeen) {
			g.LastSeen = m.LastSeen
		}
	}
	for i := range out {
		if g := &out[i]; g.Enters > 0 {
			g.BlockedAvg = g.BlockedSum / time.Duration(g.Enters)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Object < out[j].Object })
	return out
}

// groupID is a group's row id: stable across snapshots, positive.
func groupID(key string) int64 {
	h := fnv.New64a()
	h.Write([]byte(key))
	return int64(h.Sum64() >> 1)
}
