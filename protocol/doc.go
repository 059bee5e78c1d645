// Package protocol is the wire protocol between proftop and a profiler's
// agent controller, as specified in docs/protocol.md: one TCP connection
// carrying frames (a 12-byte envelope, then a payload), where control frames
// hold XML command fragments and data frames hold the trace stream.
//
// Both sides use it: the client in package client, the simulated profiler
// in package simulator. The JVM agent implements the same document in Java.
package protocol
