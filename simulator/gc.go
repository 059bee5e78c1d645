package simulator

import "github.com/proftop/proftop/decode"

// collectGarbage runs one collection: a pause, freed objects, a lower heap;
// the finalizer is woken to process the references it found.
func (w *World) collectGarbage() {
	start := w.now
	gs := w.pool.gcStart.next()
	*gs = decode.GCStart{ThreadMoment: decode.ThreadMoment{Time: start}}
	w.emit(gs)
	w.freeing = 0 // the objects go, a few at a time, after the collection is reported
	pause := decode.Ticks(2e6 + w.rnd.Int64N(25e6))
	if w.rnd.IntN(20) == 0 {
		pause = decode.Ticks(120e6 + w.rnd.Int64N(230e6)) // now and then a full collection
	}
	w.now = start + pause
	if pause >= 120e6 {
		w.fullGCs++
		w.fullGCTime += pause
	} else {
		w.youngGCs++
		w.youngGCTime += pause
	}
	w.lastGC = w.now
	w.heapUsed = w.heapTotal/4 + w.rnd.Int64N(w.heapTotal/7)
	w.objects = w.heapUsed / 64
	gf := w.pool.gcFinish.next()
	*gf = decode.GCFinish{Time: w.now, TotalObjSpace: w.heapTotal, UsedObjSpace: w.heapUsed, UsedObjects: w.objects}
	w.emit(gf)
	w.nextGC = w.now + w.jitter(decode.Ticks(w.cfg.GCEvery))
	for _, t := range w.threads {
		if t.kind == kindFinalizer && t.state == waiting {
			w.wake(t)
			if t.state == running {
				w.wait(t, 0)
			}
		}
	}
}
