package client

import "context"

// NothingSource is a source with no events, ended from the start for a
// reason its status says: a bundle written without its raw stream
// (--stream-ring 0) reopens with its history, and nothing to play.
type NothingSource struct {
	track *tracker
	why   string
	out   chan *Batch
}

// NewNothingSource returns a source named name that ends at once, why.
func NewNothingSource(name, why string) *NothingSource {
	return &NothingSource{track: newTracker(name), why: why, out: make(chan *Batch)}
}

func (n *NothingSource) Run(ctx context.Context) error {
	n.track.setState(StateEnded, n.why)
	close(n.out)
	return nil
}

func (n *NothingSource) Batches() <-chan *Batch { return n.out }
func (n *NothingSource) Recycle(*Batch)         {}
func (n *NothingSource) Status() Status         { return n.track.snapshot() }
