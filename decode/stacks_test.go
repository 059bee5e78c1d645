package decode

import (
	"bytes"
	"fmt"
	"io"
	"reflect"
	"testing"
)

// transcript is what a decoder makes of a stream: each event (cloned) or
// error, in order, until the end or a fatal error.
func transcript(d *BinaryDecoder) []string {
	var out []string
	for range 100000 {
		ev, err := d.Next()
		if err == io.EOF {
			return out
		}
		if err != nil {
			out = append(out, "error: "+err.Error())
			if IsFatal(err) {
				return out
			}
			continue
		}
		out = append(out, fmt.Sprintf("%#v", normalize(Clone(ev))))
	}
	return append(out, "no end")
}

// perFrame decodes without the stack table, interning frame by frame.
func perFrame(data []byte) *BinaryDecoder {
	d := NewBinaryDecoder(bytes.NewReader(data), Options{MaxMessageSize: 1 << 20})
	d.stacks = nil
	return d
}

// stackSeeds are streams where stacks repeat, the table's business: the
// same stack many times, the same stack bytes read in two charsets, stacks
// followed by attributes of a later minor version, a stack cut short.
func stackSeeds(t testing.TB) [][]byte {
	frames := []string{"java.lang.Object.wait", "com.acme.Pool.take", "com.acme.Worker.run", "java.lang.Thread.run"}
	stack := Stack{Methods: frames, Lines: []int64{-1, 42, 17, 750}}
	var same []Event
	for i := range 6 {
		same = append(same, &MonContendedEnter{ThreadIDRef: int64(i), Time: Ticks(i), ObjIDRef: 9, ThreadOwner: 2, Stack: stack})
		same = append(same, &MonWait{MonitorWait{ThreadIDRef: int64(i), ObjIDRef: 9, Stack: Stack{Methods: frames[1:], Lines: stack.Lines[1:]}}})
	}
	// KOI8-R bytes that spell other letters in windows-1251: the table must
	// not answer for a stack read before the charset changed.
	name := "\xf0\xd2\xc9\xd7\xc5\xd4.run"
	entered := rawMessage(1035, 0, enteredBody(2, cstr(name), cstr("b.c"), le64(1), le64(2)))
	withExtra := rawMessage(1035, 0, enteredBody(2, cstr("a.b"), cstr("b.c"), le64(1), le64(2), []byte("later")))
	plain := rawMessage(1035, 0, enteredBody(2, cstr("a.b"), cstr("b.c"), le64(1), le64(2)))
	return [][]byte{
		encodeBinary(t, same, EncoderOptions{}),
		encodeBinary(t, same, EncoderOptions{BigEndian: true}),
		stream(rawMessage(1, 0, cstr("KOI8-R")), entered, entered, entered, rawMessage(1, 0, cstr("windows-1251")), entered, entered),
		stream(plain, plain, plain, withExtra, withExtra, withExtra, plain, plain),
		stream(plain, plain, plain, rawMessage(1035, 0, enteredBody(2, cstr("a.b"), cstr("b.c"), le64(1)))),
	}
}

// The stack table is an optimisation only: with it and without it, every
// stream decodes to the same events and the same errors.
func TestStackTableDecodesAsPerFrame(t *testing.T) {
	seeds := append(binarySeeds(t), encodeBinary(t, mixedEvents(20000, 5), EncoderOptions{}))
	for i, data := range seeds {
		d := NewBinaryDecoder(bytes.NewReader(data), Options{MaxMessageSize: 1 << 20})
		got, want := transcript(d), transcript(perFrame(data))
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("seed %d: with the stack table\n%v\nframe by frame\n%v", i, got, want)
		}
	}
}

// A stack is looked up whole from its third sighting on, and then costs no
// interning lookup per frame.
func TestRepeatedStackIsLookedUpWhole(t *testing.T) {
	data := stackSeeds(t)[0]
	d := NewBinaryDecoder(bytes.NewReader(data), Options{})
	for range 3 * 2 { // each of the two stacks three times
		if _, err := d.Next(); err != nil {
			t.Fatal(err)
		}
	}
	if len(d.stacks.m) != 2 {
		t.Fatalf("after seeing each stack twice the table holds %d stacks, want 2", len(d.stacks.m))
	}
	d.intern = nil // a lookup frame by frame would now fail
	for {
		ev, err := d.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if e, ok := ev.(*MonContendedEnter); ok && e.Stack.Methods[1] != "com.acme.Pool.take" {
			t.Fatalf("stack %v", e.Stack.Methods)
		}
	}
}

// Stacks that never repeat are never kept, and the table stays bounded by
// its limits whatever the stream.
func TestStackTableIsBounded(t *testing.T) {
	tb := newStackTable()
	for i := range 3 * maxStackTableEntries {
		key := fmt.Appendf(nil, "frame-%d\x00", i)
		tb.add(key, []string{string(key)})
		if len(tb.m) != 0 {
			t.Fatalf("a stack seen once was kept")
		}
	}
	for i := range 3 * maxStackTableEntries {
		key := fmt.Appendf(nil, "frame-%d\x00", i)
		tb.add(key, []string{string(key)})
		tb.add(key, []string{string(key)})
		if len(tb.m) > maxStackTableEntries || tb.bytes > maxStackTableBytes {
			t.Fatalf("%d stacks, %d bytes", len(tb.m), tb.bytes)
		}
	}
	big := bytes.Repeat([]byte("x"), maxStackTableBytes/4)
	for i := range 10 {
		key := append(fmt.Appendf(nil, "%d", i), big...)
		tb.add(key, nil)
		tb.add(key, nil)
		if tb.bytes > maxStackTableBytes {
			t.Fatalf("%d bytes held", tb.bytes)
		}
	}
}
