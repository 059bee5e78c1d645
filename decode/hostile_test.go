package decode

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"strings"
	"testing"
)

// rawMessage builds a little-endian message by hand; size 0 means the true size.
func rawMessage(id uint16, size uint32, body ...[]byte) []byte {
	b := bytes.Join(body, nil)
	if size == 0 {
		size = uint32(len(b) + messageHeaderSize)
	}
	out := binary.LittleEndian.AppendUint16(nil, id)
	out = binary.LittleEndian.AppendUint32(out, size)
	return append(out, b...)
}

func le64(v int64) []byte  { return binary.LittleEndian.AppendUint64(nil, uint64(v)) }
func le32(v int32) []byte  { return binary.LittleEndian.AppendUint32(nil, uint32(v)) }
func cstr(s string) []byte { return append([]byte(s), 0) }

func stream(msgs ...[]byte) []byte {
	return append(AppendStreamHeader(nil, false, nil), bytes.Join(msgs, nil)...)
}

// monContendedEntered body: threadIdRef, time, objIdRef, then the stack.
func enteredBody(depth int32, frames ...[]byte) []byte {
	return bytes.Join(append([][]byte{le64(1), le64(2), le64(3), le32(depth)}, frames...), nil)
}

func TestHostileBinaryInput(t *testing.T) {
	good := rawMessage(1041, 0, cstr("ok"))
	for _, tc := range []struct {
		name    string
		data    []byte
		opts    Options
		want    error
		id      uint16
		field   string
		offset  int64
		fatal   bool
		recover bool // the next message decodes after the error
	}{
		{name: "bad magic", data: []byte("0TBX\x01\x00\x01\x01\x0c\x00\x00\x00"), want: ErrBadMagic, field: "magic", offset: 0, fatal: true},
		{name: "unknown major version", data: []byte("0TBF\x02\x00\x01\x01\x0c\x00\x00\x00"), want: ErrVersion, field: "major version", offset: 4, fatal: true},
		{name: "bad byte order", data: []byte("0TBF\x01\x00\x01\x07\x0c\x00\x00\x00"), want: ErrByteOrder, field: "endianness", offset: 7, fatal: true},
		{name: "offset to data below 12", data: []byte("0TBF\x01\x00\x01\x01\x0b\x00\x00\x00"), want: ErrDataOffset, field: "offset to data", offset: 8, fatal: true},
		{name: "header cut short", data: []byte("0TBF\x01\x00"), want: ErrTruncated, field: "stream header", offset: 6, fatal: true},
		{name: "header extension cut short", data: []byte("0TBF\x01\x00\x01\x01\x20\x00\x00\x00abc"), want: ErrTruncated, field: "header extension", offset: 15, fatal: true},
		{name: "size below 6", data: stream(rawMessage(1009, 5)), want: ErrMessageSize, id: 1009, field: "size", offset: 12, fatal: true},
		{name: "size over the maximum", data: stream(good, rawMessage(1041, 1<<20, cstr("x"))), opts: Options{MaxMessageSize: 1 << 16},
			want: ErrTooLarge, id: 1041, field: "size", offset: 12 + int64(len(good)), fatal: true},
		{name: "size over the default maximum", data: stream(rawMessage(1041, 17<<20)), want: ErrTooLarge, id: 1041, field: "size", offset: 12, fatal: true},
		{name: "cut inside a message header", data: stream(good, []byte{0x11, 0x04, 0x20}), want: ErrTruncated, offset: 12 + int64(len(good)), fatal: true},
		{name: "cut inside a message", data: stream(good, rawMessage(1041, 0, cstr("hello"))[:8]), want: ErrTruncated, id: 1041, offset: 12 + int64(len(good)), fatal: true},
		{name: "long runs past the size", data: stream(rawMessage(1004, 0, cstr("agent"), le32(7)), good),
			want: ErrShort, id: 1004, field: "time", offset: 12 + 6 + 6, recover: true},
		{name: "string without its NUL", data: stream(rawMessage(1041, 0, []byte("no terminator")), good),
			want: ErrNoNUL, id: 1041, field: "body", offset: 18, recover: true},
		{name: "stack depth larger than the message", data: stream(rawMessage(1035, 0, enteredBody(1000, cstr("a.b"), le64(3))), good),
			want: ErrStackDepth, id: 1035, field: "stackDepth", offset: 18 + 24, recover: true},
		{name: "negative stack depth", data: stream(rawMessage(1035, 0, enteredBody(-1)), good),
			want: ErrStackDepth, id: 1035, field: "stackDepth", offset: 18 + 24, recover: true},
		{name: "stack names but no lines", data: stream(rawMessage(1035, 0, enteredBody(2, cstr("a.b"), cstr("c.d"), le64(1), []byte{0, 0, 0, 0})), good),
			want: ErrShort, id: 1035, field: "stackLines", offset: 18 + 28 + 8, recover: true},
		{name: "frame name without NUL", data: stream(rawMessage(1035, 0, enteredBody(1, []byte("a.b.c.d.e.f.g.h"))), good),
			want: ErrNoNUL, id: 1035, field: "stackMethods", offset: 18 + 28, recover: true},
		{name: "unknown charset", data: stream(rawMessage(1, 0, cstr("X-NO-SUCH-CHARSET")), good),
			want: ErrCharset, id: 1, field: "encoding", offset: 12, recover: true},
		{name: "zero frequency", data: stream(rawMessage(2, 0, le64(0)), good),
			want: ErrValue, id: 2, field: "frequency", offset: 12, recover: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := NewBinaryDecoder(bytes.NewReader(tc.data), tc.opts)
			var err error
			for err == nil {
				_, err = d.Next()
			}
			var de *Error
			if !errors.As(err, &de) {
				t.Fatalf("got %v (%T), want an *Error", err, err)
			}
			if !errors.Is(err, tc.want) {
				t.Fatalf("got %v, want %v", err, tc.want)
			}
			if de.MessageID != tc.id || de.Field != tc.field || de.Offset != tc.offset || de.Fatal != tc.fatal {
				t.Fatalf("got id %d field %q offset %d fatal %v (%v); want id %d field %q offset %d fatal %v",
					de.MessageID, de.Field, de.Offset, de.Fatal, err, tc.id, tc.field, tc.offset, tc.fatal)
			}
			for _, words := range []string{"offset", tc.field} {
				if !strings.Contains(err.Error(), words) {
					t.Fatalf("message %q does not name %q", err, words)
				}
			}
			next, err2 := d.Next()
			if tc.recover {
				if c, ok := next.(*Custom); err2 != nil || !ok || c.Body != "ok" {
					t.Fatalf("after a bad message: %v, %v; want the next message", next, err2)
				}
			} else if err2 == nil {
				t.Fatalf("decoder went on after a fatal error")
			}
		})
	}
}

// An id the reader does not know is skipped by its size; extra bytes at the
// end of a known message (a later minor version) are skipped too.
func TestForwardCompatibility(t *testing.T) {
	data := stream(
		rawMessage(1020, 0, []byte("reserved id, any bytes \x00\x01")),
		rawMessage(30000, 0, le64(42)),
		rawMessage(500, 0),
		rawMessage(1004, 0, cstr("agent-1"), le64(99), []byte("added in 1.1\x00"), le64(7)),
		rawMessage(1041, 0, cstr("after")),
	)
	got := decodeAll(t, NewBinaryDecoder(bytes.NewReader(data), Options{}))
	want := []Event{
		&Unknown{ID: 1020, Size: 6 + uint32(len("reserved id, any bytes \x00\x01"))},
		&Unknown{ID: 30000, Size: 14},
		&Unknown{ID: 500, Size: 6},
		&AgentDestroy{AgentIDRef: "agent-1", Time: 99},
		&Custom{Body: "after"},
	}
	sameEvents(t, got, want)
}

// A message of an earlier version ends before the attributes appended to
// it since: they read as zero, even after a message that had them (the
// decoder reuses its events), and a message cut inside one is an error.
func TestAppendedAttributesMayBeAbsent(t *testing.T) {
	stackOf := func(m string) []byte { return bytes.Join([][]byte{le32(1), cstr(m), le64(7)}, nil) }
	before := bytes.Join([][]byte{le64(5), le64(100), cstr("parked"), le32(0), le64(0x1234), cstr("java.lang.Object"),
		le64(9), le64(-1), stackOf("a.B.c")}, nil)
	withAll := bytes.Join([][]byte{before, le64(22), cstr("worker"), cstr("<root>")}, nil)
	data := stream(rawMessage(1101, 0, withAll), rawMessage(1101, 0, before))
	got := decodeAll(t, NewBinaryDecoder(bytes.NewReader(data), Options{}))
	stack := Stack{Methods: []string{"a.B.c"}, Lines: []int64{7}}
	want := []Event{
		&ThreadState{ThreadIDRef: 5, Time: 100, State: "parked", LockObjIDRef: 0x1234, LockClass: "java.lang.Object", LockOwner: 9,
			CPUTime: -1, Stack: stack, Carrier: 22, ThreadName: "worker", Container: "<root>"},
		&ThreadState{ThreadIDRef: 5, Time: 100, State: "parked", LockObjIDRef: 0x1234, LockClass: "java.lang.Object", LockOwner: 9,
			CPUTime: -1, Stack: stack},
	}
	sameEvents(t, got, want)
	cut := bytes.Join([][]byte{before, le64(22)[:3]}, nil)
	_, err := NewBinaryDecoder(bytes.NewReader(stream(rawMessage(1101, 0, cut))), Options{}).Next()
	if err == nil || !strings.Contains(err.Error(), "carrier") {
		t.Fatalf("a message cut inside an appended attribute: %v", err)
	}
}

func TestHeaderExtensionIsSkipped(t *testing.T) {
	var buf bytes.Buffer
	enc := NewEncoder(&buf, EncoderOptions{HeaderExtension: []byte("future header fields")})
	want := []Event{&Custom{Body: "first"}}
	if err := enc.Encode(want[0]); err != nil {
		t.Fatal(err)
	}
	enc.Flush()
	d := NewBinaryDecoder(bytes.NewReader(buf.Bytes()), Options{})
	sameEvents(t, decodeAll(t, d), want)
	if h := d.Header(); h.DataOffset != 12+20 || !h.LittleEndian || h.Major != 1 {
		t.Fatalf("header %+v", h)
	}
}

// A huge declared size must not make the decoder allocate that much before
// the bytes exist.
func TestDeclaredSizeDoesNotAllocate(t *testing.T) {
	data := stream(rawMessage(1041, 16<<20-1, []byte("tiny")))
	allocs := testing.AllocsPerRun(5, func() {
		d := NewBinaryDecoder(bytes.NewReader(data), Options{})
		if _, err := d.Next(); !errors.Is(err, ErrTruncated) {
			t.Fatalf("got %v", err)
		}
	})
	var ms testingMem
	ms.measure(func() {
		d := NewBinaryDecoder(bytes.NewReader(data), Options{})
		d.Next()
	})
	if ms.bytes > 1<<20 {
		t.Fatalf("allocated %d bytes for a 10-byte message claiming 16 MiB (%v allocs)", ms.bytes, allocs)
	}
}

// A reader that keeps returning nothing must not hang the decoder.
func TestReaderWithoutProgressDoesNotHang(t *testing.T) {
	d := NewBinaryDecoder(zeroReader{}, Options{})
	if _, err := d.Next(); !errors.Is(err, io.ErrNoProgress) {
		t.Fatalf("got %v, want io.ErrNoProgress", err)
	}
}

type zeroReader struct{}

func (zeroReader) Read([]byte) (int, error) { return 0, nil }

func TestCharsets(t *testing.T) {
	want := []Event{
		&Encoding{Encoding: "KOI8-R"},
		&ThreadStart{ThreadID: 1, ThreadName: "Поток-1", GroupName: "главная"},
		&Encoding{Encoding: "windows-1251"},
		&Custom{Body: "Привет"},
	}
	data := encodeBinary(t, want, EncoderOptions{})
	// "Поток" in KOI8-R is f0 cf d4 cf cb.
	if !bytes.Contains(data, []byte{0xf0, 0xcf, 0xd4, 0xcf, 0xcb}) {
		t.Fatalf("the encoder did not write KOI8-R")
	}
	sameEvents(t, decodeAll(t, NewBinaryDecoder(bytes.NewReader(data), Options{})), want)
	sameEvents(t, decodeAll(t, NewXMLDecoder(bytes.NewReader(encodeXML(t, want)), Options{})), want)
}
