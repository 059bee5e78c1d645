package decode

import (
	"bytes"
	"compress/gzip"
	"errors"
	"io"
	"strconv"
	"strings"
	"testing"

	"github.com/vmihailenco/msgpack/v5"
)

// The captures in ../shared/fixtures/rbkit come from a real rbkit 0.1.10 server
// (see SOURCE.txt there); the counts checked here are the ones it states.

func rbkitFixture(t testing.TB, name string) []byte {
	t.Helper()
	b := readFixture(t, sharedFixtures+"/rbkit/"+name)
	if strings.HasSuffix(name, ".gz") {
		zr, err := gzip.NewReader(bytes.NewReader(b))
		if err != nil {
			t.Fatal(err)
		}
		if b, err = io.ReadAll(zr); err != nil {
			t.Fatal(err)
		}
	}
	return b
}

// kinds counts events by kind.
func kinds(evs []Event) map[Kind]int {
	out := map[Kind]int{}
	for _, ev := range evs {
		out[ev.Kind()]++
	}
	return out
}

// decodeRbkit decodes a recording through Open, as replay does.
func decodeRbkit(t *testing.T, data []byte) ([]Event, *RbkitDecoder) {
	t.Helper()
	d, err := Open(bytes.NewReader(data), Options{})
	if err != nil {
		t.Fatal(err)
	}
	rd, ok := d.(*RbkitDecoder)
	if !ok || d.Format() != FormatRbkit {
		t.Fatalf("Open took an rbkit recording for %v (%T)", d.Format(), d)
	}
	return drain(t, d), rd
}

func TestRbkitCapturesDecodeToTheirCounts(t *testing.T) {
	t.Run("cpu_sampling", func(t *testing.T) {
		evs, d := decodeRbkit(t, rbkitFixture(t, "cpu_sampling.msgpack"))
		k := kinds(evs)
		if k[KindSample] != 22 || k[KindThreadStart] != 1 || len(evs) != 23 || d.Frames() != 1 || d.Lost() != 0 {
			t.Fatalf("got %v in %d frames, lost %d; want 22 samples of one thread in 1 frame", k, d.Frames(), d.Lost())
		}
		var s *Sample
		for _, ev := range evs {
			if x, ok := ev.(*Sample); ok && len(x.Stack.Methods) == 5 {
				s = x
				break
			}
		}
		if s == nil {
			t.Fatal("no five-frame sample")
		}
		want := []string{"Foo#work", "Integer#times <cfunc>", "Foo#work", "<main>", "<main>"}
		if strings.Join(s.Stack.Methods, "|") != strings.Join(want, "|") || s.Stack.Lines[0] != 34 || s.Stack.Lines[1] != 0 {
			t.Fatalf("stack %v lines %v, want %v with Foo#work at line 34", s.Stack.Methods, s.Stack.Lines, want)
		}
		if s.ThreadIDRef != 60 || s.Count != 1 || s.Weight != 0 {
			t.Fatalf("sample %+v: want thread 60, count 1, no weight", s)
		}
		ts := evs[0].(*ThreadStart)
		if ts.ThreadID != 60 || ts.ThreadName != "main" {
			t.Fatalf("thread start %+v: want thread 60 named main", ts)
		}
	})
	t.Run("memory_profile", func(t *testing.T) {
		evs, d := decodeRbkit(t, rbkitFixture(t, "memory_profile.msgpack"))
		k := kinds(evs)
		if k[KindObjAlloc] != 1326 || k[KindObjFree] != 2421 || k[KindCollection] != 1 || k[KindGCTotals] != 2 || k[KindMemoryPool] != 2 {
			t.Fatalf("got %v; want 1326 objAlloc, 2421 objFree, 1 collection, gc_stats as 2 gcTotals and 2 memoryPools", k)
		}
		if d.Frames() != 6 || d.Lost() != 0 {
			t.Fatalf("%d frames, %d lost; want 6 (counters 0 to 5), none lost", d.Frames(), d.Lost())
		}
		classes := map[int64]string{}
		noClass := 0
		for _, ev := range evs {
			switch e := ev.(type) {
			case *ClassDef:
				if classes[e.ClassID] != "" {
					t.Fatalf("class %d defined twice", e.ClassID)
				}
				classes[e.ClassID] = e.Name
			case *ObjAlloc:
				if e.ClassIDRef == 0 {
					noClass++
				} else if classes[e.ClassIDRef] == "" {
					t.Fatalf("object %d of class %d before its definition", e.ObjID, e.ClassIDRef)
				}
			case *GCTotals:
				if want := map[string]int64{RbkitMinorGC: 8, RbkitMajorGC: 2}[e.Collector]; e.Count != want {
					t.Fatalf("%s count %d, want %d", e.Collector, e.Count, want)
				}
			case *MemoryPool:
				// heap_live_slots 18175 of 40 bytes; total_heap_size 883440; total_memsize 2476284
				if e.Name == RbkitObjectHeap && (e.Used != 18175*40 || e.Committed != 883440 || e.Heap != 1) ||
					e.Name == RbkitMemsize && e.Used != 2476284 {
					t.Fatalf("pool %+v", e)
				}
			case *Collection:
				if e.Pause != 2_000_000 || e.Collector != RbkitCollection {
					t.Fatalf("collection %+v: want a 2 ms marking", e)
				}
			}
		}
		if noClass == 0 || len(classes) < 5 {
			t.Fatalf("%d classes, %d objects without a class", len(classes), noClass)
		}
	})
	t.Run("objectspace_dump", func(t *testing.T) {
		evs, _ := decodeRbkit(t, rbkitFixture(t, "objectspace_dump.msgpack.gz"))
		var total, bytes int64
		census := int64(-1)
		for _, ev := range evs {
			c, ok := ev.(*ObjectCensus)
			if !ok {
				t.Fatalf("unexpected %s", ev.Kind())
			}
			if census >= 0 && c.Census != census {
				t.Fatal("one dump gave several census ids")
			}
			census = c.Census
			total += c.Count
			bytes += c.Bytes
		}
		if total != 12798 || bytes <= 12798*40 {
			t.Fatalf("census of %d objects, %d bytes; want the 12798 objects announced", total, bytes)
		}
	})
	t.Run("handshake", func(t *testing.T) {
		for name, objects := range map[string]bool{"handshake_reply.msgpack": false, "handshake_reply_profiling.msgpack": true} {
			h, err := ParseRbkitHandshake(rbkitFixture(t, name))
			if err != nil {
				t.Fatal(err)
			}
			if h.ProtocolVersion != RbkitProtocol || h.ServerVersion != "0.1.10" || h.ProcessName != "/opt/rbkit-run/target.rb" ||
				h.Pwd != "/opt/rbkit-run" || h.PID == 0 || h.Clock != "cpu" || h.CPUProfiling || h.ObjectTrace != objects {
				t.Fatalf("%s: %+v", name, h)
			}
			evs, _ := decodeRbkit(t, rbkitFixture(t, name))
			if k := kinds(evs); k[KindProcessCreate] != 1 || k[KindAgentCreate] != 1 {
				t.Fatalf("%s as a recording: %v", name, k)
			}
		}
	})
}

// enc builds msgpack frames for tests, choosing integer widths.
type enc struct {
	bytes.Buffer
	e *msgpack.Encoder
}

func newEnc() *enc {
	b := &enc{}
	b.e = msgpack.NewEncoder(&b.Buffer)
	return b
}

// val writes v: int (compact), int64 (8 bytes, signed), uint16 (2 bytes),
// float64, string, nil, []any (an array), kv (a map in that order).
func (b *enc) val(v any) *enc {
	switch x := v.(type) {
	case int:
		b.e.EncodeInt(int64(x))
	case int64:
		b.e.EncodeInt64(x)
	case uint16:
		b.e.EncodeUint16(x)
	case float64:
		b.e.EncodeFloat64(x)
	case string:
		b.e.EncodeString(x)
	case nil:
		b.e.EncodeNil()
	case []any:
		b.e.EncodeArrayLen(len(x))
		for _, y := range x {
			b.val(y)
		}
	case kv:
		b.e.EncodeMapLen(len(x) / 2)
		for _, y := range x {
			b.val(y)
		}
	default:
		panic("enc: unsupported value")
	}
	return b
}

type kv []any

func frameBytes(v any) []byte { return newEnc().val(v).Bytes() }

func collection(counter int, events ...any) []byte {
	return frameBytes(kv{0, 7, 1, 1.7e12, 9, counter, 2, []any(events)})
}

func TestRbkitWidthsKeyOrderAndNilAreTheSame(t *testing.T) {
	compact := collection(0,
		kv{0, 9, 1, 1.7e12, 2, []any{kv{12, "go", 13, "Ledger#reconcile", 6, "/app/ledger.rb", 7, 12, 14, 0, 15, 7}}},
		kv{0, 0, 1, 1.7e12, 2, kv{3, 1000, 4, "Ledger"}},
		kv{0, 0, 1, 1.7e12, 2, kv{3, 1001, 4, nil}},
	)
	wide := collection(0,
		kv{2, []any{kv{int64(15), int64(7), 7, uint16(12), 13, "Ledger#reconcile", 12, nil, 6, "/app/ledger.rb", 99, kv{1, 2}}}, int64(1), int64(1_700_000_000_000), 0, int64(9)},
		kv{2, kv{4, "Ledger", 3, int64(1000)}, 0, uint16(0), 1, 1.7e12},
		kv{uint16(0), 0, 2, kv{3, uint16(1001)}, 1, 1.7e12},
	)
	a, _ := decodeRbkit(t, compact)
	b, _ := decodeRbkit(t, wide)
	if !sameValues(a, b) || len(a) != 5 {
		t.Fatalf("the same frame in other widths, key order and nils decodes differently:\n%#v\n%#v", a, b)
	}
	if o := a[4].(*ObjAlloc); o.ClassIDRef != 0 || o.ObjID != 1001 {
		t.Fatalf("an object without a class: %+v", o)
	}
}

func TestRbkitLostFramesAreCounted(t *testing.T) {
	var rec []byte
	for _, c := range []int{5, 6, 9, 10, 14} {
		rec = append(rec, collection(c, kv{0, 2, 1, 1.7e12})...)
	}
	_, d := decodeRbkit(t, rec)
	if d.Lost() != 5 || d.Frames() != 5 {
		t.Fatalf("counters 5, 6, 9, 10, 14: lost %d in %d frames, want 5 lost (7, 8, 11, 12, 13)", d.Lost(), d.Frames())
	}
	f := NewRbkitFrames(Options{})
	for _, c := range []int{3, 4, 0, 1, 3} {
		if _, err := f.Decode(collection(c), 0); err != nil {
			t.Fatal(err)
		}
	}
	if f.Lost() != 1 || f.Restarts() != 1 {
		t.Fatalf("counters 3, 4, 0, 1, 3 (a new server after 4): lost %d, restarts %d; want 1 and 1", f.Lost(), f.Restarts())
	}
}

func TestRbkitMalformedFramesAreSkippedWithTheirReason(t *testing.T) {
	good := collection(1, kv{0, 1, 1, 1.7e12, 2, kv{3, 5}})
	cases := []struct {
		name, frame, reason string
	}{
		{"label of the wrong type", string(collection(7, kv{0, 9, 2, []any{kv{13, []any{1}}}})), "frame with counter 7: event 0 (cpu_sample): payload: frame 0: key 13: want a string, got an array"},
		{"events not an array", string(frameBytes(kv{0, 7, 9, 8, 2, "x"})), "events: want an array, got a string"},
		{"no message type", string(frameBytes(kv{1, 1.0, 2, []any{}})), "no message type (key 0)"},
		{"unknown message type", string(frameBytes(kv{0, 77, 2, []any{}})), "unknown message type 77"},
		{"timestamp not a number", string(collection(3, kv{0, 2, 1, "noon"})), "event 0 (gc_start): key 1: want a number, got a string"},
		{"nested too deeply", string(frameBytes(kv{0, 7, 2, nest(40)})), "nested deeper than 32 levels"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			rec := append(append(append([]byte(nil), good...), c.frame...), good...)
			d := NewRbkitDecoder(bytes.NewReader(rec), Options{})
			var frees int
			var errs []error
			for {
				ev, err := d.Next()
				if err == io.EOF {
					break
				}
				if err != nil {
					var de *Error
					if !errors.As(err, &de) || de.Fatal {
						t.Fatalf("want a non-fatal *Error, got %v", err)
					}
					errs = append(errs, err)
					continue
				}
				if ev.Kind() == KindObjFree {
					frees++
				}
			}
			if frees != 2 || len(errs) != 1 || !strings.Contains(errs[0].Error(), c.reason) {
				t.Fatalf("got %d frees and errors %v; want both good frames and one error saying %q", frees, errs, c.reason)
			}
			f := NewRbkitFrames(Options{})
			if _, err := f.Decode([]byte(c.frame), 42); err == nil || !strings.Contains(err.Error(), c.reason) {
				t.Fatalf("a frame alone: %v, want %q", err, c.reason)
			}
		})
	}
}

func nest(n int) any {
	var v any = 1
	for range n {
		v = []any{v}
	}
	return v
}

func TestRbkitHostileLengthsEndTheStreamCleanly(t *testing.T) {
	cases := map[string][]byte{
		"a string of 4 GiB":          {0x81, 0x00, 0xdb, 0xff, 0xff, 0xff, 0xff, 'a'},
		"a map of 4G entries":        {0xdf, 0xff, 0xff, 0xff, 0xff, 0x00, 0x07},
		"an array of 4G items":       {0x82, 0x00, 0x07, 0x02, 0xdd, 0xff, 0xff, 0xff, 0xff, 0x01},
		"truncated inside a frame":   collection(1, kv{0, 2})[:9],
		"the byte msgpack never has": {0x81, 0x00, 0xc1},
	}
	for name, data := range cases {
		t.Run(name, func(t *testing.T) {
			d := NewRbkitDecoder(bytes.NewReader(data), Options{MaxMessageSize: 1 << 20})
			_, err := d.Next()
			var de *Error
			if !errors.As(err, &de) || !de.Fatal {
				t.Fatalf("want a fatal *Error, got %v", err)
			}
			if _, err := NewRbkitFrames(Options{}).Decode(data, 0); err == nil {
				t.Fatal("a frame alone decoded")
			}
		})
	}
	huge := append([]byte{0x81, 0x00, 0xdb, 0x00, 0x20, 0x00, 0x00}, make([]byte, 2<<20)...)
	d := NewRbkitDecoder(bytes.NewReader(huge), Options{MaxMessageSize: 1 << 20})
	if _, err := d.Next(); !errors.Is(err, ErrTooLarge) {
		t.Fatalf("a 2 MiB frame with a 1 MiB limit: %v, want ErrTooLarge", err)
	}
}

func TestRbkitCensusIsAssembledUntilTheTotalArrives(t *testing.T) {
	obj := func(id int, class any, file any, line any, size any) kv {
		return kv{3, id, 4, class, 5, []any{}, 6, file, 7, line, 8, size}
	}
	part1 := collection(0, kv{0, 5, 1, 1.7e12, 10, 4, 11, 5, 2, []any{obj(1, "Foo", "/a.rb", 3, 40), obj(2, "Foo", "/a.rb", 3, 80), obj(3, nil, nil, nil, nil)}})
	part2 := collection(1, kv{0, 5, 1, 1.7e12 + 1, 10, 4, 11, 5, 2, []any{obj(4, "Foo", "/b.rb", 9, nil), obj(5, "Bar", nil, nil, 40)}})
	evs, _ := decodeRbkit(t, part1)
	if len(evs) != 0 {
		t.Fatalf("3 objects of 5: %d events, want the census to wait", len(evs))
	}
	evs, _ = decodeRbkit(t, append(append([]byte(nil), part1...), part2...))
	got := map[string]ObjectCensus{}
	for _, ev := range evs {
		c := ev.(*ObjectCensus)
		got[c.Class+"@"+c.Site] = *c
	}
	if len(got) != 4 || got["Foo@/a.rb:3"].Count != 2 || got["Foo@/a.rb:3"].Bytes != 120 || got["Foo@/b.rb:9"].Bytes != -1 ||
		got["@"].Count != 1 || got["Bar@"].Bytes != 40 {
		t.Fatalf("census %+v", got)
	}
}

// BenchmarkRbkitDecode decodes the real memory-profiling capture (3,757
// events in 6 frames: object creations and frees, a collection, gc_stats).
func BenchmarkRbkitDecode(b *testing.B) {
	data := rbkitFixture(b, "memory_profile.msgpack")
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	events := 0
	for b.Loop() {
		d := NewRbkitDecoder(bytes.NewReader(data), Options{})
		for {
			_, err := d.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				b.Fatal(err)
			}
			events++
		}
	}
	b.ReportMetric(float64(events)/b.Elapsed().Seconds(), "events/s")
}

// A server that names ever new classes gets one class for those beyond
// the bound, not one definition each.
func TestRbkitClassesAreBounded(t *testing.T) {
	f := NewRbkitFrames(Options{})
	defs := 0
	for i := range maxRbkitClasses + 100 {
		evs, err := f.Decode(collection(i, kv{0, 0, 1, 1.7e12, 2, kv{3, i, 4, "C" + strconv.Itoa(i)}}), 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, ev := range evs {
			if d, ok := ev.(*ClassDef); ok {
				defs++
				if i >= maxRbkitClasses && d.Name != rbkitOtherClasses {
					t.Fatalf("class %d defined as %q beyond the bound", i, d.Name)
				}
			}
		}
	}
	if defs != maxRbkitClasses+1 {
		t.Fatalf("%d class definitions, want %d and one for the others", defs, maxRbkitClasses+1)
	}
}

// A recording followed by what is no frame (a frame is always a msgpack
// map) ends with one fatal error at the offset where the frames stop,
// showing what follows, after the events of every good frame. Before, a
// binary trace appended to a recording gave one error per byte ("want a
// map, got an integer"), 256 of them, then a bogus "unfinished frame".
// Delivered one frame at a time (ZeroMQ delimits them), a frame that is
// not a map is still refused alone, and the next one read.
func TestRbkitDataThatIsNoFrameEndsTheRecording(t *testing.T) {
	good := collection(1, kv{0, 1, 1, 1.7e12, 2, kv{3, 5}})
	recording := append(append([]byte(nil), good...), good...)
	binaryTrace := stream(rawMessage(1041, 0, cstr("next")), rawMessage(1041, 0, cstr("more")))
	for _, tc := range []struct {
		name, after, says string
	}{
		{"a binary trace", string(binaryTrace), `want a map, got an integer (byte 0x30): no rbkit frame starts here, so the recording ends; what follows (34 bytes to the end of the file), starting with "0TBF\x01\x00\x01\x01"`},
		{"an array", string(frameBytes([]any{1, 2})) + string(good), "want a map, got an array (byte 0x92)"},
		{"nil", "\xc0" + string(good), "want a map, got nil (byte 0xc0)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			data := append(append([]byte(nil), recording...), tc.after...)
			d := NewRbkitDecoder(bytes.NewReader(data), Options{InputSize: int64(len(data))})
			evs, errs := decodeThrough(d)
			if kinds(evs)[KindObjFree] != 2 {
				t.Fatalf("events %v, want the two good frames'", kinds(evs))
			}
			var de *Error
			if len(errs) != 1 || !errors.As(errs[0], &de) || !de.Fatal || !errors.Is(de, ErrMsgpack) ||
				de.Offset != int64(len(recording)) || !strings.Contains(de.Error(), tc.says) {
				t.Fatalf("errors %v, want one fatal error at offset %d saying %s", errs, len(recording), tc.says)
			}
		})
	}
	f := NewRbkitFrames(Options{})
	if _, err := f.Decode(frameBytes([]any{1, 2}), 42); err == nil || IsFatal(err) || !strings.Contains(err.Error(), "want a map, got an array") {
		t.Fatalf("an array delivered as a frame: %v", err)
	}
	if evs, err := f.Decode(good, 43); err != nil || len(evs) == 0 {
		t.Fatalf("the frame after it: %v, %v", evs, err)
	}
}

// A length or count that a damaged frame declares is named, with its
// offset and what it declares against what there is, whether the input
// ends inside the frame or the frame outgrows the maximum. Before, a
// damaged frame said only "more than 16777216 bytes" or "N bytes of an
// unfinished frame".
func TestRbkitDamagedLengthsAreNamed(t *testing.T) {
	for _, tc := range []struct {
		name     string
		data     []byte
		size     int64 // Options.InputSize
		want     error
		says     string
		maxBytes int
	}{
		{"a string longer than the file", []byte{0x81, 0x00, 0xdb, 0x00, 0xff, 0xff, 0xff, 'a', 'b'}, 9, ErrPastEnd,
			"a string at offset 2 declares 16777215 bytes but only 2 are left in the file", 1 << 20},
		{"a string longer than the maximum, size unknown", []byte{0x81, 0x00, 0xdb, 0x00, 0xff, 0xff, 0xff, 'a', 'b'}, 0, ErrTooLarge,
			"a string at offset 2 declares 16777215 bytes, which makes the frame more than 1048576 bytes", 1 << 20},
		{"a string cut short", []byte{0x81, 0x00, 0xd9, 0x20, 'a', 'b'}, 0, ErrTruncated,
			"a string at offset 2 declares 32 bytes but only 2 are left", 0},
		{"an array declaring more items than came", []byte{0x82, 0x00, 0x07, 0x02, 0xdc, 0x01, 0x00, 0x01, 0x02}, 0, ErrTruncated,
			"an array at offset 4 declares 256 items, and only 2 came", 0},
		{"a map declaring more entries than came", []byte{0x8f, 0x00, 0x07, 0x02, 0x90}, 0, ErrTruncated,
			"a map at offset 0 declares 15 entries, and only 2 came", 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := NewRbkitDecoder(bytes.NewReader(tc.data), Options{InputSize: tc.size, MaxMessageSize: tc.maxBytes})
			_, errs := decodeThrough(d)
			if len(errs) != 1 || !errors.Is(errs[0], tc.want) || !IsFatal(errs[0]) || !strings.Contains(errs[0].Error(), tc.says) {
				t.Fatalf("errors %v, want one fatal %v saying %s", errs, tc.want, tc.says)
			}
		})
	}
}
