package decode

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"io"
	"strings"
	"testing"
)

// bigJinsightTrace is a trace of about 200,000 events: 50 classes of 20
// methods, 8 threads calling 6 deep, objects seen, in one burst.
func bigJinsightTrace() []byte {
	w := newJinsightWriter(JinsightHeader{Version: 8, Platform: 44, TicksPerMicrosecond: 2400, StartTicks: 1 << 30, ConnectionStartTime: 1_800_000_000})
	for c := range 50 {
		names := make([]string, 20)
		for m := range names {
			names[m] = fmt.Sprintf("method%d", m)
		}
		w.record(&JinsightClassDefine{Ticks: 1 << 30, ClassID: uint16(c + 2)})
		w.record(classLoad(uint16(c+2), fmt.Sprintf("com/acme/pkg%d/Class%d", c%7, c), names...))
	}
	for t := range 8 {
		w.record(&JinsightThreadDefine{Ticks: 1 << 30, ThreadID: uint32(t + 2), ThreadName: fmt.Sprintf("worker-%d", t)})
	}
	w.record(&JinsightMoment{id: jiBeginBurst, Ticks: 1 << 30})
	ticks := uint64(1 << 30)
	for i := 0; i < 200_000/14; i++ {
		thread := uint32(i%8 + 2)
		for d := range 6 {
			ticks += 500
			w.record(&JinsightMethodEnter{Ticks: ticks, ThreadID: thread, ClassID: uint16((i+d)%50 + 2), MethodID: uint16((i*7 + d) % 20), ObjectID: uint32(i)})
		}
		w.record(&JinsightObjectDefined{Ticks: ticks, ObjectID: uint32(i), ClassID: uint16(i%50 + 2)})
		for range 6 {
			ticks += 700
			w.record(&JinsightMethodLeave{Ticks: ticks, ThreadID: thread})
		}
	}
	w.record(&JinsightMoment{id: jiEndBurst, Ticks: ticks})
	w.record(&JinsightEnd{id: jiTraceEnd})
	return w.b.Bytes()
}

// BenchmarkDecodeJinsight reads the records, as `proftop decode` does.
func BenchmarkDecodeJinsight(b *testing.B) {
	data := bigJinsightTrace()
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	var n int
	for b.Loop() {
		d := NewJinsightReader(bytes.NewReader(data), Options{})
		n = 0
		for {
			if _, err := d.NextRecord(); err != nil {
				if err != io.EOF {
					b.Fatal(err)
				}
				break
			}
			n++
		}
	}
	b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "records/s")
}

// BenchmarkDecodeJinsightEvents maps the trace into events, as replay does.
func BenchmarkDecodeJinsightEvents(b *testing.B) {
	data := bigJinsightTrace()
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	var n int
	for b.Loop() {
		d := NewJinsightDecoder(bytes.NewReader(data), Options{})
		n = 0
		for {
			if _, err := d.Next(); err != nil {
				if err != io.EOF {
					b.Fatal(err)
				}
				break
			}
			n++
		}
	}
	b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "events/s")
}

// bigProfilerJSnapshot is a snapshot of 8 threads each with a call tree of
// 2,500 nodes (branching 5, depth up to 6) and a sampler tree as large.
func bigProfilerJSnapshot() []byte {
	var s strings.Builder
	s.WriteString("<doc>\n")
	var tree func(section string, depth, width int, id *int)
	tree = func(section string, depth, width int, id *int) {
		for i := 0; i < width && *id < 2500; i++ {
			*id++
			if section == "profile" {
				fmt.Fprintf(&s, `<profile name="com.acme.pkg%d.Class%d.method%d(int)" signature="(I)V" count="%d" cumulatedElapsed="%d" cumulated="0" method="0">`,
					*id%7, *id%50, *id%20, *id, 1000+*id)
			} else {
				fmt.Fprintf(&s, `<profile name="com.acme.pkg%d.Class%d.method%d()" hits="%d" elapsed="%d" cumulated="0" cumulatedElapsed="0">`,
					*id%7, *id%50, *id%20, *id%3, *id%5)
			}
			if depth < 6 {
				tree(section, depth+1, 5, id)
			}
			s.WriteString("</profile>\n")
		}
	}
	for _, section := range []string{"profile", "sampler"} {
		fmt.Fprintf(&s, "<%s>\n", section)
		for t := range 8 {
			fmt.Fprintf(&s, `<thread name="worker-%d" cpuTime="%d" isAlive="true" cumulated="900" cumulatedElapsed="1200">`, t, 1_000_000_000)
			id := 0
			tree(section, 1, 5, &id)
			s.WriteString("</thread>\n")
		}
		fmt.Fprintf(&s, "</%s>\n", section)
	}
	s.WriteString("</doc>\n")
	return []byte(s.String())
}

// BenchmarkDecodeProfilerJ reads and maps a snapshot of 40,000 nodes.
func BenchmarkDecodeProfilerJ(b *testing.B) {
	data := bigProfilerJSnapshot()
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	var n int
	for b.Loop() {
		d := NewProfilerJDecoder(bytes.NewReader(data), Options{})
		n = 0
		for {
			if _, err := d.Next(); err != nil {
				if err != io.EOF {
					b.Fatal(err)
				}
				break
			}
			n++
		}
	}
	b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "events/s")
}

// BenchmarkEncodingXMLTokenSnapshot only tokenizes the same snapshot with
// encoding/xml: the floor of BenchmarkDecodeProfilerJ, which is built on it.
func BenchmarkEncodingXMLTokenSnapshot(b *testing.B) {
	data := bigProfilerJSnapshot()
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		x := xml.NewDecoder(bytes.NewReader(data))
		for {
			if _, err := x.Token(); err != nil {
				break
			}
		}
	}
}
