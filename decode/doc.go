// Package decode turns a profiler trace stream into events.
//
// It reads the two encodings of the TPTP trace vocabulary described in the
// project's trace-format specification: the binary stream (.trcbin, starting
// with the 12-byte "0TBF" header) and the XML stream (.trcxml, an unclosed
// <TRACE> element, often wrapped in a zip archive). Both decode to the same
// event values, defined in events.go, so consumers never care which encoding
// a profiler chose.
//
// Every event kind is a plain Go struct whose fields are declared in wire
// order. At start-up one table is built from those structs (registry.go) and
// that table drives every codec: the binary decoder and encoder, the XML
// decoder and writer, and the JSON rendering. Adding a message is one struct
// and one registry line.
//
// The decoders are incremental: they read from an io.Reader whose reads may
// end anywhere (inside a header, a string, an array) and resume without
// losing or repeating bytes. They are built for a live socket: no allocation
// per message in steady state, names interned, and every malformed input
// reported as an *Error naming the message, the field and the stream offset.
package decode
