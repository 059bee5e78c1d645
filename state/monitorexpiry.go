package state

// idleMonitor is a monitor a full table may drop, with what orders the
// candidates copied beside it: comparing them reads no monitor.
type idleMonitor struct {
	seen, obj int64
	m         *monitor
}

// before orders candidates: seen longest ago first, then the lowest
// object (objects are distinct: the order is total, and which are first
// never depends on the map's order).
func (a *idleMonitor) before(b *idleMonitor) bool {
	if a.seen != b.seen {
		return a.seen < b.seen
	}
	return a.obj < b.obj
}

// selectOldest puts the k first candidates, in no particular order, in
// c[:k]: a selection (Hoare's), linear on average, where a bounded heap
// of k took comparisons through a function for each of the table's
// 10,000 monitors, at each of the thousands of expiries of a JVM that
// waits on a new object every few hundred microseconds (H2). The pivot is
// the median of the first, middle and last, so that a run already in
// order (a table filled in time order) is not the worst case.
func selectOldest(c []idleMonitor, k int) {
	lo, hi := 0, len(c)-1
	for lo < hi && k > lo && k <= hi {
		mid := lo + (hi-lo)/2
		if c[mid].before(&c[lo]) {
			c[lo], c[mid] = c[mid], c[lo]
		}
		if c[hi].before(&c[lo]) {
			c[lo], c[hi] = c[hi], c[lo]
		}
		if c[hi].before(&c[mid]) {
			c[mid], c[hi] = c[hi], c[mid]
		}
		pivot := c[mid]
		i, j := lo, hi
		for i <= j {
			for c[i].before(&pivot) {
				i++
			}
			for pivot.before(&c[j]) {
				j--
			}
			if i <= j {
				c[i], c[j] = c[j], c[i]
				i++
				j--
			}
		}
		// c[lo..j] come before or equal the pivot, c[i..hi] after or equal;
		// between them, the pivot's equals (itself: keys are distinct).
		switch {
		case k <= j:
			hi = j
		case k >= i:
			lo = i
		default:
			return
		}
	}
}
