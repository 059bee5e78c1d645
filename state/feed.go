package state

import (
	"time"

	"github.com/proftop/proftop/client"
)

// Feed applies every batch of a source until its batches end. Run it on
// its own goroutine: it is where aggregation happens, off the UI.
func (a *Aggregator) Feed(src client.Source) {
	for b := range src.Batches() {
		if b.Restart {
			a.Restart()
		}
		a.Apply(b.Events(), b.Stream, b.Clock, time.Now())
		src.Recycle(b)
		if a.afterBatch != nil {
			a.afterBatch(false)
		}
	}
	if a.afterBatch != nil {
		a.afterBatch(true)
	}
}
