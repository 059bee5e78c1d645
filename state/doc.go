// Package state turns trace events into the live picture: an Aggregator
// applies the events of one JVM (on the goroutine that feeds it) and hands
// out immutable Snapshots of its threads, methods, monitors, deadlocks, GC
// and objects, its memory bounded by Options whatever the stream holds. A
// Fleet is one Aggregator per JVM, summarized a line each (Summary). The
// package knows events, not where they came from.
package state
