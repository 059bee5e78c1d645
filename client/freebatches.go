package client

import "sync"

// freeBatches holds consumed batches for reuse, the last one handed back
// first: its storage is the likeliest to be still in the processor's
// cache, and a batch is the events' whole working set (about 128 bytes an
// event). A queue would cycle through every batch ever made.
type freeBatches struct {
	mu      sync.Mutex
	batches []*Batch
}

// maxFreeBatches bounds the batches kept for reuse; more are let go.
const maxFreeBatches = 8

// put keeps b for reuse, unless enough are kept already.
func (f *freeBatches) put(b *Batch) {
	f.mu.Lock()
	if len(f.batches) < maxFreeBatches {
		f.batches = append(f.batches, b)
	}
	f.mu.Unlock()
}

// take returns the batch handed back last, or nil when none is kept.
func (f *freeBatches) take() *Batch {
	f.mu.Lock()
	defer f.mu.Unlock()
	n := len(f.batches)
	if n == 0 {
		return nil
	}
	b := f.batches[n-1]
	f.batches[n-1] = nil
	f.batches = f.batches[:n-1]
	return b
}
