package decode

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
	"testing/iotest"
	"time"
)

// jinsightRecords decodes every record of a trace, cloned as JSON lines,
// with the error that ended it (nil at a clean end).
func jinsightRecords(t testing.TB, r io.Reader) ([]string, error) {
	t.Helper()
	d := NewJinsightReader(r, Options{})
	var out []string
	for range 1 << 20 {
		rec, err := d.NextRecord()
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return out, err
		}
		out = append(out, string(rec.AppendJSON(nil)))
	}
	t.Fatal("the reader does not come to an end")
	return nil, nil
}

// jinsightWriter writes a trace: what the tests need to make traces of
// their own and the big-endian copy of the fixture.
type jinsightWriter struct {
	b     bytes.Buffer
	order binary.AppendByteOrder
}

func newJinsightWriter(h JinsightHeader) *jinsightWriter {
	w := &jinsightWriter{order: binary.LittleEndian}
	if p, ok := jinsightPlatforms[h.Platform]; ok && p.bigEndian {
		w.order = binary.BigEndian
	}
	le := binary.LittleEndian
	w.b.WriteByte('b')
	for _, v := range []uint32{h.Version, h.Platform, h.NumberOfEvents, h.MaxThreads, h.MaxClasses, h.TicksPerMicrosecond} {
		w.b.Write(le.AppendUint32(nil, v))
	}
	w.b.Write(le.AppendUint64(nil, h.StartTicks))
	for _, v := range []uint32{h.VMStartTime, h.ConnectionStartTime, h.Overhead} {
		w.b.Write(le.AppendUint32(nil, v))
	}
	return w
}

func (w *jinsightWriter) u8(v uint8)   { w.b.WriteByte(v) }
func (w *jinsightWriter) u16(v uint16) { w.b.Write(w.order.AppendUint16(nil, v)) }
func (w *jinsightWriter) u32(v uint32) { w.b.Write(w.order.AppendUint32(nil, v)) }
func (w *jinsightWriter) u64(v uint64) { w.b.Write(w.order.AppendUint64(nil, v)) }
func (w *jinsightWriter) str(s string) { w.u16(uint16(len(s))); w.b.WriteString(s) }

func (w *jinsightWriter) members(ms []JinsightMember) {
	w.u16(uint16(len(ms)))
	for _, m := range ms {
		w.str(m.Name)
		w.str(m.Signature)
		w.u16(m.AccessFlags)
	}
}

// record writes one record (not the header) in the writer's byte order.
func (w *jinsightWriter) record(rec Record) {
	switch r := rec.(type) {
	case *JinsightClassDefine:
		w.u8(jiClassDefine)
		w.u64(r.Ticks)
		w.u16(r.ClassID)
		w.u32(r.ClassObjectID)
	case *JinsightClassLoad:
		w.u8(jiExtensiveClassLoad)
		w.u64(r.Ticks)
		w.u16(r.ClassID)
		w.u16(r.Size)
		w.str(r.ClassName)
		w.members(r.Methods)
		w.members(r.Fields)
		w.u16(r.SuperClassID)
		w.u16(uint16(len(r.Interfaces)))
		for _, i := range r.Interfaces {
			w.u16(i)
		}
	case *JinsightMethodEnter:
		w.u8(jiWideMethodEnter)
		w.u64(r.Ticks)
		w.u32(r.ThreadID)
		w.u16(r.ClassID)
		w.u16(r.MethodID)
		w.u32(r.ObjectID)
		w.u16(r.LineNumber)
	case *JinsightMethodLeave:
		w.u8(jiMethodLeave)
		w.u64(r.Ticks)
		w.u64(r.Overhead)
		w.u32(r.ThreadID)
	case *JinsightObjectDefined:
		w.u8(jiObjectDefined)
		w.u64(r.Ticks)
		w.u32(r.ObjectID)
		w.u16(r.ClassID)
	case *JinsightObjectCreated:
		w.u8(jiObjectCreated)
		w.u64(r.Ticks)
		w.u32(r.ObjectID)
		w.u16(uint16(r.ClassID))
		w.u32(r.ThreadID)
	case *JinsightObjectReclaimed:
		w.u8(jiObjectReclaimed)
		w.u64(r.Ticks)
		w.u32(r.ObjectID)
	case *JinsightArrayDefined:
		w.u8(jiArrayDefined)
		w.u64(r.Ticks)
		w.u8(r.ArrayType)
		w.u32(r.ObjectID)
		w.u32(r.Size)
	case *JinsightArrayClassDefined:
		w.u8(jiArrayClassDefined)
		w.u64(r.Ticks)
		w.u32(r.ObjectID)
		w.u16(r.ClassID)
		w.u32(r.Size)
	case *JinsightArrayCreated:
		w.u8(jiArrayCreated)
		w.u64(r.Ticks)
		w.u8(r.IsArray)
		w.u32(r.ObjectID)
		w.u32(r.Size)
		w.u32(r.ThreadID)
	case *JinsightThreadDefine:
		w.u8(jiThreadDefine)
		w.u64(r.Ticks)
		w.u32(r.ThreadID)
		w.u32(r.ObjectID)
		w.u16(r.ClassID)
		w.str(r.ThreadName)
	case *JinsightThreadEvent:
		w.u8(r.id)
		w.u64(r.Ticks)
		w.u32(r.ThreadID)
	case *JinsightThreadNameChange:
		w.u8(jiThreadNameChange)
		w.u64(r.Ticks)
		w.u32(r.ThreadID)
		w.str(r.ThreadName)
	case *JinsightMoment:
		w.u8(r.id)
		w.u64(r.Ticks)
	case *JinsightUserEvent:
		w.u8(jiUserEvent)
		w.u64(r.Ticks)
		w.str(r.Message)
	case *JinsightClassDefine2:
		w.u8(jiClassDefine2)
		w.b.Write(r.Data[:])
	case *JinsightEnd:
		w.u8(r.id)
	}
}

// reencode reads a trace and writes it again for another platform.
func reencodeJinsight(t testing.TB, data []byte, platform uint32) []byte {
	t.Helper()
	d := NewJinsightReader(bytes.NewReader(data), Options{})
	var w *jinsightWriter
	for {
		rec, err := d.NextRecord()
		if err == io.EOF {
			return w.b.Bytes()
		}
		if err != nil {
			t.Fatal(err)
		}
		if h, ok := rec.(*JinsightHeader); ok {
			hd := *h
			hd.Platform = platform
			w = newJinsightWriter(hd)
			continue
		}
		w.record(rec)
	}
}

// sourceCounts reads the event counts of the fixture's SOURCE.txt ("NAME
// 0x0a x4"), by event id.
func sourceCounts(t *testing.T) map[byte]int {
	t.Helper()
	src := string(readFixture(t, sharedFixtures+"/jinsight/SOURCE.txt"))
	i := strings.Index(src, "events:")
	j := strings.Index(src, "followed by")
	if i < 0 || j < i {
		t.Fatal("SOURCE.txt has no event list")
	}
	out := map[byte]int{}
	for _, m := range regexp.MustCompile(`0x([0-9a-f]{2}) x(\d+)`).FindAllStringSubmatch(src[i:j], -1) {
		id, _ := strconv.ParseUint(m[1], 16, 8)
		n, _ := strconv.Atoi(m[2])
		out[byte(id)] = n
	}
	return out
}

// The fixture decodes to the counts its SOURCE.txt gives, and the reader
// ends at TRACE_END, skipping the writer's 8-byte trailer without an error.
func TestJinsightFixtureMatchesItsSource(t *testing.T) {
	want := sourceCounts(t)
	if len(want) != 9 {
		t.Fatalf("SOURCE.txt lists %d event types: %v", len(want), want)
	}
	data := readFixture(t, jinsightFixture)
	d := NewJinsightReader(bytes.NewReader(data), Options{})
	got := map[byte]int{}
	ids := map[string]byte{}
	for id, ev := range jinsightEvents {
		if ev.name != "" {
			ids[ev.name] = byte(id)
		}
	}
	for {
		rec, err := d.NextRecord()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := rec.(*JinsightHeader); ok {
			continue
		}
		got[ids[rec.Type()]]++
	}
	if len(got) != len(want) {
		t.Fatalf("event types %v, SOURCE.txt says %v", got, want)
	}
	for id, n := range want {
		if got[id] != n {
			t.Errorf("event 0x%02x: %d, SOURCE.txt says %d", id, got[id], n)
		}
	}
	if d.InputOffset() != int64(len(data)) || !d.Ended() { // the 8-byte trailer skipped to the end
		t.Fatalf("stopped at %d of %d bytes (ended %v)", d.InputOffset(), len(data), d.Ended())
	}
	h := d.Header()
	if h.Platform != 44 || h.BigEndian || h.TicksPerMicrosecond != 2319 || h.MaxThreads != 1024 || h.MaxClasses != 16384 {
		t.Fatalf("header %+v", h)
	}
}

// A big-endian copy (the body re-encoded for AIX) reads as the same
// records, and maps to the same events.
func TestJinsightBigEndianCopyIsTheSame(t *testing.T) {
	data := readFixture(t, jinsightFixture)
	big := reencodeJinsight(t, data, 22)
	if bytes.Equal(big[JinsightHeaderSize:], data[JinsightHeaderSize:len(big)]) {
		t.Fatal("the copy's body is not re-encoded")
	}
	little, err := jinsightRecords(t, bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	bigRecs, err := jinsightRecords(t, bytes.NewReader(big))
	if err != nil {
		t.Fatal(err)
	}
	if len(little) != len(bigRecs) {
		t.Fatalf("%d records, big-endian %d", len(little), len(bigRecs))
	}
	for i := 1; i < len(little); i++ { // the header says which platform
		if little[i] != bigRecs[i] {
			t.Fatalf("record %d:\n%s\n%s", i, little[i], bigRecs[i])
		}
	}
	if !strings.Contains(bigRecs[0], `"platform":22`) || !strings.Contains(bigRecs[0], `"bigEndian":true`) {
		t.Fatalf("header %s", bigRecs[0])
	}
	a, b := jinsightEventLines(t, data), jinsightEventLines(t, big)
	if strings.Join(a, "\n") != strings.Join(b, "\n") || len(a) < 3000 {
		t.Fatalf("the events differ (%d, %d)", len(a), len(b))
	}
}

// jinsightEventLines maps a trace into events, as JSON lines.
func jinsightEventLines(t testing.TB, data []byte) []string {
	t.Helper()
	d := NewJinsightDecoder(bytes.NewReader(data), Options{})
	var out []string
	for _, ev := range drain(t.(*testing.T), d) {
		out = append(out, string(AppendJSON(nil, ev, d.Clock(), nil)))
	}
	return out
}

// A reader whose reads end anywhere, one byte at a time and with timeouts
// in between, yields the same records: the decoder resumes where it stopped.
func TestJinsightResumesAfterEveryRead(t *testing.T) {
	data := readFixture(t, jinsightFixture)
	whole, _ := jinsightRecords(t, bytes.NewReader(data))
	d := NewJinsightReader(iotest.TimeoutReader(iotest.OneByteReader(bytes.NewReader(data))), Options{})
	var got []string
	for len(got) <= len(whole) {
		rec, err := d.NextRecord()
		if err == io.EOF {
			break
		}
		if errors.Is(err, iotest.ErrTimeout) {
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, string(rec.AppendJSON(nil)))
	}
	if strings.Join(got, "\n") != strings.Join(whole, "\n") {
		t.Fatalf("%d records read byte by byte, %d at once", len(got), len(whole))
	}
}

// Cut anywhere, a trace reads as its whole records up to the cut, then
// io.EOF when the cut falls between two records, else a fatal
// ErrTruncated at the offset of the record it falls in: at every offset of
// the real trace and of a small one with every kind of record.
func TestJinsightTruncatedAnywhere(t *testing.T) {
	for name, data := range map[string][]byte{"fixture": readFixture(t, jinsightFixture), "every kind": smallTrace(44, everyEvent()...)} {
		checkTruncations(t, name, data)
	}
}

// everyEvent is one event of each kind the reader knows.
func everyEvent() []Record {
	return []Record{
		&JinsightClassDefine{Ticks: 1_000_000, ClassID: 2},
		classLoad(2, "java/lang/Object", "<init>", "wait"),
		&JinsightClassDefine2{Data: [18]byte{1, 2, 3}},
		&JinsightThreadDefine{Ticks: 1_000_000, ThreadID: 3, ThreadName: "main"},
		&JinsightThreadEvent{id: jiThreadStart, Ticks: 1_000_500, ThreadID: 3},
		&JinsightThreadNameChange{Ticks: 1_000_600, ThreadID: 3, ThreadName: "renamed"},
		&JinsightMoment{id: jiBeginBurst, Ticks: 1_000_700},
		enter(1_000_800, 3, 2, 0),
		&JinsightObjectDefined{Ticks: 1_000_900, ObjectID: 9, ClassID: 2},
		&JinsightObjectCreated{Ticks: 1_001_000, ObjectID: 10, ClassID: 2, ThreadID: 3},
		&JinsightArrayDefined{Ticks: 1_001_000, ArrayType: 1, ObjectID: 11, Size: 40},
		&JinsightArrayCreated{Ticks: 1_001_000, IsArray: 1, ObjectID: 11, Size: 40, ThreadID: 3},
		&JinsightArrayClassDefined{Ticks: 1_001_000, ObjectID: 12, ClassID: 2, Size: 16},
		&JinsightArrayCreated{Ticks: 1_001_000, IsArray: 0, ObjectID: 12, Size: 16, ThreadID: 3},
		&JinsightMoment{id: jiGCStart, Ticks: 1_002_000},
		&JinsightObjectReclaimed{Ticks: 1_002_500, ObjectID: 10},
		&JinsightMoment{id: jiGCStop, Ticks: 1_005_000},
		leave(1_005_500, 3),
		&JinsightUserEvent{Ticks: 1_006_000, Message: "phase 2"},
		&JinsightMoment{id: jiEndBurst, Ticks: 1_006_500},
		&JinsightThreadEvent{id: jiThreadExit, Ticks: 1_007_000, ThreadID: 3},
		&JinsightEnd{id: jiTraceEnd},
	}
}

// checkTruncations cuts data at every offset. Reading data[:cut] whole
// for each cut would read the trace len(data) times over; the reader
// resumes after a read error, so one reader is fed a byte more at a time
// instead (a gate), and at each cut a fork of it, given the bytes it
// holds, meets the end of its input there, as it would in data[:cut]. The
// mapping (the decoder) is checked on a sample of cuts, reading each
// prefix whole: one in seven of the first 2 KiB and last 512 bytes (the
// header, every kind of record), and around one record boundary in twenty.
func checkTruncations(t *testing.T, name string, data []byte) {
	t.Helper()
	var ends []int64 // where each record ends
	d := NewJinsightReader(bytes.NewReader(data), Options{})
	for {
		_, err := d.NextRecord()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		ends = append(ends, d.InputOffset())
	}
	gate := &gateReader{data: data}
	r := NewJinsightReader(gate, Options{})
	read := 0 // records the gated reader returned
	for cut := 0; cut <= len(data); cut++ {
		gate.limit = cut
		for {
			_, err := r.NextRecord()
			if err == errGate || err == io.EOF {
				break
			}
			if err != nil {
				t.Fatalf("%s: gated at %d: %v", name, cut, err)
			}
			read++
		}
		want := sort.Search(len(ends), func(i int) bool { return ends[i] > int64(cut) })
		if read != want {
			t.Fatalf("%s: cut at %d: %d records, want %d", name, cut, read, want)
		}
		_, err := r.forkAtEnd().NextRecord()
		between := want == len(ends) || (want > 0 && ends[want-1] == int64(cut)) || cut == 0
		if between {
			if err != io.EOF {
				t.Fatalf("%s: cut at %d, between records: %v", name, cut, err)
			}
			continue
		}
		start := int64(0)
		if want > 0 {
			start = ends[want-1]
		}
		var de *Error
		if !errors.As(err, &de) || !de.Fatal || !errors.Is(err, ErrTruncated) || de.Offset != start {
			t.Fatalf("%s: cut at %d: %v, want the record at %d truncated", name, cut, err, start)
		}
	}
	// The mapping shows what was read, then the error.
	cuts := map[int64]bool{}
	for i := int64(0); i <= 2<<10; i += 7 {
		cuts[i] = true
	}
	for i := int64(0); i <= 512; i += 7 {
		cuts[int64(len(data))-i] = true
	}
	for i := 0; i < len(ends); i += 20 {
		cuts[ends[i]], cuts[ends[i]+1] = true, true
	}
	for cut := range cuts {
		if cut < 0 || cut > int64(len(data)) {
			continue
		}
		m := NewJinsightDecoder(bytes.NewReader(data[:cut]), Options{})
		for range 10000 {
			if _, err := m.Next(); err != nil {
				if err != io.EOF && !errors.Is(err, ErrTruncated) {
					t.Fatalf("%s: cut at %d: the mapping ends with %v", name, cut, err)
				}
				break
			}
		}
	}
}

// errGate is a gateReader at its limit: a read error the reader resumes
// after.
var errGate = errors.New("no more bytes yet")

// gateReader serves data up to limit, then errGate until limit moves.
type gateReader struct {
	data       []byte
	pos, limit int
}

func (g *gateReader) Read(p []byte) (int, error) {
	if g.pos >= g.limit {
		return 0, errGate
	}
	n := copy(p, g.data[g.pos:g.limit])
	g.pos += n
	return n, nil
}

// forkAtEnd is a copy of the reader whose input ends after the bytes it
// holds: what the reader would do had its input ended here.
func (d *JinsightReader) forkAtEnd() *JinsightReader {
	f := *d
	// Room after the bytes held, so that the fork meets its end without
	// growing a buffer of its own.
	held := make([]byte, len(d.in.unread())+1)
	n := copy(held, d.in.unread())
	f.in = chunkReader{src: eofReader{}, buf: held, w: n, base: d.in.offset()}
	return &f
}

type eofReader struct{}

func (eofReader) Read([]byte) (int, error) { return 0, io.EOF }

// A small trace, written by the test writer.
func smallTrace(platform uint32, body ...Record) []byte {
	w := newJinsightWriter(JinsightHeader{Version: 8, Platform: platform, TicksPerMicrosecond: 1000, StartTicks: 1_000_000, ConnectionStartTime: 1_800_000_000})
	for _, r := range body {
		w.record(r)
	}
	return w.b.Bytes()
}

func classLoad(id uint16, name string, methods ...string) Record {
	r := &JinsightClassLoad{Ticks: 1_000_000, ClassID: id, ClassName: name}
	for _, m := range methods {
		r.Methods = append(r.Methods, JinsightMember{Name: m, Signature: "()V", AccessFlags: 1})
	}
	return r
}

func enter(ticks uint64, thread uint32, class, method uint16) Record {
	return &JinsightMethodEnter{Ticks: ticks, ThreadID: thread, ClassID: class, MethodID: method, ObjectID: 0xffffffff}
}

func leave(ticks uint64, thread uint32) Record {
	return &JinsightMethodLeave{Ticks: ticks, ThreadID: thread}
}

// An event id the reader does not know stops the decoding with its offset
// and id; the events before it are kept, open frames closed and the
// objects counted, then the error comes.
func TestJinsightUnknownEventStops(t *testing.T) {
	data := smallTrace(44,
		classLoad(2, "a/B", "run"),
		&JinsightThreadDefine{Ticks: 1_000_000, ThreadID: 3, ThreadName: "worker"},
		&JinsightObjectDefined{Ticks: 1_000_100, ObjectID: 7, ClassID: 2},
		enter(1_001_000, 3, 2, 0),
	)
	at := len(data)
	data = append(data, 0x37, 1, 2, 3)
	recs, err := jinsightRecords(t, bytes.NewReader(data))
	var de *Error
	if len(recs) != 5 || !errors.As(err, &de) || !errors.Is(err, ErrUnknownEvent) || de.Offset != int64(at) || de.MessageID != 0x37 {
		t.Fatalf("%d records, %v", len(recs), err)
	}
	if msg := err.Error(); !strings.Contains(msg, "offset "+strconv.Itoa(at)) || !strings.Contains(msg, "0x37") {
		t.Fatalf("the error does not say where and what: %s", msg)
	}
	d := NewJinsightDecoder(bytes.NewReader(data), Options{})
	var kinds []string
	var last error
	for range 100 {
		ev, err := d.Next()
		if err != nil {
			last = err
			break
		}
		kinds = append(kinds, ev.Kind().String())
	}
	want := "classDef methodDef threadStart methodEntry methodExit objectCensus"
	if strings.Join(kinds, " ") != want || !errors.Is(last, ErrUnknownEvent) {
		t.Fatalf("events %v, then %v", kinds, last)
	}
	if _, err := d.Next(); !errors.Is(err, ErrUnknownEvent) {
		t.Fatal("the error does not stick")
	}
}

// Frames open when a burst ends get no leave: they are closed at the
// burst's end, innermost first, and counted; leaves then pair again.
func TestJinsightClosesFramesAtBurstEnd(t *testing.T) {
	data := smallTrace(44,
		classLoad(2, "a/B", "outer", "inner"),
		&JinsightMoment{id: jiBeginBurst, Ticks: 1_000_000},
		enter(1_001_000, 3, 2, 0),
		enter(1_002_000, 3, 2, 1),
		enter(1_003_000, 4, 2, 1),
		leave(1_004_000, 4),
		&JinsightMoment{id: jiEndBurst, Ticks: 1_010_000},
		leave(1_011_000, 3), // of nothing open: ignored, counted
		&JinsightEnd{id: jiTraceEnd},
	)
	d := NewJinsightDecoder(bytes.NewReader(data), Options{})
	evs := drain(t, d)
	var exits []*MethodExit
	entries := map[int32]*MethodEntry{}
	for _, ev := range evs {
		switch e := ev.(type) {
		case *MethodEntry:
			entries[e.Ticket] = e
		case *MethodExit:
			exits = append(exits, e)
		}
	}
	if len(exits) != 3 {
		t.Fatalf("%d exits", len(exits))
	}
	// Thread 4's own leave, then thread 3's two frames, innermost first, at the burst's end.
	if exits[0].ThreadIDRef != 4 || exits[1].MethodIDRef != methodID(2, 1) || exits[2].MethodIDRef != methodID(2, 0) {
		t.Fatalf("exits %+v %+v %+v", exits[0], exits[1], exits[2])
	}
	for _, x := range exits {
		e := entries[x.Ticket]
		if e == nil || e.ThreadIDRef != x.ThreadIDRef || e.MethodIDRef != x.MethodIDRef {
			t.Fatalf("exit %+v pairs with %+v", x, e)
		}
	}
	if exits[1].Time != Ticks(1_800_000_000*1e9+10_000) {
		t.Fatalf("closed at %d: want the burst's end, 10 µs after the start", exits[1].Time)
	}
	notes := strings.Join(d.Notes(), "\n")
	if !strings.Contains(notes, "2 frames open at a burst's end closed there") || !strings.Contains(notes, "1 leave without an enter on its thread ignored") ||
		!strings.Contains(notes, "times approximate") {
		t.Fatalf("notes: %s", notes)
	}
}

// Frames open when their thread exits are closed at its exit, those open
// at the trace's end at its end, each counted as such; the end of the
// trace (TRACE_END) comes last, after them.
func TestJinsightFramesClosedAtExitAndAtTheEnd(t *testing.T) {
	data := smallTrace(44,
		classLoad(2, "a/B", "m", "n"),
		&JinsightThreadDefine{Ticks: 1_000_000, ThreadID: 3, ThreadName: "worker"},
		&JinsightThreadDefine{Ticks: 1_000_000, ThreadID: 4, ThreadName: "main"},
		enter(1_001_000, 3, 2, 0),
		enter(1_002_000, 4, 2, 0),
		enter(1_003_000, 4, 2, 1),
		&JinsightThreadEvent{id: jiThreadExit, Ticks: 1_005_000, ThreadID: 3},
		&JinsightEnd{id: jiTraceEnd},
	)
	d := NewJinsightDecoder(bytes.NewReader(data), Options{})
	evs := drain(t, d)
	if _, ok := evs[len(evs)-1].(*TraceEnd); !ok {
		t.Fatalf("the last event is %T", evs[len(evs)-1])
	}
	notes := strings.Join(d.Notes(), "\n")
	for _, want := range []string{"1 frame open when its thread exited closed there", "2 frames open at the end of the trace closed there"} {
		if !strings.Contains(notes, want) {
			t.Errorf("notes lack %q:\n%s", want, notes)
		}
	}
}

// The tables are bounded: calls deeper than the bound are counted and
// their leaves absorbed; threads beyond the bound are an error; objects
// beyond it are counted, not remembered.
func TestJinsightBounds(t *testing.T) {
	var body []Record
	body = append(body, classLoad(2, "a/B", "m"))
	for i := range 5 {
		body = append(body, enter(uint64(1_000_000+i), 3, 2, 0))
	}
	for i := range 5 {
		body = append(body, leave(uint64(2_000_000+i), 3))
	}
	for i := range 5 {
		body = append(body, &JinsightObjectDefined{Ticks: 2_100_000, ObjectID: uint32(100 + i), ClassID: 2})
	}
	body = append(body, enter(3_000_000, 9, 2, 0))
	d := NewJinsightDecoder(bytes.NewReader(smallTrace(44, body...)), Options{})
	d.limit = jinsightLimits{threads: 1, depth: 3, objects: 2}
	var entries, exits, censused int
	var last error
	for range 1000 {
		ev, err := d.Next()
		if err != nil {
			last = err
			break
		}
		switch e := ev.(type) {
		case *MethodEntry:
			entries++
		case *MethodExit:
			exits++
		case *ObjectCensus:
			censused += int(e.Count)
		}
	}
	if entries != 3 || exits != 3 || censused != 2 {
		t.Fatalf("%d entries, %d exits, %d objects counted", entries, exits, censused)
	}
	if !errors.Is(last, ErrBound) || !strings.Contains(last.Error(), "more than 1 threads") {
		t.Fatalf("a second thread beyond the bound: %v", last)
	}
	notes := strings.Join(d.Notes(), "\n")
	if !strings.Contains(notes, "2 calls deeper than 3 frames") || !strings.Contains(notes, "3 objects beyond the 2 remembered") {
		t.Fatalf("notes: %s", notes)
	}
}

// Creations, arrays, reclaims, thread renames and exits, collections and
// user events map to the event model.
func TestJinsightMapsEveryEvent(t *testing.T) {
	data := smallTrace(66,
		&JinsightClassDefine{Ticks: 1_000_000, ClassID: 2},
		classLoad(2, "java/lang/Object", "<init>"),
		&JinsightClassDefine2{Data: [18]byte{1, 2, 3}},
		&JinsightThreadDefine{Ticks: 1_000_000, ThreadID: 3, ThreadName: "main"},
		&JinsightThreadEvent{id: jiThreadStart, Ticks: 1_000_500, ThreadID: 3},
		&JinsightThreadNameChange{Ticks: 1_000_600, ThreadID: 3, ThreadName: "renamed"},
		&JinsightObjectCreated{Ticks: 1_001_000, ObjectID: 10, ClassID: 2, ThreadID: 3},
		&JinsightArrayDefined{Ticks: 1_001_000, ArrayType: 1, ObjectID: 11, Size: 40},
		&JinsightArrayCreated{Ticks: 1_001_000, IsArray: 1, ObjectID: 11, Size: 40, ThreadID: 3},
		&JinsightArrayClassDefined{Ticks: 1_001_000, ObjectID: 12, ClassID: 2, Size: 16},
		&JinsightArrayCreated{Ticks: 1_001_000, IsArray: 0, ObjectID: 12, Size: 16, ThreadID: 3},
		&JinsightMoment{id: jiGCStart, Ticks: 1_002_000},
		&JinsightObjectReclaimed{Ticks: 1_002_500, ObjectID: 10},
		&JinsightMoment{id: jiGCStop, Ticks: 1_005_000},
		&JinsightUserEvent{Ticks: 1_006_000, Message: "phase 2"},
		&JinsightThreadEvent{id: jiThreadExit, Ticks: 1_007_000, ThreadID: 3},
		&JinsightEnd{id: jiEndOfFile},
	)
	d := NewJinsightDecoder(bytes.NewReader(data), Options{})
	var lines []string
	for _, ev := range drain(t, d) {
		switch e := ev.(type) {
		case *ThreadStart:
			lines = append(lines, "start "+e.ThreadName)
		case *ObjAlloc:
			lines = append(lines, "alloc "+strconv.FormatInt(e.ClassIDRef, 10)+" "+strconv.FormatInt(e.Size, 10))
		case *ClassDef:
			lines = append(lines, "class "+e.Name)
		case *ObjFree:
			lines = append(lines, "free "+strconv.FormatInt(e.ObjIDRef, 10))
		case *Collection:
			lines = append(lines, "gc "+strconv.FormatInt(int64(e.Pause), 10))
		case *Custom:
			lines = append(lines, "user "+e.Body)
		case *ThreadEnd:
			lines = append(lines, "end")
		case *ObjectCensus:
			lines = append(lines, "census "+e.Class+" "+strconv.FormatInt(e.Count, 10))
		}
	}
	want := []string{"class java.lang.Object", "start main", "start main", "start renamed", "alloc 2 0", "class int[]", "alloc 1048577 40",
		"class java.lang.Object[]", "alloc 2097154 16", "free 10", "gc 3000", "user phase 2", "end",
		"census int[] 1", "census java.lang.Object[] 1"}
	if strings.Join(lines, "\n") != strings.Join(want, "\n") {
		t.Fatalf("got\n%s\nwant\n%s", strings.Join(lines, "\n"), strings.Join(want, "\n"))
	}
}

// The header is checked: the magic byte, the version, a platform that
// says the byte order, a tick rate.
func TestJinsightHeaderErrors(t *testing.T) {
	good := smallTrace(44)
	for _, tc := range []struct {
		name  string
		patch func([]byte)
		want  string
	}{
		{"version", func(b []byte) { b[1] = 7 }, "field version: unsupported major version: version 7, this reader knows version 8"},
		{"platform", func(b []byte) { b[5] = 45 }, "field platform: invalid value: platform 45"},
		{"tick rate", func(b []byte) { copy(b[21:], []byte{0, 0, 0, 0}) }, "field ticksPerMicrosecond"},
		{"short", nil, "stream ends inside a message: 20 of 45 bytes"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := append([]byte(nil), good...)
			if tc.patch == nil {
				b = b[:20]
			} else {
				tc.patch(b)
			}
			_, err := NewJinsightReader(bytes.NewReader(b), Options{}).NextRecord()
			if err == nil || !strings.Contains(err.Error(), tc.want) || !IsFatal(err) {
				t.Fatalf("%v, want %q", err, tc.want)
			}
		})
	}
}

// An event larger than the bound on one message is refused before it is
// read whole.
func TestJinsightEventSizeIsBounded(t *testing.T) {
	w := newJinsightWriter(JinsightHeader{Version: 8, Platform: 44, TicksPerMicrosecond: 1})
	w.u8(jiExtensiveClassLoad)
	w.u64(1)
	w.u16(2)
	w.u16(0)
	w.str("a")
	w.u16(60000) // methods, with long names
	for range 100 {
		w.str(strings.Repeat("x", 500))
	}
	d := NewJinsightReader(bytes.NewReader(w.b.Bytes()), Options{MaxMessageSize: 10000})
	d.NextRecord() // the header
	_, err := d.NextRecord()
	if !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), "more than 10000 bytes") {
		t.Fatalf("%v", err)
	}
}

func TestModifiedUTF8(t *testing.T) {
	for in, want := range map[string]string{
		"java/lang/Object":              "java/lang/Object",
		"a\xc0\x80b":                    "a\x00b",
		"\xed\xa0\xbd\xed\xb8\x80":      "😀",
		"名前":                            "名前",
		"\xed\xa0\xbd":                  "\xed\xa0\xbd", // half a pair stays as it is
		"\xff":                          "\xff",
		"ok\xed\xa0\xbd\xed\xb8\x80end": "ok😀end",
	} {
		if got := string(fromModifiedUTF8([]byte(in))); got != want {
			t.Errorf("%q: %q, want %q", in, got, want)
		}
	}
}

// Recognised by content: 'b' and a little-endian version.
func TestSniffJinsight(t *testing.T) {
	data := readFixture(t, jinsightFixture)
	f, _, whole, err := SniffStream(iotest.OneByteReader(bytes.NewReader(data)))
	if err != nil || f != FormatJinsight {
		t.Fatalf("%v %v", f, err)
	}
	if all, _ := io.ReadAll(whole); !bytes.Equal(all, data) {
		t.Fatal("sniffing lost bytes")
	}
	if _, _, _, err := SniffStream(strings.NewReader("bogus text")); err == nil {
		t.Fatal("text starting with b is a Jinsight trace")
	}
}

// A time damaged in one of its upper bytes (the trace has no checksum)
// made a call of 359 days out of one of microseconds, with no error. A
// time more than a day from the record before is now an error naming the
// record, and is taken as that record's time: the enter still pairs with
// its leave, and the call lasts what is known of it.
func TestJinsightDamagedTicks(t *testing.T) {
	for _, c := range []struct {
		name    string
		damaged uint64
		detail  string
	}{
		{"the upper byte", 0xff00_0000_0010_0000 + 1_003_000, "is more than 24h0m0s later than the record before (1002000)"},
		{"the byte below (78 hours at 1000 ticks a µs)", 0x0001_0000_0000_0000 + 1_003_000, "is more than 24h0m0s later than the record before (1002000)"},
	} {
		data := smallTrace(44,
			classLoad(2, "a/B", "outer", "inner"),
			&JinsightThreadDefine{Ticks: 1_000_000, ThreadID: 3, ThreadName: "worker"},
			enter(1_001_000, 3, 2, 0),
			leave(1_002_000, 3),
			enter(c.damaged, 3, 2, 1),
			leave(1_004_000, 3),
		)
		calls, errs := jinsightCalls(t, data)
		wantErr := fmt.Sprintf("decode: offset %d: WIDE_METHOD_ENTER: field ticks: invalid value: %d %s: taken as that", len(smallTrace(44,
			classLoad(2, "a/B", "outer", "inner"), &JinsightThreadDefine{Ticks: 1_000_000, ThreadID: 3, ThreadName: "worker"},
			enter(1_001_000, 3, 2, 0), leave(1_002_000, 3))), c.damaged, c.detail)
		if len(errs) != 1 || errs[0] != wantErr {
			t.Errorf("%s: errors %q, want %q", c.name, errs, wantErr)
		}
		if want := []string{"1µs", "2µs"}; !slices.Equal(calls, want) {
			t.Errorf("%s: calls of %v, want %v", c.name, calls, want)
		}
	}
}

// A real jump (a pause of more than a day between bursts, a damaged start
// in the header) is one error: the record after agrees with the time, and
// it and those after are taken as they are. Before, every record after it
// was an error, all at the time before the jump.
func TestJinsightTicksAfterALongPause(t *testing.T) {
	day := uint64(1000 * 86_400_000_000) // a day at 1000 ticks a µs
	later := 1_002_000 + day + day/24
	data := smallTrace(44,
		classLoad(2, "a/B", "run"),
		&JinsightThreadDefine{Ticks: 1_000_000, ThreadID: 3, ThreadName: "worker"},
		enter(1_001_000, 3, 2, 0), leave(1_002_000, 3),
		enter(later, 3, 2, 0), leave(later+1000, 3),
		enter(later+2000, 3, 2, 0), leave(later+5000, 3),
	)
	calls, errs := jinsightCalls(t, data)
	// The first record after the pause is taken at the time before it (its
	// call seems to last the pause); the leave agrees with it, and the
	// next call is as the trace says.
	if want := []string{"1µs", "25h0m0.000001s", "3µs"}; len(errs) != 1 || !slices.Equal(calls, want) {
		t.Fatalf("errors %q, calls %v; want 1 and %v", errs, calls, want)
	}
}

// jinsightCalls decodes a trace into its calls' durations and its
// non-fatal errors; a fatal one fails the test.
func jinsightCalls(t *testing.T, data []byte) (calls, errs []string) {
	t.Helper()
	d := NewJinsightDecoder(bytes.NewReader(data), Options{})
	entered := map[int32]Ticks{}
	for range 1000 {
		ev, err := d.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			if IsFatal(err) {
				t.Fatal(err)
			}
			errs = append(errs, err.Error())
			continue
		}
		switch e := ev.(type) {
		case *MethodEntry:
			entered[e.Ticket] = e.Time
		case *MethodExit:
			calls = append(calls, fmt.Sprint(time.Duration(e.Time-entered[e.Ticket])))
		}
	}
	return calls, errs
}

// A time damaged by seconds (a lower byte of the 8) made a call seconds
// long in a trace of milliseconds, with no error: within a day of the
// record before, it passed. The thread's next record, far earlier, says
// one of the two is damaged, once.
func TestJinsightTicksDamagedBySeconds(t *testing.T) {
	sevenSeconds := uint64(1000 * 7_000_000) // at 1000 ticks a µs
	data := smallTrace(44,
		classLoad(2, "a/B", "outer", "inner"),
		&JinsightThreadDefine{Ticks: 1_000_000, ThreadID: 3, ThreadName: "worker"},
		enter(1_001_000, 3, 2, 0),
		enter(1_002_000+sevenSeconds, 3, 2, 1), // damaged
		leave(1_003_000, 3),
		leave(1_004_000, 3),
		enter(1_005_000, 3, 2, 1),
		leave(1_006_000, 3),
	)
	_, errs := jinsightCalls(t, data)
	if len(errs) != 1 || !strings.Contains(errs[0], "METHOD_LEAVE: field ticks: invalid value: 1003000 is 7s earlier than thread 3's record before (7001002000): one of the two is damaged") {
		t.Fatalf("errors %q", errs)
	}
}

// What follows a Jinsight trace's end and its writer's trailer is not
// read, as the format's readers do (its notes), and said, with its offset
// and first bytes; zeros (a file padded to a block) are not. Before,
// another file appended after the end was ignored without a word.
func TestJinsightDataAfterTheEndIsNotRead(t *testing.T) {
	trace := smallTrace(44, &JinsightMoment{id: jiBeginBurst, Ticks: 1_000_000}, &JinsightEnd{id: jiTraceEnd})
	endAt := int64(len(trace)) - 1
	trailer := []byte{0x49, 0x16, 0, 0, 0, 0, 0xde, 0xad}
	binaryTrace := stream(rawMessage(1041, 0, cstr("next")))
	for _, tc := range []struct {
		name    string
		data    []byte
		wantAt  int64 // offset of the data not read, -1 for none
		between string
	}{
		{"the end alone", trace, -1, ""},
		{"part of the trailer", append(slices.Clone(trace), trailer[:3]...), -1, ""},
		{"the whole trailer", append(slices.Clone(trace), trailer...), -1, ""},
		{"zeros after the trailer", append(append(slices.Clone(trace), trailer...), make([]byte, 4096)...), -1, ""},
		{"one byte after the trailer", append(append(slices.Clone(trace), trailer...), 'x'), endAt + 9, `"x"`},
		{"a binary trace after the trailer", append(append(slices.Clone(trace), trailer...), binaryTrace...), endAt + 9, `"0TBF`},
		{"after END_OF_FILE", append(append(smallTrace(44, &JinsightEnd{id: jiEndOfFile}), trailer...), binaryTrace...), JinsightHeaderSize + 9, "END_OF_FILE"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// Byte by byte, with a timeout between bytes: the trailer
			// is skipped as it comes.
			r := NewJinsightReader(iotest.TimeoutReader(iotest.OneByteReader(bytes.NewReader(tc.data))), Options{})
			var err error
			for err != io.EOF && !IsFatal(err) || err == iotest.ErrTimeout {
				_, err = r.NextRecord()
			}
			if err != io.EOF {
				t.Fatalf("got %v, want the end", err)
			}
			said := r.Trailing()
			if tc.wantAt < 0 {
				if said != "" {
					t.Fatalf("said %q of nothing to say", said)
				}
				return
			}
			if !strings.Contains(said, fmt.Sprintf("from offset %d,", tc.wantAt)) || !strings.Contains(said, tc.between) || !strings.Contains(said, "not read") {
				t.Fatalf("said %q, want the offset %d and %s", said, tc.wantAt, tc.between)
			}

			// The events read come first, the end of the trace with
			// them, and no error: a note says what was not read.
			d, oerr := Open(bytes.NewReader(tc.data), Options{})
			if oerr != nil {
				t.Fatal(oerr)
			}
			evs, errs := decodeThrough(d)
			if len(errs) != 0 {
				t.Fatalf("decoder errors %v", errs)
			}
			if len(evs) == 0 || evs[len(evs)-1].Kind() != KindTraceEnd {
				t.Fatalf("events %v", evs)
			}
			if notes := strings.Join(d.(Describer).Notes(), "\n"); !strings.Contains(notes, "not read") {
				t.Fatalf("notes %q", notes)
			}
		})
	}
}

// A damaged length or count inside an event is named: the field, what it
// declares and what is left. Before, the error said only "stream ends
// inside a message: 76090 bytes left", the bytes left in the file.
func TestJinsightDamagedLengthsAreNamed(t *testing.T) {
	classLoad := func(body func(w *jinsightWriter)) []byte {
		w := newJinsightWriter(JinsightHeader{Version: 8, Platform: 44, TicksPerMicrosecond: 1})
		w.u8(jiExtensiveClassLoad)
		w.u64(1) // ticks
		w.u16(2) // class id
		w.u16(0) // size
		body(w)
		return w.b.Bytes()
	}
	for _, tc := range []struct {
		name  string
		data  []byte
		opts  Options
		want  error
		field string
		says  string
	}{
		{"a class name longer than the rest", classLoad(func(w *jinsightWriter) { w.u16(5000); w.b.WriteString("java/lang") }), Options{},
			ErrTruncated, "className", "it declares 5000 bytes at event offset 15 but only 9 are left"},
		{"a method count beyond the methods", classLoad(func(w *jinsightWriter) { w.str("A"); w.u16(3); w.str("m"); w.str("()V"); w.u16(1) }), Options{},
			ErrTruncated, "methods[1].name", "it needs 2 bytes at event offset 28 (methods count is 3) but only 0 are left"},
		{"a method name beyond the file", classLoad(func(w *jinsightWriter) { w.str("A"); w.u16(1); w.u16(60000); w.b.WriteString("xy") }),
			Options{MaxMessageSize: 1000, InputSize: JinsightHeaderSize + 22}, ErrPastEnd, "methods[0].name", "it declares 60000 bytes at event offset 20 (methods count is 1) but only 2 are left in the file"},
		{"a thread name beyond the maximum", func() []byte {
			w := newJinsightWriter(JinsightHeader{Version: 8, Platform: 44, TicksPerMicrosecond: 1})
			w.u8(jiThreadDefine)
			w.b.Write(make([]byte, 18))
			w.u16(60000)
			return w.b.Bytes()
		}(), Options{MaxMessageSize: 1000}, ErrTooLarge, "threadName", "it declares 60000 bytes at event offset 21, which makes the event more than 1000 bytes"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := NewJinsightReader(bytes.NewReader(tc.data), tc.opts)
			if _, err := d.NextRecord(); err != nil {
				t.Fatal(err)
			}
			_, err := d.NextRecord()
			var de *Error
			if !errors.As(err, &de) || !errors.Is(err, tc.want) || !de.Fatal || de.Field != tc.field || de.Offset != JinsightHeaderSize ||
				!strings.Contains(de.Detail, tc.says) {
				t.Fatalf("got %v, want a fatal %v at offset %d, field %s, saying %q", err, tc.want, JinsightHeaderSize, tc.field, tc.says)
			}
		})
	}
}
