// Package client brings trace events to proftop: from a profiler's agent
// controller over the protocol of docs/protocol.md (Session), or from a
// recorded trace file (FileSource). Both are a Source: they decode off the
// caller's goroutine and hand events over in batches, with a Status the UI
// can poll. A Fleet is many sessions at once, one per JVM, each failing
// and reconnecting on its own.
package client
