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

// The runtime's counters agree at every poll, as a real runtime's would:
// a task a worker handled is counted once, in its kind, and has completed
// or is running or waiting for its children; the queues add up.
func TestTheRuntimesCountersAgree(t *testing.T) {
	rt := newTaskRuntime(7)
	names := map[string]int{}
	for i, s := range rt.series[len(jvmSeries):] {
		names[s.name] = i
	}
	kinds := []string{"Atomic", "Blocking", "Non-blocking"}
	sumOfWorkers := func(v []int64, counter string) int64 {
		var n int64
		for i := range workers {
			n += v[names[fmt.Sprintf("%s (%d)", counter, i+1)]]
		}
		return n
	}
	checks := []struct {
		name  string
		check func(v, before []int64) error
	}{
		{"a kind's completed tasks are at most the workers' handled", func(v, _ []int64) error {
			for _, k := range kinds {
				if c, h := v[names[k+" Tasks Completed"]], sumOfWorkers(v, "No of "+k+" Tasks Handled"); c > h {
					return fmt.Errorf("%s: %d completed, %d handled", k, c, h)
				}
			}
			return nil
		}},
		{"handled and not completed: running or waiting for children", func(v, _ []int64) error {
			var open int64
			for _, k := range kinds {
				open += sumOfWorkers(v, "No of "+k+" Tasks Handled") - v[names[k+" Tasks Completed"]]
			}
			if r, w := v[names["Running Tasks"]], v[names["Tasks Waiting for Children"]]; open != r+w {
				return fmt.Errorf("%d handled and not completed, %d running and %d waiting for children", open, r, w)
			}
			return nil
		}},
		{"the queues add up to the tasks waiting in them", func(v, _ []int64) error {
			if q, b, all := sumOfWorkers(v, "Tasks in Non-blocking Queue"), v[names["Tasks in Blocking Queue"]], v[names["Tasks Waiting in Queue"]]; q+b != all {
				return fmt.Errorf("workers' queues %d + blocking %d, waiting in queue %d", q, b, all)
			}
			return nil
		}},
		{"occupied queues are the workers' queues holding tasks", func(v, _ []int64) error {
			var n int64
			for i := range workers {
				if v[names[fmt.Sprintf("Tasks in Non-blocking Queue (%d)", i+1)]] > 0 {
					n++
				}
			}
			if o := v[names["Occupied Queues"]]; o != n {
				return fmt.Errorf("%d occupied, %d queues hold tasks", o, n)
			}
			return nil
		}},
		{"counts of tasks completed and handled never go down", func(v, before []int64) error {
			for name, i := range names {
				if (strings.HasSuffix(name, "Completed") || strings.Contains(name, "Handled")) && before != nil && v[i] < before[i] {
					return fmt.Errorf("%s: %d, then %d", name, before[i], v[i])
				}
			}
			return nil
		}},
	}
	var before []int64
	for tick := 1; tick <= 300; tick++ {
		rt.ticks = tick
		rt.step()
		v := rt.values()
		for _, c := range checks {
			if err := c.check(v, before); err != nil {
				t.Fatalf("second %d: %s: %v", tick, c.name, err)
			}
		}
		before = v
	}
	for _, k := range kinds {
		if before[names[k+" Tasks Completed"]] == 0 {
			t.Fatalf("no %s task completed in 300 seconds", k)
		}
	}
}
