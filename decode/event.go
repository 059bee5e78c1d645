package decode

// Kind identifies an event kind, independent of the wire encoding.
type Kind uint8

// Event is one decoded trace event. The concrete types are the structs in
// events.go; switch on the dynamic type or on Kind.
//
// Events returned by a decoder are flyweights owned by the decoder: the
// struct and its Stack slices are overwritten by the next call to Next.
// Strings are interned and stay valid. Use Clone, or a Batch, to keep an
// event beyond the next call.
type Event interface {
	Kind() Kind
}

// Ticks is a raw timestamp or duration in the stream's timer ticks. Convert
// it with the Clock of the stream that produced it.
type Ticks int64

// Stack is a call stack as a profiler reports it with a monitor event:
// innermost frame first. Methods[i] is a display name such as
// "com.acme.Cache.get" and Lines[i] its source line (-1 or 0 when unknown).
// On the wire it is the three attributes stackDepth, stackMethods and
// stackLines; the depth is len(Methods), and Lines always has the same length.
type Stack struct {
	Methods []string
	Lines   []int64
}

// Depth is the number of frames.
func (s Stack) Depth() int { return len(s.Methods) }

// Attr is an XML attribute the decoder does not know, kept as text.
type Attr struct {
	Name  string
	Value string
}
