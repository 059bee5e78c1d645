package decode

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
)

// telemetryEvents is one of each kind of proftop's custom convention.
func telemetryEvents() []Event {
	tt := Ticks(1_700_000_000_123_456_789)
	return []Event{
		&TelemetrySeries{Time: tt, Series: 1, Name: "Threads (live)", Unit: UnitPlain, Divisor: 1},
		&TelemetrySeries{Time: tt, Series: 2, Name: "CPU load (process) <&\"'> Ж線", Unit: UnitPercent, Divisor: 100},
		&TelemetryValue{Time: tt + 1, Series: 1, Value: 42},
		&TelemetryValue{Time: tt + 1, Series: 2, Value: -1234},
		&TelemetryProblem{Time: tt + 2, Spec: "jmx:java.lang:type=Nope:Count", Problem: "no MBean matches java.lang:type=Nope"},
		&TelemetryProblem{Time: tt + 3, Spec: "jmx:java.lang:type=Nope:Count"},
		&Probe{Time: tt + 4, Name: "jfr:bank.Transfer#state", Group: "RUNNING", Count: 3, Total: 4_500_000, Max: 2_000_000,
			Stack: Stack{Methods: []string{"bank.Teller.transfer", "java.lang.Thread.run"}, Lines: []int64{88, -1}}},
		&Probe{Time: tt + 5, Name: "jfr:bank.Audit", Count: 1, Total: 10, Max: 10},
	}
}

// The body of each message is what docs/protocol.md shows.
func TestConventionBodies(t *testing.T) {
	want := []string{
		"proftop:telemetrySeries/1?time=1700000000.123456789&series=1&name=Threads+%28live%29&unit=plain&divisor=1",
		"proftop:telemetrySeries/1?time=1700000000.123456789&series=2&name=CPU+load+%28process%29+%3C%26%22%27%3E+%D0%96%E7%B7%9A&unit=percent&divisor=100",
		"proftop:telemetryValue/1?time=1700000000.123456790&series=1&value=42",
		"proftop:telemetryValue/1?time=1700000000.123456790&series=2&value=-1234",
		"proftop:telemetryProblem/1?time=1700000000.123456791&spec=jmx%3Ajava.lang%3Atype%3DNope%3ACount&problem=no+MBean+matches+java.lang%3Atype%3DNope",
		"proftop:telemetryProblem/1?time=1700000000.123456792&spec=jmx%3Ajava.lang%3Atype%3DNope%3ACount&problem=",
		"proftop:probe/1?time=1700000000.123456793&probe=jfr%3Abank.Transfer%23state&group=RUNNING&count=3&total=0.004500000&max=0.002000000&frame=bank.Teller.transfer%3A88&frame=java.lang.Thread.run%3A-1",
		"proftop:probe/1?time=1700000000.123456794&probe=jfr%3Abank.Audit&group=&count=1&total=0.000000010&max=0.000000010",
	}
	for i, ev := range telemetryEvents() {
		c, err := ConventionBody(ev, Clock{})
		if err != nil {
			t.Fatal(err)
		}
		if c.Body != want[i] {
			t.Errorf("%s:\n got %s\nwant %s", ev.Kind(), c.Body, want[i])
		}
	}
}

// The events of the convention come back the same through both encodings,
// at any tick frequency.
func TestConventionRoundTrips(t *testing.T) {
	for _, freq := range []int64{1e9, MinFrequency, 1_000_003} {
		evs := append([]Event{&Frequency{Frequency: freq}}, telemetryEvents()...)
		if freq != 1e9 {
			// Times in whole ticks of the coarser clock.
			for _, ev := range evs[1:] {
				p := specOf(ev.Kind()).base(ev)
				*fieldAt[Ticks](p, specOf(ev.Kind()).fields[0].off) = Ticks(1_700_000_000 * freq)
			}
		}
		sameEvents(t, decodeAll(t, NewBinaryDecoder(bytes.NewReader(encodeBinary(t, evs, EncoderOptions{})), Options{})), evs)
		sameEvents(t, decodeAll(t, NewXMLDecoder(bytes.NewReader(encodeXML(t, evs)), Options{})), evs)
	}
	// On the wire they are custom messages: a reader that predates them
	// sees custom bodies, nothing else.
	data := encodeBinary(t, telemetryEvents()[:1], EncoderOptions{})
	if id := binary.LittleEndian.Uint16(data[HeaderSize:]); id != 1041 {
		t.Fatalf("message id %d", id)
	}
	if !bytes.Contains(encodeXML(t, telemetryEvents()[:1]), []byte(`<custom body="proftop:telemetrySeries/1?time=`)) {
		t.Fatal("not a custom element")
	}
}

// A custom body that does not claim the convention stays a custom event.
func TestOtherCustomBodiesStayCustom(t *testing.T) {
	evs := []Event{&Custom{Body: "com.acme.shop"}, &Custom{Body: "proftop"}, &Custom{Body: "PROFTOP:telemetryValue/1?series=1"}}
	sameEvents(t, decodeAll(t, NewBinaryDecoder(bytes.NewReader(encodeBinary(t, evs, EncoderOptions{})), Options{})), evs)
	sameEvents(t, decodeAll(t, NewXMLDecoder(bytes.NewReader(encodeXML(t, evs)), Options{})), evs)
}

// Hostile bodies that claim the convention are refused, each with an error
// that names the message, the attribute and what was found; the decoder
// goes on with the next message.
func TestHostileConventionBodies(t *testing.T) {
	huge := strings.Repeat("x", 70<<10)
	frames := strings.Repeat("&frame=a.b%3A1", 300)
	for _, tc := range []struct {
		name, body string
		want       error
		attr, in   string
	}{
		{"unknown message", "proftop:telemetryFoo/1?x=1", ErrConventionUnknown, "", `"telemetryFoo"`},
		{"unknown version", "proftop:telemetryValue/2?series=1", ErrConventionVersion, "", `version "2"`},
		{"no version", "proftop:telemetryValue?series=1", ErrConventionVersion, "", "version"},
		{"no query", "proftop:telemetryValue/1", ErrConventionSyntax, "", "no '?'"},
		{"bad escape", "proftop:telemetryValue/1?series=%zz", ErrConventionSyntax, "", "invalid URL escape"},
		{"huge body", "proftop:telemetrySeries/1?name=" + huge, ErrConventionSize, "", "at most 65536"},
		{"huge name", "proftop:telemetrySeries/1?unit=plain&name=" + strings.Repeat("n", 1000), ErrConventionValue, "name", "1000 bytes, at most 256"},
		{"empty name", "proftop:telemetrySeries/1?unit=plain&series=3", ErrConventionValue, "name", "empty"},
		{"unknown unit", "proftop:telemetrySeries/1?name=x&unit=furlongs", ErrConventionValue, "unit", `"furlongs" is not one of plain, percent, bytes, microseconds`},
		{"negative divisor", "proftop:telemetrySeries/1?name=x&unit=plain&divisor=-2", ErrConventionValue, "divisor", "positive"},
		{"infinite divisor", "proftop:telemetrySeries/1?name=x&unit=plain&divisor=Inf", ErrConventionValue, "divisor", "positive"},
		{"repeated attribute", "proftop:telemetryValue/1?series=1&series=2", ErrConventionValue, "series", "given 2 times"},
		{"not a number", "proftop:telemetryValue/1?series=1&value=12abc", ErrConventionValue, "value", `"12abc" is not a 64-bit integer`},
		{"not seconds", "proftop:telemetryValue/1?time=yesterday&series=1", ErrConventionValue, "time", "decimal seconds"},
		{"too many frames", "proftop:probe/1?probe=p" + frames, ErrConventionValue, "frame", "300 frames, at most 256"},
		{"frame without line", "proftop:probe/1?probe=p&frame=a.b", ErrConventionValue, "frame", "METHOD:LINE"},
		{"problem about nothing", "proftop:telemetryProblem/1?problem=bad", ErrConventionValue, "spec", "empty"},
		{"probe without a name", "proftop:probe/1?count=3", ErrConventionValue, "probe", "empty"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			after := &TelemetryValue{Series: 9, Value: 1}
			evs := []Event{&Custom{Body: tc.body}, after}
			for format, d := range map[string]Decoder{
				"binary": NewBinaryDecoder(bytes.NewReader(encodeBinary(t, evs, EncoderOptions{})), Options{}),
				"xml":    NewXMLDecoder(bytes.NewReader(encodeXML(t, evs)), Options{}),
			} {
				_, err := d.Next()
				var de *Error
				var ce *ConventionError
				if !errors.As(err, &de) || de.Fatal || !errors.As(err, &ce) || !errors.Is(err, tc.want) {
					t.Fatalf("%s: %v, want a non-fatal %v", format, err, tc.want)
				}
				if de.Element != "custom" || de.Field != "body" || ce.Attribute != tc.attr || !strings.Contains(err.Error(), tc.in) {
					t.Fatalf("%s: %v (attribute %q)", format, err, ce.Attribute)
				}
				if len(err.Error()) > 600 {
					t.Fatalf("%s: an error of %d bytes quotes too much of the body", format, len(err.Error()))
				}
				ev, err := d.Next()
				if err != nil || *ev.(*TelemetryValue) != *after {
					t.Fatalf("%s: after the bad body: %v %v", format, ev, err)
				}
				if _, err := d.Next(); err != io.EOF {
					t.Fatalf("%s: %v", format, err)
				}
			}
		})
	}
}

// Bodies in the convention as another agent might write them: attributes
// in any order, unknown ones (a later version's) skipped, absent ones at
// their defaults, an absent divisor taken as 1.
func TestConventionIsLenientWhereItCanBe(t *testing.T) {
	body := "proftop:telemetrySeries/1?unit=bytes&name=Heap&series=7&colour=blue"
	d := NewBinaryDecoder(bytes.NewReader(encodeBinary(t, []Event{&Custom{Body: body}}, EncoderOptions{})), Options{})
	ev, err := d.Next()
	if err != nil {
		t.Fatal(err)
	}
	want := TelemetrySeries{Series: 7, Name: "Heap", Unit: UnitBytes, Divisor: 1}
	if got := *ev.(*TelemetrySeries); got != want {
		t.Fatalf("%+v", got)
	}
}

func FuzzConvention(f *testing.F) {
	for _, ev := range telemetryEvents() {
		c, _ := ConventionBody(ev, Clock{})
		f.Add(c.Body)
	}
	f.Add("proftop:probe/1?probe=p&frame=a%3A1&frame=%3A&count=-1")
	f.Add("proftop:telemetrySeries/1?name=x&unit=plain&divisor=0x1p-3")
	f.Fuzz(func(t *testing.T, body string) {
		d := NewBinaryDecoder(bytes.NewReader(encodeBinary(t, []Event{&Custom{Body: strings.ReplaceAll(body, "\x00", "")}}, EncoderOptions{})), Options{})
		evs := drain(t, d)
		reencode(t, evs)
		for _, ev := range evs {
			if s, ok := ev.(*TelemetrySeries); ok && (s.Divisor <= 0 || len(s.Name) > maxSeriesName || !knownUnit(s.Unit)) {
				t.Fatalf("accepted %s", fmt.Sprint(*s))
			}
		}
	})
}
