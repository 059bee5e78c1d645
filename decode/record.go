package decode

import (
	"strconv"
)

// Formats with a vocabulary of their own (a Jinsight trace, a ProfilerJ
// snapshot) decode into records under their own names, which is what
// `proftop decode` prints, and map those records into the events of
// events.go and extensions.go for everything else: one event model, one
// picture.

// Record is one event of a format with a vocabulary of its own.
type Record interface {
	// Type is the format's own name for the record ("WIDE_METHOD_ENTER").
	Type() string
	// AppendJSON renders the record as one JSON object, "type" first and
	// every field under the format's own name.
	AppendJSON(dst []byte) []byte
}

// RecordSource is a decoder whose format has records of its own. NextRecord
// and Next read the same stream: a caller uses one or the other. A record
// is valid until the next call.
type RecordSource interface {
	NextRecord() (Record, error)
}

// Describer is a decoder with something to say about its data beyond the
// events: that its times are approximate, that it is one moment rather
// than a stream, what it repaired.
type Describer interface {
	// Notes are short sentences for the header, about the data so far.
	Notes() []string
	// Still says the data is a still picture (a snapshot file): what it
	// shows holds at one moment and has no timeline.
	Still() bool
}

// jsonObject writes one JSON object field by field: the shared helper of
// the records' AppendJSON.
type jsonObject struct{ b []byte }

func newJSONObject(dst []byte, typ string) jsonObject {
	dst = append(dst, `{"type":`...)
	return jsonObject{appendJSONString(dst, typ)}
}

func (o *jsonObject) str(key, v string) {
	o.b = appendJSONKey(o.b, key)
	o.b = appendJSONString(o.b, v)
}

func (o *jsonObject) int(key string, v int64) {
	o.b = appendJSONKey(o.b, key)
	o.b = strconv.AppendInt(o.b, v, 10)
}

func (o *jsonObject) uint(key string, v uint64) {
	o.b = appendJSONKey(o.b, key)
	o.b = strconv.AppendUint(o.b, v, 10)
}

func (o *jsonObject) bool(key string, v bool) {
	o.b = appendJSONKey(o.b, key)
	o.b = strconv.AppendBool(o.b, v)
}

func (o *jsonObject) ints(key string, v []int64) {
	o.b = appendJSONKey(o.b, key)
	o.b = append(o.b, '[')
	for i, x := range v {
		if i > 0 {
			o.b = append(o.b, ',')
		}
		o.b = strconv.AppendInt(o.b, x, 10)
	}
	o.b = append(o.b, ']')
}

// raw adds a value already rendered as JSON.
func (o *jsonObject) raw(key string, v []byte) {
	o.b = appendJSONKey(o.b, key)
	o.b = append(o.b, v...)
}

func (o *jsonObject) end() []byte { return append(o.b, '}') }
