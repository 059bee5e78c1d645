package decode

// Format is a trace encoding.
type Format uint8

const (
	FormatBinary    Format = iota + 1 // .trcbin
	FormatXML                         // .trcxml
	FormatRbkit                       // rbkit's msgpack frames, as its PUB socket sends them
	FormatJinsight                    // a JinsightLive binary trace (.trc)
	FormatProfilerJ                   // a ProfilerJ XML snapshot
)

func (f Format) String() string {
	switch f {
	case FormatBinary:
		return "binary"
	case FormatXML:
		return "xml"
	case FormatRbkit:
		return "rbkit"
	case FormatJinsight:
		return "jinsight"
	case FormatProfilerJ:
		return "profilerj snapshot"
	}
	return "unknown"
}

// Decoder is what every decoder offers.
type Decoder interface {
	// Next returns the next event, io.EOF at the normal end, or an error;
	// see BinaryDecoder.Next for the error contract.
	Next() (Event, error)
	// Offset is the stream offset at which the last returned event began.
	Offset() int64
	// InputOffset is the number of stream bytes consumed so far.
	InputOffset() int64
	// Clock converts the stream's ticks.
	Clock() Clock
	// Format is the stream's encoding.
	Format() Format
}
