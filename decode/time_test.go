package decode

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"
)

// decodeThrough reads every event until EOF or a fatal error, keeping the
// events (cloned) and the errors.
func decodeThrough(d Decoder) (evs []Event, errs []error) {
	for {
		ev, err := d.Next()
		if err == io.EOF {
			return evs, errs
		}
		if err != nil {
			errs = append(errs, err)
			if IsFatal(err) {
				return evs, errs
			}
			continue
		}
		evs = append(evs, Clone(ev))
	}
}

// wantOneValueError checks that errs is exactly one non-fatal ErrValue of
// element and field whose text says detail.
func wantOneValueError(t *testing.T, errs []error, element, field, detail string) *Error {
	t.Helper()
	if len(errs) != 1 {
		t.Fatalf("%d errors, want 1: %v", len(errs), errs)
	}
	var de *Error
	if !errors.As(errs[0], &de) || !errors.Is(de, ErrValue) {
		t.Fatalf("got %v, want an *Error of %v", errs[0], ErrValue)
	}
	if de.Element != element || de.Field != field || de.Fatal || !strings.Contains(de.Error(), detail) {
		t.Fatalf("got %q (element %q, field %q, fatal %v), want element %q, field %q, saying %q",
			de, de.Element, de.Field, de.Fatal, element, field, detail)
	}
	return de
}

// A time no event can have (before 1970, or past what the clock holds) and
// a frequency no profiler's timer has are refused, naming the message and
// the field; the message is skipped and the stream goes on. Before, a
// methodEntry at -5 s made a method of 20,778 days, and a frequency of 1
// tick a second put every event of a nanosecond stream at 2262-04-11, all
// without an error.
func TestBinaryImpossibleTimesAreRefused(t *testing.T) {
	const ns2023 = Ticks(1_700_000_000_000_000_000) // nanoseconds since 1970
	after := &GCStart{ThreadMoment{Time: ns2023}}
	for _, tc := range []struct {
		name           string
		evs            []Event
		bad            int // index of the refused event
		element, field string
		detail         string
		wantTime       Ticks // of the event after the bad one, in the clock then in force
	}{
		{"negative time", []Event{&MethodEntry{ThreadIDRef: 1, Time: -5_000_000_000, MethodIDRef: 2}, after},
			0, "methodEntry", "time", "-5.000000000 seconds is before 1970", ns2023},
		{"negative time of a kind with a stack", []Event{&MonWait{MonitorWait{ThreadIDRef: 1, Time: -1, Stack: Stack{Methods: []string{"a.B.c"}, Lines: []int64{3}}}}, after},
			0, "monWait", "time", "before 1970", ns2023},
		{"negative time of a telemetry sample (a custom message)", []Event{&TelemetryValue{Time: -1, Series: 1, Value: 2}, after},
			0, "telemetryValue", "time", "before 1970", ns2023},
		{"a frequency of one tick a second before nanosecond times", []Event{&Frequency{Frequency: 1}, after},
			0, "frequency", "frequency", "1 ticks per second, below 1000", ns2023},
		{"a frequency of zero", []Event{&Frequency{Frequency: 0}, after},
			0, "frequency", "frequency", "0 ticks per second", ns2023},
		{"a time past what a millisecond clock holds", []Event{&Frequency{Frequency: MinFrequency}, &GCStart{ThreadMoment{Time: ns2023}}, &GCStart{ThreadMoment{Time: 1_700_000_000_000}}},
			1, "gcStart", "time", "after 2262-04-11", 1_700_000_000_000},
	} {
		t.Run(tc.name, func(t *testing.T) {
			data := encodeBinary(t, tc.evs, EncoderOptions{})
			// The offset of the bad message: encode what comes before it.
			badAt := int64(len(encodeBinary(t, tc.evs[:tc.bad], EncoderOptions{})))
			if tc.bad == 0 {
				badAt = HeaderSize
			}

			got, errs := decodeThrough(NewBinaryDecoder(bytes.NewReader(data), Options{}))
			de := wantOneValueError(t, errs, tc.element, tc.field, tc.detail)
			if de.Offset != badAt {
				t.Fatalf("offset %d, want %d, the message's", de.Offset, badAt)
			}
			if len(got) != len(tc.evs)-1 {
				t.Fatalf("%d events after the refusal, want %d", len(got), len(tc.evs)-1)
			}
			if tm, _ := Time(got[len(got)-1]); tm != tc.wantTime {
				t.Fatalf("the event after it has time %d, want %d", tm, tc.wantTime)
			}

			// Decoded straight into a batch, the bad message is not placed.
			var b Batch
			d := NewBinaryDecoder(bytes.NewReader(data), Options{})
			var appendErrs []error
			for {
				err := d.AppendNext(func() *Batch { return &b })
				if err == io.EOF {
					break
				}
				if err != nil {
					appendErrs = append(appendErrs, err)
				}
			}
			wantOneValueError(t, appendErrs, tc.element, tc.field, tc.detail)
			if b.Len() != len(tc.evs)-1 {
				t.Fatalf("AppendNext: %d events in the batch, want %d", b.Len(), len(tc.evs)-1)
			}
		})
	}
}

// The same in XML, where times are decimal seconds.
func TestXMLImpossibleTimesAreRefused(t *testing.T) {
	const next = `<gcStart time="1700000000.5"/>`
	for _, tc := range []struct {
		name           string
		doc            string
		element, field string
		detail         string
		line, col      int
	}{
		{"negative time", "<TRACE>\n<methodEntry threadIdRef=\"1\" time=\"-5.000000000\" methodIdRef=\"2\"/>" + next,
			"methodEntry", "time", "-5.000000000 seconds is before 1970", 2, 1},
		{"negative time in an element with frames", "<TRACE><monWait time=\"-0.000000001\" stackDepth=\"1\"><frame method=\"a.B.c\" line=\"1\"/></monWait>" + next,
			"monWait", "time", "before 1970", 1, 8},
		{"negative time of a telemetry sample", `<TRACE><custom body="proftop:telemetryValue/1?time=-1.0&amp;series=1&amp;value=2"/>` + next,
			"custom", "time", "before 1970", 1, 8},
		{"a frequency of one tick a second", `<TRACE><frequency frequency="1"/>` + next,
			"frequency", "frequency", "below 1000", 1, 8},
		{"a time past what a millisecond clock holds", `<TRACE><frequency frequency="1000"/><gcStart time="9300000000"/>` + next,
			"gcStart", "time", "after 2262-04-11", 1, 37},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, errs := decodeThrough(NewXMLDecoder(strings.NewReader(tc.doc), Options{}))
			de := wantOneValueError(t, errs, tc.element, tc.field, tc.detail)
			if de.Line != tc.line || de.Column != tc.col {
				t.Fatalf("line %d column %d, want %d:%d (%v)", de.Line, de.Column, tc.line, tc.col, de)
			}
			last, ok := got[len(got)-1].(*GCStart)
			if !ok || last.Time <= 0 {
				t.Fatalf("the element after it: %#v", got[len(got)-1])
			}
		})
	}
}

// The latest time a clock holds is the last tick whose nanoseconds since
// 1970 fit an int64: one more would saturate.
func TestLatestTimeIsTheLastThatFits(t *testing.T) {
	for _, freq := range []int64{0, 1, 3, 1000, 999_999_937, 1e9, 2_400_000_000} {
		c := Clock{Frequency: freq}
		latest := c.latestTime()
		if d := c.Duration(latest); d == 1<<63-1 && c.freq() < DefaultFrequency {
			t.Errorf("freq %d: the latest time %d saturates", freq, latest)
		}
		if c.freq() < DefaultFrequency {
			if d := c.Duration(latest + 1); d != 1<<63-1 {
				t.Errorf("freq %d: one tick after the latest (%d) still fits: %d", freq, latest, d)
			}
		}
	}
}
