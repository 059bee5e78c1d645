package state

import (
	"context"
	"slices"
	"time"
)

// Recorder takes a picture of an aggregator into a history every step.
type Recorder struct {
	agg    *Aggregator
	hist   *History
	seq    uint64 // the latest call-tree bucket recorded
	resets uint64
}

// NewRecorder returns a recorder of agg into hist.
func NewRecorder(agg *Aggregator, hist *History) *Recorder {
	return &Recorder{agg: agg, hist: hist}
}

// Take takes one picture, at wall-clock time now.
func (r *Recorder) Take(now time.Time) *Picture {
	s := r.agg.Snapshot(now, Query{Recent: true, CallersOf: -1, AllStacks: true})
	p := NewPicture(s, now, r.hist.opts.Rows)
	r.agg.Release(s)
	// The methods' figures since the start as well, as of now: the
	// drill-in of a past moment shows both spans.
	p.Snap.Since, p.methodSlots = r.agg.MethodsSince(p.methodSlots), nil
	figs, open, seq, resets, origin := r.agg.TreeDelta(r.seq)
	if prev := r.hist.latest(); prev != nil && slices.Equal(prev.TreeOpen, open) {
		open = prev.TreeOpen // an idle second, seen again: shared, not kept twice
	}
	p.Tree, p.TreeOpen, p.TreeReset, p.origin = figs, open, resets != r.resets, origin
	r.seq, r.resets = seq, resets
	r.hist.Add(p)
	return p
}

// Run takes a picture every step until ctx ends. The first is taken after
// one step: before it nothing has been received.
func (r *Recorder) Run(ctx context.Context, step time.Duration) {
	tick := time.NewTicker(step)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case now := <-tick.C:
			r.Take(now)
		}
	}
}

// TreeAt returns the call-tree weights of the window ending at the i-th
// of pics: those of the pictures taken within window before it (and
// after the latest reset of the figures).
func TreeAt(pics []*Picture, i int, window time.Duration) [][]NodeFig {
	// The second still open when the i-th picture was taken counts in its
	// window: its weights are in no earlier picture, and in a later one's
	// closed seconds only.
	out := [][]NodeFig{pics[i].TreeOpen}
	for j := i; j >= 0; j-- {
		p := pics[j]
		if pics[i].At.Sub(p.At) >= window {
			break
		}
		out = append(out, p.Tree)
		if p.TreeReset {
			break
		}
	}
	return out
}
