package simulator

import "github.com/proftop/proftop/decode"

// Aggregated mode: method activity as agMethodEntry reports, once a
// virtual second.

// aggregate accumulates one (thread, method) pair for agMethodEntry.
type aggregate struct {
	base, min, max, cpu decode.Ticks
	calls               int64
	threadID            int64
}

// accumulate records a finished call for the next agMethodEntry report.
func (w *World) accumulate(t *thread, m int, self, cpu decode.Ticks) {
	need := len(w.threads) * numMethods
	if len(w.agg) < need {
		w.agg = append(w.agg, make([]aggregate, need-len(w.agg))...)
	}
	i := t.slot*numMethods + m
	a := &w.agg[i]
	if a.calls == 0 {
		w.touched = append(w.touched, i)
		a.min, a.max = self, self
	}
	a.threadID = t.id
	a.base += self
	a.cpu += cpu
	a.calls++
	a.min = min(a.min, self)
	a.max = max(a.max, self)
}

// flushAggregates sends the reports of the last virtual second, a few per
// step so that no ring of events overflows.
func (w *World) flushAggregates() {
	for n := 0; n < 64 && w.flushing < len(w.touched); n++ {
		i := w.touched[w.flushing]
		w.flushing++
		a := &w.agg[i]
		if a.calls > 0 && a.threadID != 0 {
			ev := w.pool.agMethodEntry.next()
			*ev = decode.AgMethodEntry{ThreadIDRef: a.threadID, MethodIDRef: int64(i%numMethods + 1), BaseTime: a.base,
				MinTime: a.min, MaxTime: a.max, BaseCPUTime: a.cpu, NumCalls: a.calls}
			w.emit(ev)
		}
		*a = aggregate{}
	}
	if w.flushing >= len(w.touched) {
		w.flushing = -1
		w.touched = w.touched[:0]
	}
}
