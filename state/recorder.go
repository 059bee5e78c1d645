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
	events int64 // the events applied as of the latest picture
}

// NewRecorder returns a recorder of agg into hist.
func NewRecorder(agg *Aggregator, hist *History) *Recorder {
	return &Recorder{agg: agg, hist: hist}
}

// Take takes one picture, at wall-clock time now; nil when it would be
// the latest again: on trace time (a recording), a picture when no event
// has been applied since the latest is of the same moment, and a replay
// read to its end would fill the history with it, one a step, until a
// minute back was the same moment as now.
func (r *Recorder) Take(now time.Time) *Picture {
	applied, traceTime, _ := r.agg.applied()
	if traceTime && applied == r.events && r.hist.latest() != nil {
		return nil
	}
	r.events = applied
	s := r.agg.Snapshot(now, Query{Recent: true, CallersOf: -1, AllStacks: true})
	p := NewPicture(s, now, r.hist.opts.Rows)
	r.agg.Release(s)
	// The methods' figures since the start as well, as of now: the
	// drill-in of a past moment shows both spans.
	p.Snap.Since, p.methodSlots = r.agg.MethodsSince(p.methodSlots), nil
	c := r.agg.TreeDelta(r.seq)
	if prev := r.hist.latest(); prev != nil && slices.Equal(prev.TreeOpen, c.Open) {
		c.Open = prev.TreeOpen // an idle second, seen again: shared, not kept twice
	}
	p.Tree, p.TreeSeconds, p.TreeOpen, p.TreeOpenStart = c.Closed, c.Seconds, c.Open, c.OpenStart
	p.TreeReset, p.origin = c.Resets != r.resets, c.origin
	r.seq, r.resets = c.Latest, c.Resets
	r.hist.Add(p)
	return p
}

// TakeFinal takes the picture of a run's end, unless the latest was
// taken less than half a step, and half a second, before now: that one is
// the end already (a run that ended just after a picture wrote two of one
// moment). One taken longer before is not: the end, seconds of a slow
// refresh, would go missing from the history.
func (r *Recorder) TakeFinal(now time.Time, step time.Duration) *Picture {
	if latest := r.hist.latest(); latest != nil && now.Sub(latest.At) < min(step/2, time.Second/2) {
		return nil
	}
	return r.Take(now)
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
// of pics, as the live window had them then: the second still open, and
// the seconds closed before it that the window holds (one second less
// than the window), since the latest reset of the figures.
func TreeAt(pics []*Picture, i int, window time.Duration) [][]NodeFig {
	// The second still open when the i-th picture was taken counts in its
	// window: its weights are in no earlier picture, and in a later one's
	// closed seconds only.
	out := [][]NodeFig{pics[i].TreeOpen}
	if pics[i].TreeOpenStart == 0 {
		return treeAtByPictures(out, pics, i, window)
	}
	from := pics[i].TreeOpenStart - int64(window) + int64(time.Second)
	for j := i; j >= 0; j-- {
		p := pics[j]
		begin, older := int32(0), false
		for _, s := range p.TreeSeconds {
			if s.Start >= from && s.End <= int32(len(p.Tree)) && begin <= s.End {
				out = append(out, p.Tree[begin:s.End])
			}
			older = older || s.Start < from
			begin = s.End
		}
		if older || p.TreeReset {
			break
		}
	}
	return out
}

// treeAtByPictures is TreeAt for pictures that do not say which seconds
// their weights are of (a bundle of an earlier proftop): the pictures
// taken within window, which holds a second or two more than the live
// window did.
func treeAtByPictures(out [][]NodeFig, pics []*Picture, i int, window time.Duration) [][]NodeFig {
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
