package client

import (
	"fmt"
	"slices"
	"strings"

	"github.com/proftop/proftop/decode"
)

// Origin is what a source said about itself: its format and how that was
// settled, whether its data is a still picture, its notes, and its facts
// (rbkit's working directory and version). A bundle keeps it beside its raw stream, which holds the events
// re-encoded as a binary trace: without it, replaying a bundle of a
// ProfilerJ snapshot would say "binary", show the last 10 s of what has
// no timeline, and lose the snapshot's notes.
type Origin struct {
	// Format is the name decode.Format gives it ("profilerj snapshot"):
	// a name, not a number, so that a bundle stays readable when formats
	// are added, and says what it is to whoever opens it with tar.
	Format      string `json:"format,omitempty"`
	Negotiation string `json:"negotiation,omitempty"`
	Still       bool   `json:"still,omitempty"`
	// Notes are what the data is beyond its format (the decoder's): not
	// how it was read (followed, paced), which is no fact of the data.
	Notes []string `json:"notes,omitempty"`
	// Facts, not the agent (a process name and pid): the stream's own
	// process definition says who it was, and the header has room for
	// one of them.
	Facts []Fact `json:"facts,omitempty"`
}

// Origin is what the source says about itself now, for a bundle to keep.
// A source that replays a bundle says what the bundle's source said.
func (s Status) Origin() Origin {
	if s.recorded != nil {
		o := *s.recorded
		o.Notes, o.Facts = slices.Clone(o.Notes), slices.Clone(o.Facts)
		return o
	}
	o := Origin{Still: s.Still, Notes: slices.Clone(s.sourceNotes), Facts: slices.Clone(s.Facts)}
	if s.Format != 0 {
		o.Format, o.Negotiation = s.Format.String(), s.Negotiation.String()
	}
	return o
}

// formatNamed is the format whose name is name.
func formatNamed(name string) (decode.Format, bool) {
	for f := decode.Format(1); f != 0; f++ { // every value of the uint8, 0 (none) aside
		if f.String() == name {
			return f, true
		}
	}
	return 0, false
}

// FromBundle is src (a bundle's raw stream, or nothing when the bundle
// holds none) saying what the bundle's source said about itself: its
// format (read "from a bundle"), a still picture, its notes, its facts;
// and then notes, what the bundle itself needs said. recorded is
// nil for a bundle written before bundles kept it: src then says what its
// stream is, a binary trace.
func FromBundle(src Source, recorded *Origin, notes []string) Source {
	return &bundleSource{Source: src, recorded: recorded, notes: slices.Clone(notes)}
}

type bundleSource struct {
	Source
	recorded *Origin
	notes    []string
}

// Unwrap is the source that plays the bundle.
func (b *bundleSource) Unwrap() Source { return b.Source }

func (b *bundleSource) Status() Status {
	st := b.Source.Status()
	o := b.recorded
	if o == nil {
		st.Notes = slices.Concat(st.Notes, b.notes)
		return st
	}
	var unknown []string
	if f, ok := formatNamed(o.Format); ok {
		st.Format, st.Negotiation = f, OutcomeBundle
	} else if o.Format != "" {
		unknown = []string{fmt.Sprintf("recorded from a source in a format this proftop does not know (%s), played as its stream is", o.Format)}
	}
	if o.Still {
		st.Still = true
		// The stream ends where the snapshot did: said as of the snapshot.
		if rest, ok := strings.CutPrefix(st.Cause, causeEndOfFile); ok && st.State == StateEnded {
			st.Cause = causeStillEnd + rest
		}
	}
	if len(st.Facts) == 0 {
		st.Facts = slices.Clone(o.Facts)
	}
	st.Notes = slices.Concat(o.Notes, unknown, st.Notes, b.notes)
	st.recorded = o
	return st
}
