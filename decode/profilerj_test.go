package decode

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"
	"time"
)

const profilerJFixture = "../testdata/profilerj/snapshot-synthetic.xml"

// The synthetic snapshot reads as one record per element, under the
// format page's names.
func TestProfilerJRecords(t *testing.T) {
	data := readFixture(t, profilerJFixture)
	d, err := Open(bytes.NewReader(data), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if d.Format() != FormatProfilerJ {
		t.Fatalf("format %v", d.Format())
	}
	rs := d.(RecordSource)
	counts := map[string]int{}
	var nodes []map[string]any
	for {
		rec, err := rs.NextRecord()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		var obj map[string]any
		if err := json.Unmarshal(rec.AppendJSON(nil), &obj); err != nil {
			t.Fatalf("not JSON: %s", rec.AppendJSON(nil))
		}
		counts[obj["section"].(string)+" "+rec.Type()]++
		if rec.Type() == "profile" {
			nodes = append(nodes, obj)
		}
	}
	want := map[string]int{"profile thread": 3, "profile profile": 14, "sampler thread": 2, "sampler profile": 10,
		"memory thread": 2, "memory memory": 7, "coverage class": 2, "coverage method": 5}
	for k, n := range want {
		if counts[k] != n {
			t.Errorf("%s: %d, want %d", k, counts[k], n)
		}
	}
	// The third node is the page's AWTEvent, under ComponentEvent.
	if n := nodes[2]; n["name"] != "java.awt.AWTEvent(java.lang.Object,int)" || n["parent"] != 2.0 || n["count"] != 88.0 || n["thread"] != "AWT-Windows" {
		t.Fatalf("node 3: %v", n)
	}
	if _, ok := nodes[2]["methodElapsed"]; ok {
		t.Fatal("an attribute the element lacks is written")
	}
}

// The picture's events: threads, their CPU, each tree node as a sample
// (calls for the instrumented tree, hits for the sampler), ended threads,
// the census, the coverage; all at the file's moment.
func TestProfilerJEvents(t *testing.T) {
	data := readFixture(t, profilerJFixture)
	at := time.Date(2026, 11, 21, 9, 30, 0, 0, time.UTC)
	d := NewProfilerJDecoder(bytes.NewReader(data), Options{Modified: at})
	evs := drain(t, d)
	var calls, hits, census int64
	var kinds []string
	for _, ev := range evs {
		if k := ev.Kind().String(); len(kinds) == 0 || kinds[len(kinds)-1] != k {
			kinds = append(kinds, k)
		}
		switch e := ev.(type) {
		case *Sample:
			if e.Flags&SampleAggregate == 0 {
				t.Fatal("a snapshot's sample is not marked as aggregate")
			}
			if e.Flags&SampleCalls != 0 {
				calls += e.Count
			} else {
				hits += e.Count
			}
			if e.Time != Ticks(at.UnixNano()) {
				t.Fatalf("sample at %d", e.Time)
			}
		case *ObjectCensus:
			census += e.Count
		case *ThreadEnd:
			if e.ThreadIDRef != 3 {
				t.Fatalf("thread %d ended", e.ThreadIDRef)
			}
		}
	}
	if strings.Join(kinds, " ") != "threadStart threadCpu sample threadEnd objectCensus coverage" {
		t.Fatalf("events in the order %v", kinds)
	}
	// Calls: 88·3 + 1 + 12 + 1 + 1 + 5000 + 4999 + 310 + 600 + 1 + 1 + 5; hits: 2 + 6 + 2.
	if calls != 11195 || hits != 10 || census != 307 {
		t.Fatalf("%d calls, %d hits, %d objects", calls, hits, census)
	}
	// A node's stack is its path, innermost first, with the JVM signature
	// (a constructor named <init>, as Java names it); its own time, its
	// cumulated time and CPU times as the file says them.
	unprofiled := 0
	for _, ev := range evs {
		s, ok := ev.(*Sample)
		switch {
		case ok && s.Count == 12:
			want := []string{"java.awt.AWTEvent.<init>(Ljava/lang/Object;I)V", "sun.awt.windows.WToolkit.eventLoop()V"}
			if strings.Join(s.Stack.Methods, "|") != strings.Join(want, "|") || s.Weight != 1_000_000 || s.Total != 1_000_000 ||
				s.Flags != SampleCalls|SampleAggregate|SampleTotal|SampleCPU|SampleTotalCPU || s.CPU != 0 || s.TotalCPU != 0 {
				t.Fatalf("%+v", s)
			}
		case ok && s.Count == 4999: // dispatchEvent: method="15625" cumulated="453125"
			if s.Weight != 180_000_000 || s.Total != 880_000_000 || s.CPU != 15_625_000 || s.TotalCPU != 453_125_000 {
				t.Fatalf("%+v", s)
			}
		case ok && s.Flags&SampleUnprofiled != 0:
			// WToolkit.eventLoop: cumulatedElapsed 900000, its own 850000, its call's 1000.
			unprofiled++
			want := []string{UnprofiledFrame, "sun.awt.windows.WToolkit.eventLoop()V"}
			if strings.Join(s.Stack.Methods, "|") != strings.Join(want, "|") || s.Weight != 49_000_000 || s.Count != 0 {
				t.Fatalf("%+v", s)
			}
		}
	}
	if unprofiled != 1 {
		t.Fatalf("%d nodes of unprofiled callees", unprofiled)
	}
}

// Broken, foreign or absurd documents are refused whole, with the line
// and column of what is wrong; nothing of them is shown.
func TestProfilerJRefusesBadDocuments(t *testing.T) {
	doc := func(body string) string { return "<?xml version=\"1.0\"?>\n<doc>\n" + body + "\n</doc>\n" }
	thread := func(nodes string) string {
		return doc("<profile>\n<thread name=\"t\" cpuTime=\"1\" isAlive=\"true\">\n" + nodes + "\n</thread>\n</profile>")
	}
	for _, tc := range []struct {
		name, in, want string
		max            int
	}{
		{"malformed", doc("<profile>\n<thread name=\"t\">\n<profile name=\"a\" count=\"1\">\n</thread>"), "(line 6, column 10): malformed XML: element <profile> closed by </thread>", 0},
		{"not a snapshot", "<?xml version=\"1.0\"?>\n<html><body/></html>", "(line 2, column 1): element <html>: unrecognized stream format: the root element is <html>", 0},
		{"unknown element", doc("<profile>\n  <process name=\"x\"/>\n</profile>"), "(line 4, column 3): element <process>: unrecognized stream format: <process> inside <profile>", 0},
		{"negative count", thread("  <profile name=\"a\" count=\"-1\"/>"), "(line 5, column 3): element <profile>: field count: invalid value: count=\"-1\"", 0},
		{"absurd count", thread("<profile name=\"a\" count=\"99999999999999999999\"/>"), "field count: invalid value", 0},
		{"absurd time", thread("<profile name=\"a\" cumulatedElapsed=\"4000000000000000\"/>"), "field cumulatedElapsed: invalid value: cumulatedElapsed=\"4000000000000000\": want microseconds from 0 to a century", 0},
		{"absurd cpu", doc("<sampler><thread name=\"t\" cpuTime=\"1e99\"/></sampler>"), "field cpuTime: invalid value: cpuTime=\"1e99\"", 0},
		{"isAlive", doc("<profile><thread name=\"t\" isAlive=\"maybe\"/></profile>"), "field isAlive: invalid value: isAlive=\"maybe\": want true or false", 0},
		{"no name", thread("<profile count=\"1\"/>"), "element <profile>: field name: invalid value: missing", 0},
		{"node outside a thread", doc("<profile><profile name=\"a\"/></profile>"), "<profile> inside <profile> is not part of a ProfilerJ snapshot", 0},
		{"max below count", doc("<memory><thread name=\"t\"><memory class=\"C\" count=\"5\" max=\"2\"/></thread></memory>"), "field max: invalid value: max=2 is below count=5", 0},
		{"footprints", doc("<coverage><class name=\"C\"><method name=\"m\" firstline=\"3\" count=\"1\"><footprints>1 -2</footprints></method></class></coverage>"),
			"element <footprints>: invalid value: value 2 is \"-2\"", 0},
		{"footprints without a line", doc("<coverage><class name=\"C\"><method name=\"m\" count=\"1\"><footprints>1</footprints></method></class></coverage>"),
			"field firstline: invalid value: missing", 0},
		{"text", doc("<profile>hello</profile>"), "text \"hello\" in <profile>", 0},
		{"truncated", doc("<profile><thread name=\"t\">")[:40], "stream ends inside a message", 0},
		{"ends inside doc", "<doc><profile>", "stream ends inside a message: the document ends inside <profile>", 0},
		{"too deep", thread(strings.Repeat("<profile name=\"a\">", 1100)), "beyond this reader's bounds: a call tree deeper than 1024", 0},
		{"too large", thread(strings.Repeat("<profile name=\"a\"/>\n", 200)), "message larger than the configured maximum: the snapshot is larger than 1000 bytes", 1000},
		{"entity", "<!DOCTYPE doc [<!ENTITY x \"y\">]><doc>&x;</doc>", "malformed XML", 0},
		{"second root", doc("") + "<doc></doc>\n", "(line 5, column 1): element <doc>: malformed XML: a second root element <doc> after </doc>", 0},
		{"text after the root", doc("") + "\nbye", "(line 4, column 7): malformed XML: text \"bye\" after </doc>", 0},
		{"own time above cumulated", thread("<profile name=\"a\" count=\"1\" cumulatedElapsed=\"5000\" methodElapsed=\"6000\"/>"),
			"(line 5, column 1): element <profile>: field methodElapsed: invalid value: methodElapsed=6000 is above cumulatedElapsed=5000", 0},
		{"calls above cumulated", thread("<profile name=\"a\" count=\"1\" cumulatedElapsed=\"5000\">\n  <profile name=\"b\" count=\"2\" cumulatedElapsed=\"4000\"/>\n  <profile name=\"c\" count=\"2\" methodElapsed=\"2000\"/>\n</profile>"),
			"(line 5, column 1): element <profile>: field cumulatedElapsed: invalid value: cumulatedElapsed=5000 is below its calls' cumulatedElapsed, which add up to 6000", 0},
		{"own and calls above cumulated", thread("<profile name=\"a\" count=\"1\" cumulatedElapsed=\"5000\" methodElapsed=\"2000\"><profile name=\"b\" count=\"1\" cumulatedElapsed=\"4000\"/></profile>"),
			"field cumulatedElapsed: invalid value: cumulatedElapsed=5000 is below methodElapsed=2000 and its calls' cumulatedElapsed (4000) together", 0},
		{"own CPU above cumulated", thread("<profile name=\"a\" count=\"1\" cumulated=\"10\" method=\"11\"/>"),
			"field method: invalid value: method=11 is above cumulated=10", 0},
		{"calls' CPU above cumulated", thread("<profile name=\"a\" count=\"1\" cumulated=\"10\"><profile name=\"b\" count=\"1\" method=\"7\"/><profile name=\"b\" count=\"1\" cumulated=\"7\"/></profile>"),
			"field cumulated: invalid value: cumulated=10 is below its calls' cumulated, which add up to 14", 0},
		{"calls beyond a century", thread("<profile name=\"a\"><profile name=\"b\" cumulatedElapsed=\"3000000000000000\"/><profile name=\"c\" cumulatedElapsed=\"3000000000000000\"/></profile>"),
			"(line 5, column 1): element <profile>: invalid value: its calls' times add up to more than a century", 0},
		{"attribute twice", thread("<profile name=\"a\" count=\"5000\" count=\"1\"/>"),
			"(line 5, column 1): element <profile>: field count: malformed XML: attribute count given twice (count=\"5000\", then count=\"1\")", 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := NewProfilerJDecoder(strings.NewReader(tc.in), Options{MaxMessageSize: tc.max})
			ev, err := d.Next()
			if ev != nil || err == nil || !strings.Contains(err.Error(), tc.want) || !IsFatal(err) {
				t.Fatalf("event %v, error %v\nwant %q", ev, err, tc.want)
			}
			if _, again := d.Next(); again == nil {
				t.Fatal("the error does not stick")
			}
		})
	}
}

// What XML allows around the root is read: a byte-order mark, comments
// and processing instructions after </doc>. A file being followed is not
// read past </doc> (its end is where its writer has got to).
func TestProfilerJAcceptsWhatSurroundsTheRoot(t *testing.T) {
	body := `<doc><profile><thread name="t" cpuTime="1"/></profile></doc>`
	for _, tc := range []struct {
		name, in string
		growing  bool
	}{
		{"byte-order mark", "\ufeff<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n" + body, false},
		{"byte-order mark, no declaration", "\ufeff" + body, false},
		{"comment and instruction after", body + "\n<!-- written by ProfilerJ -->\n<?done?>\n", false},
		{"followed: a second root not read", body + "<doc>", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d, err := Open(strings.NewReader(tc.in), Options{Growing: tc.growing})
			if err != nil || d.Format() != FormatProfilerJ {
				t.Fatalf("%v", err)
			}
			if ev, err := d.Next(); err != nil || ev.Kind() != KindThreadStart {
				t.Fatalf("%v %v", ev, err)
			}
		})
	}
}

// A snapshot is recognised by its root element, past a prologue of any
// length (the synthetic file's comment); another XML root is a trace.
func TestSniffProfilerJ(t *testing.T) {
	data := readFixture(t, profilerJFixture)
	f, _, whole, err := SniffStream(iotest.OneByteReader(bytes.NewReader(data)))
	if err != nil || f != FormatProfilerJ {
		t.Fatalf("%v %v", f, err)
	}
	if all, _ := io.ReadAll(whole); !bytes.Equal(all, data) {
		t.Fatal("sniffing lost bytes")
	}
	for in, want := range map[string]Format{
		"<TRACE><node/>":                            FormatXML,
		"\ufeff <!-- x --><?pi?><doc>":              FormatProfilerJ,
		"<!DOCTYPE doc [<!ELEMENT doc ANY>]><doc/>": FormatProfilerJ,
		"<document>":                                FormatXML,
	} {
		if f, _, _, err := SniffStream(strings.NewReader(in)); err != nil || f != want {
			t.Errorf("%q: %v %v, want %v", in, f, err, want)
		}
	}
	// The root's name not ended yet: too short to tell, more may come.
	if _, _, _, err := SniffStream(strings.NewReader("<?xml version=\"1.0\"?>\n<doc")); !errors.Is(err, ErrTooShort) || !MoreMayCome(err) {
		t.Errorf("a root's name cut short: %v", err)
	}
}

// A reader that fails mid-document (not at its end) passes its error on.
func TestProfilerJPassesReadErrors(t *testing.T) {
	boom := errors.New("boom")
	d := NewProfilerJDecoder(io.MultiReader(strings.NewReader("<doc><profile>"), iotest.ErrReader(boom)), Options{})
	if _, err := d.Next(); !errors.Is(err, boom) {
		t.Fatalf("%v", err)
	}
}
