package simulator

import (
	"bytes"
	"fmt"
	"io"
	"reflect"
	"strings"
	"testing"

	"github.com/proftop/proftop/decode"
)

// The simulated runtime publishes the JVM's series, ten global counters and
// four per worker, as the Æminium runtime does through JProfiler's probe
// API, and a probe of its task states: declared once, a value each per
// poll, through both encodings alike.
func TestTheRuntimesSeriesThroughBothEncodings(t *testing.T) {
	w := NewWorld(Config{Seed: 5, Start: testStart})
	var evs []decode.Event
	for len(evs) < 400_000 {
		evs = append(evs, decode.Clone(w.Next()))
	}
	var telemetry []decode.Event
	declared := map[int64]string{}
	values := map[int64]int{}
	groups := map[string]int{}
	for _, ev := range evs {
		switch e := ev.(type) {
		case *decode.TelemetrySeries:
			if _, again := declared[e.Series]; again {
				t.Fatalf("series %d declared twice", e.Series)
			}
			declared[e.Series] = e.Name
			if i := strings.LastIndex(e.Name, " ("); i > 0 {
				groups[e.Name[:i]]++
			}
			telemetry = append(telemetry, ev)
		case *decode.TelemetryValue:
			if _, ok := declared[e.Series]; !ok {
				t.Fatalf("a value of series %d before its declaration", e.Series)
			}
			values[e.Series]++
			telemetry = append(telemetry, ev)
		case *decode.Probe:
			if e.Name != TaskProbe || e.Count <= 0 || e.Total <= 0 || len(e.Stack.Methods) == 0 {
				t.Fatalf("%+v", e)
			}
			telemetry = append(telemetry, ev)
		}
	}
	if len(declared) != len(jvmSeries)+10+4*workers {
		t.Fatalf("%d series declared", len(declared))
	}
	for _, g := range workerSeries {
		if groups[g] != workers {
			t.Fatalf("%s: %d workers", g, groups[g])
		}
	}
	polls := values[1]
	if polls < 10 {
		t.Fatalf("%d polls", polls)
	}
	for id, n := range values {
		if n != polls {
			t.Fatalf("series %s: %d values in %d polls", declared[id], n, polls)
		}
	}
	for _, format := range []decode.Format{decode.FormatBinary, decode.FormatXML} {
		var buf bytes.Buffer
		var write func(decode.Event) error
		var flush func() error
		if format == decode.FormatBinary {
			enc := decode.NewEncoder(&buf, decode.EncoderOptions{})
			write, flush = enc.Encode, enc.Flush
		} else {
			xw := decode.NewXMLWriter(&buf)
			write, flush = xw.Write, xw.Flush
		}
		for _, ev := range telemetry {
			if err := write(ev); err != nil {
				t.Fatal(err)
			}
		}
		flush()
		if !bytes.Contains(buf.Bytes(), []byte("proftop:telemetryValue/1?")) {
			t.Fatalf("%s: not in custom messages", format)
		}
		d := decode.NewDecoder(format, &buf, decode.Options{})
		var got []decode.Event
		for {
			ev, err := d.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatalf("%s: %v", format, err)
			}
			got = append(got, decode.Clone(ev))
		}
		if len(got) != len(telemetry) {
			t.Fatalf("%s: %d events, want %d", format, len(got), len(telemetry))
		}
		for i := range got {
			if !reflect.DeepEqual(got[i], telemetry[i]) {
				t.Fatalf("%s: event %d\n got %s\nwant %s", format, i, fmt.Sprint(got[i]), fmt.Sprint(telemetry[i]))
			}
		}
	}
}
