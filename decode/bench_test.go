package decode

import (
	"bytes"
	"encoding/xml"
	"io"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/proftop/proftop/internal/endless"
)

// The benchmark stream: a realistic mix (see mixedEvents), decoded from memory.
const benchEvents = 200_000

var benchData = sync.OnceValues(func() (bin, text []byte) {
	evs := mixedEvents(benchEvents, 42)
	var b, x bytes.Buffer
	enc := NewEncoder(&b, EncoderOptions{})
	w := NewXMLWriter(&x)
	for _, ev := range evs {
		if err := enc.Encode(ev); err != nil {
			panic(err)
		}
		if err := w.Write(ev); err != nil {
			panic(err)
		}
	}
	enc.Flush()
	w.Flush()
	return b.Bytes(), x.Bytes()
})

func benchDecode(b *testing.B, data []byte, open func(io.Reader) Decoder) {
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	r := bytes.NewReader(data)
	n := 0
	runtime.GC() // the set-up's garbage is not this benchmark's CPU time
	cpu := processCPU()
	for b.Loop() {
		r.Reset(data)
		d := open(r)
		for {
			_, err := d.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				b.Fatal(err)
			}
			n++
		}
	}
	b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "events/s")
	reportCPU(b, processCPU()-cpu, int64(len(data))*int64(b.N), n)
}

// reportCPU adds the process's CPU time per event and bytes per CPU second:
// figures that hold on a busy machine, where the wall clock counts the time
// other processes had the cores.
func reportCPU(b *testing.B, cpu time.Duration, bytes int64, events int) {
	if cpu <= 0 || events == 0 {
		return
	}
	b.ReportMetric(float64(cpu.Nanoseconds())/float64(events), "cpu-ns/event")
	b.ReportMetric(float64(bytes)/cpu.Seconds()/1e6, "cpu-MB/s")
}

// BenchmarkDecodeBinary: target >= 1 GB/s and no allocation per event (the
// few allocations per op are the decoder's set-up, amortised over 200k events).
func BenchmarkDecodeBinary(b *testing.B) {
	bin, _ := benchData()
	benchDecode(b, bin, func(r io.Reader) Decoder { return NewBinaryDecoder(r, Options{}) })
}

// BenchmarkDecodeXML: target >= 3x BenchmarkEncodingXMLToken on the same bytes.
func BenchmarkDecodeXML(b *testing.B) {
	_, text := benchData()
	benchDecode(b, text, func(r io.Reader) Decoder { return NewXMLDecoder(r, Options{}) })
}

// BenchmarkEncodingXMLToken is the baseline: the standard library's
// tokenizer over the same XML, doing less work than a decoder (no values parsed).
func BenchmarkEncodingXMLToken(b *testing.B) {
	_, text := benchData()
	b.SetBytes(int64(len(text)))
	b.ReportAllocs()
	r := bytes.NewReader(text)
	for b.Loop() {
		r.Reset(text)
		d := xml.NewDecoder(r)
		for {
			_, err := d.Token()
			if err == io.EOF {
				break
			}
			if err != nil && err != io.EOF {
				// The unclosed <TRACE> ends in a syntax error at EOF.
				break
			}
		}
	}
}

func BenchmarkEncodeBinary(b *testing.B) {
	evs := mixedEvents(benchEvents, 42)
	bin, _ := benchData()
	b.SetBytes(int64(len(bin)))
	b.ReportAllocs()
	enc := NewEncoder(io.Discard, EncoderOptions{})
	for b.Loop() {
		for _, ev := range evs {
			enc.Encode(ev)
		}
		enc.Flush()
	}
	b.ReportMetric(float64(len(evs)*b.N)/b.Elapsed().Seconds(), "events/s")
}

// BenchmarkWireSize reports the bytes per event of both encodings for the
// same events. The original proposal claims binary takes ~46% of XML.
func BenchmarkWireSize(b *testing.B) {
	bin, text := benchData()
	for b.Loop() {
	}
	b.ReportMetric(float64(len(bin))/benchEvents, "binary-B/event")
	b.ReportMetric(float64(len(text))/benchEvents, "xml-B/event")
	b.ReportMetric(100*float64(len(bin))/float64(len(text)), "binary/xml-%")
	// The proposal's own example, threadStart of "Reference Handler".
	ts := []Event{&ThreadStart{ThreadID: 1, Time: 1185890426304424453, ObjIDRef: 1, ThreadName: "Reference Handler", GroupName: "system"}}
	one := len(encodeBinary(b, ts, EncoderOptions{})) - HeaderSize
	oneXML := len(encodeXML(b, ts)) - len(XMLPrologue) - 1 // without the newline
	b.ReportMetric(float64(one), "threadStart-binary-B")
	b.ReportMetric(float64(oneXML), "threadStart-xml-B")
}

// Steady state means no allocation per event: names are interned and the
// event structs and stack slices are reused.
func TestSteadyStateDecodeDoesNotAllocate(t *testing.T) {
	evs := mixedEvents(5000, 9)
	bin := encodeBinary(t, evs, EncoderOptions{})
	xmlData := encodeXML(t, evs)
	for _, tc := range []struct {
		name string
		d    Decoder
	}{
		{"binary", NewBinaryDecoder(endless.Reader(bin[:HeaderSize], bin[HeaderSize:]), Options{})},
		{"xml", NewXMLDecoder(endless.Reader([]byte(XMLPrologue), xmlData[len(XMLPrologue):]), Options{})},
	} {
		for range 20000 { // warm up: every name seen, every buffer grown
			if _, err := tc.d.Next(); err != nil {
				t.Fatal(err)
			}
		}
		allocs := testing.AllocsPerRun(20000, func() {
			if _, err := tc.d.Next(); err != nil {
				t.Fatal(err)
			}
		})
		if allocs != 0 {
			t.Errorf("%s: %.3f allocations per event", tc.name, allocs)
		}
	}
}

func TestSteadyStateEncodeDoesNotAllocate(t *testing.T) {
	evs := mixedEvents(2000, 9)
	enc := NewEncoder(io.Discard, EncoderOptions{})
	w := NewXMLWriter(io.Discard)
	for _, ev := range evs {
		enc.Encode(ev)
		w.Write(ev)
	}
	i := 0
	allocs := testing.AllocsPerRun(10000, func() {
		ev := evs[i%len(evs)]
		i++
		if err := enc.Encode(ev); err != nil {
			t.Fatal(err)
		}
		if err := w.Write(ev); err != nil {
			t.Fatal(err)
		}
	})
	if allocs != 0 {
		t.Errorf("%.3f allocations per event", allocs)
	}
}

// BenchmarkDecodeStacks decodes monitor events only, each with a stack of 5
// to 20 frames drawn from a JVM-like set of call paths, with the whole-stack
// table (a stack seen before costs one lookup) and without it (one interning
// lookup per frame), in the same run.
func BenchmarkDecodeStacks(b *testing.B) {
	var evs []Event
	for _, ev := range mixedEvents(4*benchEvents, 42) {
		if specOf(ev.Kind()).stack >= 0 {
			evs = append(evs, ev)
		}
	}
	data := encodeBinary(b, evs, EncoderOptions{})
	for _, tc := range []struct {
		name   string
		stacks bool
	}{{"whole-stack", true}, {"per-frame", false}} {
		b.Run(tc.name, func(b *testing.B) {
			benchDecode(b, data, func(r io.Reader) Decoder {
				d := NewBinaryDecoder(r, Options{})
				if !tc.stacks {
					d.stacks = nil
				}
				return d
			})
		})
	}
}
