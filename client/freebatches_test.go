package client

import "testing"

// The batch handed back last is reused first, and no more than
// maxFreeBatches are kept.
func TestFreeBatchesReuseTheLastFirstAndAreBounded(t *testing.T) {
	var f freeBatches
	if f.take() != nil {
		t.Fatal("an empty list gave a batch")
	}
	var batches [maxFreeBatches + 2]Batch
	for i := range batches {
		f.put(&batches[i])
	}
	for i := maxFreeBatches - 1; i >= 0; i-- {
		if got := f.take(); got != &batches[i] {
			t.Fatalf("take %d: got batch %p, want the one put %d-th", maxFreeBatches-i, got, i)
		}
	}
	if f.take() != nil {
		t.Fatalf("more than %d batches were kept", maxFreeBatches)
	}
}
