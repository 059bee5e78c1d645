package decode

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
)

// One element with 1.35 million attributes (15.8 MiB, within the message
// limit) is skipped with an error naming it, the stream goes on, and the
// decoder allocates a small multiple of the tag, not of its attributes.
func TestXMLAttributesAreBounded(t *testing.T) {
	var b bytes.Buffer
	b.WriteString(`<?xml version="1.0"?><TRACE><threadStart threadId="1" threadName="main" time="1"/><threadStart`)
	for i := range 1_350_000 {
		fmt.Fprintf(&b, " a%06d='%d'", i, i%10)
	}
	b.WriteString(`/><threadStart threadId="2" threadName="after" time="2"/></TRACE>`)
	data := b.Bytes()
	var names []string
	var skipped error
	var ms testingMem
	ms.measure(func() {
		d := NewXMLDecoder(bytes.NewReader(data), Options{})
		for {
			ev, err := d.Next()
			if errors.Is(err, io.EOF) {
				return
			}
			if err != nil {
				if IsFatal(err) {
					t.Fatalf("fatal: %v", err)
				}
				skipped = err
				continue
			}
			names = append(names, ev.(*ThreadStart).ThreadName)
		}
	})
	if strings.Join(names, ",") != "main,after" {
		t.Fatalf("events %v", names)
	}
	if !errors.Is(skipped, ErrTooLarge) || !strings.Contains(skipped.Error(), "threadStart") ||
		!strings.Contains(skipped.Error(), "1350000 attributes, more than the 1024") {
		t.Fatalf("the error: %v", skipped)
	}
	t.Logf("%.1f MiB of XML decoded with %.1f MiB allocated", float64(len(data))/(1<<20), float64(ms.bytes)/(1<<20))
	if ms.bytes > 4*uint64(len(data)) {
		t.Fatalf("allocated %d bytes for a %d-byte document", ms.bytes, len(data))
	}
}

// A skipped element's content goes with it.
func TestXMLSkippedElementTakesItsContent(t *testing.T) {
	doc := `<TRACE><monContendedEnter a="1" b="2" c="3"><frame method="x"/></monContendedEnter><threadStart threadId="5" time="1"/></TRACE>`
	d := NewXMLDecoder(strings.NewReader(doc), Options{MaxAttributes: 2})
	ev, err := d.Next()
	if !errors.Is(err, ErrTooLarge) || IsFatal(err) {
		t.Fatalf("%v, %v", ev, err)
	}
	if ev, err := d.Next(); err != nil || ev.(*ThreadStart).ThreadID != 5 {
		t.Fatalf("after the skipped element: %v, %v", ev, err)
	}
}

// Names with C1 controls and bidirectional overrides come out of proftop
// decode escaped: the JSON is valid, means the same, and holds nothing a
// terminal acts on.
func TestJSONEscapesWhatATerminalActsOn(t *testing.T) {
	name := "evil\u009b2J\u202egnp.exe\x1b[31m"
	line := AppendJSON(nil, &ThreadStart{ThreadID: 1, ThreadName: name}, Clock{Frequency: 1e9}, nil)
	if !json.Valid(line) {
		t.Fatalf("%s", line)
	}
	for _, bad := range []string{"\u009b", "\u202e", "\x1b"} {
		if bytes.Contains(line, []byte(bad)) {
			t.Fatalf("%q in %s", bad, line)
		}
	}
	var back struct{ ThreadName string }
	if err := json.Unmarshal(line, &back); err != nil || back.ThreadName != name {
		t.Fatalf("%q, %v", back.ThreadName, err)
	}
}
