package decode

import (
	"bytes"
	"errors"
	"io"
	"reflect"
	"testing"
	"unsafe"
)

// A method entry with empty strings takes the shortcut; one whose strings
// are set, or a stream in the other byte order, the general path: all
// decode to what was encoded, in a row, the struct reused between them.
func TestFlatLayoutAndGeneralPathAgree(t *testing.T) {
	full := &MethodEntry{TransientThreadIDRef: 1, ThreadIDRef: 2, Time: 3, MethodIDRef: 4, Ticket: 5,
		TransientObjIDRef: 6, ClassIDRef: 7, ThreadCPUTime: 8, SequenceCounter: 9, StackDepth: 10}
	named := *full
	named.CollationValue, named.TraceIDRef = "c", "t"
	want := []Event{full, &named, full, &MethodExit{Ticket: -1, ObjIDRef: 1 << 40, SequenceCounter: "s"}, &MethodExit{Ticket: 2}}
	for _, big := range []bool{false, true} {
		d := NewBinaryDecoder(bytes.NewReader(encodeBinary(t, want, EncoderOptions{BigEndian: big})), Options{})
		for i, w := range want {
			ev, err := d.Next()
			if err != nil {
				t.Fatalf("big-endian %v, event %d: %v", big, i, err)
			}
			if !reflect.DeepEqual(ev, w) {
				t.Fatalf("big-endian %v, event %d: got %+v, want %+v", big, i, ev, w)
			}
		}
		if _, err := d.Next(); err != io.EOF {
			t.Fatalf("big-endian %v: after the events: %v", big, err)
		}
	}
}

// A body of exactly the size of a flat message whose string is not empty
// cannot be well formed: the shortcut leaves it to the general path, which
// names the error.
func TestFlatLayoutLeavesMalformedBodiesToTheGeneralPath(t *testing.T) {
	data := encodeBinary(t, []Event{&MethodEntry{Ticket: 1}}, EncoderOptions{})
	sp := specOf(KindMethodEntry)
	if sp.flat == nil || len(data) != HeaderSize+messageHeaderSize+sp.flat.size {
		t.Fatalf("a method entry with empty strings should take the shortcut (%d bytes)", len(data))
	}
	data[HeaderSize+messageHeaderSize+sp.flat.strings[0].wire] = 'x'
	_, err := NewBinaryDecoder(bytes.NewReader(data), Options{}).Next()
	if !errors.Is(err, ErrNoNUL) {
		t.Fatalf("got %v, want %v", err, ErrNoNUL)
	}
}

// A kind with a stack has a layout for the attributes before it, which
// only the decoding into a batch uses (the stack then shared with the
// stack table); the decoder's own struct is filled the general way.
func TestFlatLayoutOfAStackKindIsOnlyForBatches(t *testing.T) {
	fl := specOf(KindMonContendedEnter).flat
	if fl == nil || !fl.stack {
		t.Fatal("a contended enter has no flat layout with a stack")
	}
	data := encodeBinary(t, []Event{&MonContendedEnter{ThreadIDRef: 1, Stack: Stack{Methods: []string{"a.B.c"}, Lines: []int64{7}}}}, EncoderOptions{})
	var ev MonContendedEnter
	if fl.decode(unsafe.Pointer(&ev), data[HeaderSize+messageHeaderSize:]) {
		t.Fatal("the flat layout decoded a stack into the decoder's own struct")
	}
	if specOf(KindMethodExit).flat == nil {
		t.Fatal("a method exit has no flat layout")
	}
}
