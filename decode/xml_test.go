package decode

import (
	"archive/zip"
	"bytes"
	"errors"
	"io"
	"os"
	"strings"
	"testing"
)

var fixturePath = sharedFixtures + "/tptp/statechum-part3.trcxml"

// openFixture opens a recorded trace from ../shared, or skips the test
// when the shared folder is not beside the project.
func openFixture(t testing.TB, path string) *os.File {
	t.Helper()
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		t.Skipf("fixture %s is absent (the ../shared folder is not beside this checkout); skipping", path)
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return f
}

// The real 2007 TPTP trace decodes without error into exactly these counts.
func TestStatechumFixtureCounts(t *testing.T) {
	d, err := Open(openFixture(t, fixturePath), Options{})
	if err != nil {
		t.Fatal(err)
	}
	counts := map[string]int{}
	var first, last *MethodEntry
	for {
		ev, err := d.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		counts[ev.Kind().String()]++
		if me, ok := ev.(*MethodEntry); ok {
			c := *me
			if first == nil {
				first = &c
			}
			last = &c
		}
	}
	want := map[string]int{"node": 1, "processCreate": 1, "agentCreate": 1, "traceStart": 1, "filter": 2, "option": 30,
		"threadStart": 6, "threadEnd": 1, "classDef": 90, "methodDef": 324, "methodEntry": 1492, "methodExit": 1492}
	if len(counts) != len(want) {
		t.Errorf("kinds %v, want %v", counts, want)
	}
	for k, n := range want {
		if counts[k] != n {
			t.Errorf("%s: %d, want %d", k, counts[k], n)
		}
	}
	if d.Format() != FormatXML {
		t.Errorf("format %v", d.Format())
	}
	// The last methodEntry in the file, parsed exactly.
	if last.ThreadIDRef != 8 || last.Time != 1174313569939575910 || last.MethodIDRef != 9852 || last.Ticket != 2059431 || last.StackDepth != 23 {
		t.Errorf("last methodEntry %+v", last)
	}
	if got := d.Clock().Time(first.Time).Format("2006-01-02T15:04:05.000000000Z"); !strings.HasPrefix(got, "2007-03-19T") {
		t.Errorf("first methodEntry at %s", got)
	}
}

func TestXMLKeepsUnknownElementsAndAttributes(t *testing.T) {
	doc := `<?xml version="1.0"?>
<!-- a comment with <tags> inside -->
<!DOCTYPE TRACE [ <!ENTITY x "y"> ]>
<TRACE>
<methodExit threadIdRef="8" methodIdRef="7008" ticket="5" time="1174313569.931576013" overhead="0.000010999"/>
<vendorThing a="1" b="&lt;two&gt;"><nested deeper="yes"><x/></nested></vendorThing>
<![CDATA[ <threadEnd threadIdRef="1"/> is not an element here ]]>
<option key="k" value="a &amp; b &#65;&#x42; &quot;q&quot; &apos;s&apos;"/>
<monWait threadIdRef="3" time="5.5" objIdRef="9" timeout="100" stackDepth="2">
  <frame method="com.acme.Cache.get" line="88"/>
  <frame method="com.acme.Api.handle" line="31"><annotation/></frame>
  <unexpected child="ignored"/>
</monWait>
`
	d := NewXMLDecoder(strings.NewReader(doc), Options{})
	ev, err := d.Next()
	if err != nil {
		t.Fatal(err)
	}
	if me := ev.(*MethodExit); me.Ticket != 5 || me.Time != 1174313569931576013 || me.MethodIDRef != 7008 {
		t.Fatalf("%+v", me)
	}
	if ex := d.ExtraAttrs(); len(ex) != 1 || ex[0] != (Attr{"overhead", "0.000010999"}) {
		t.Fatalf("extra attributes %v", ex)
	}
	ev, err = d.Next()
	if err != nil {
		t.Fatal(err)
	}
	u := ev.(*Unknown)
	if u.Element != "vendorThing" || len(u.Attrs) != 2 || u.Attrs[1] != (Attr{"b", "<two>"}) {
		t.Fatalf("%+v", u)
	}
	ev, err = d.Next()
	if err != nil {
		t.Fatal(err)
	}
	if o := ev.(*Option); o.Value != `a & b AB "q" 's'` {
		t.Fatalf("%q", o.Value)
	}
	ev, err = d.Next()
	if err != nil {
		t.Fatal(err)
	}
	w := ev.(*MonWait)
	want := MonWait{MonitorWait{ThreadIDRef: 3, Time: 5_500_000_000, ObjIDRef: 9, Timeout: 100,
		Stack: Stack{Methods: []string{"com.acme.Cache.get", "com.acme.Api.handle"}, Lines: []int64{88, 31}}}}
	sameEvents(t, []Event{w}, []Event{&want})
	if _, err := d.Next(); err != io.EOF {
		t.Fatalf("the unclosed <TRACE> should end normally, got %v", err)
	}
}

func TestXMLErrorsNameThePlace(t *testing.T) {
	for _, tc := range []struct {
		name      string
		doc       string
		want      error
		element   string
		field     string
		line, col int
		fatal     bool
	}{
		{"bad integer", "<TRACE>\n<threadEnd threadIdRef=\"x1\" time=\"1.0\"/><custom body=\"next\"/>", ErrValue, "threadEnd", "threadIdRef", 2, 25, false},
		{"bad time", "<TRACE>\n  <gcStart time=\"1.2.3\"/><custom body=\"next\"/>", ErrValue, "gcStart", "time", 2, 18, false},
		{"int out of range", `<TRACE><methodEntry ticket="4294967296"/><custom body="next"/>`, ErrValue, "methodEntry", "ticket", 1, 29, false},
		{"unknown entity", `<TRACE><custom body="&nbsp;"/><custom body="next"/>`, ErrValue, "custom", "body", 1, 22, false},
		{"depth mismatch", `<TRACE><monWait stackDepth="3"><frame method="a" line="1"/></monWait><custom body="next"/>`, ErrValue, "monWait", "stackDepth", 1, 8, false},
		{"unquoted value", "<TRACE>\n\n<threadEnd threadIdRef=8/>", ErrSyntax, "threadEnd", "", 3, 24, true},
		{"mismatched end tag", "<TRACE><monWait threadIdRef=\"1\"></monWaited>", ErrSyntax, "monWait", "", 1, 33, true},
		{"end tag alone", `<TRACE></threadEnd><custom body="next"/>`, ErrSyntax, "threadEnd", "", 1, 8, false},
		{"cut inside a tag", `<TRACE><threadEnd threadIdRef="1`, ErrTruncated, "", "", 1, 8, true},
		{"cut inside an element", `<TRACE><monWait threadIdRef="1"><frame method="a"/>`, ErrTruncated, "monWait", "", 1, 52, true},
		{"attribute twice", "<TRACE>\n<threadEnd threadIdRef=\"1\" threadIdRef=\"2\"/><custom body=\"next\"/>", ErrSyntax, "threadEnd", "threadIdRef", 2, 41, false},
		{"another document", "<?xml version=\"1.0\"?>\n<root><threadEnd/></root>", ErrUnknownInput, "root", "", 2, 1, true},
		{"HTML", "<!DOCTYPE html>\n\n  <html><body>no trace</body></html>", ErrUnknownInput, "html", "", 3, 3, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := NewXMLDecoder(strings.NewReader(tc.doc), Options{})
			var err error
			for err == nil {
				_, err = d.Next()
			}
			var de *Error
			if !errors.As(err, &de) || !errors.Is(err, tc.want) {
				t.Fatalf("got %v, want %v", err, tc.want)
			}
			if de.Element != tc.element || de.Field != tc.field || de.Fatal != tc.fatal {
				t.Fatalf("got element %q field %q fatal %v (%v)", de.Element, de.Field, de.Fatal, err)
			}
			if tc.line != 0 && (de.Line != tc.line || de.Column != tc.col) {
				t.Fatalf("got line %d column %d (%v), want %d:%d", de.Line, de.Column, err, tc.line, tc.col)
			}
			if !strings.Contains(err.Error(), "offset") {
				t.Fatalf("%q names no offset", err)
			}
			ev, err := d.Next()
			if !tc.fatal {
				if c, ok := ev.(*Custom); !ok || c.Body != "next" || err != nil {
					t.Fatalf("after a bad element: %v, %v", ev, err)
				}
			} else if err == nil {
				t.Fatal("decoder went on after a fatal error")
			}
		})
	}
}

func TestXMLTagLargerThanTheMaximum(t *testing.T) {
	doc := `<TRACE><custom body="` + strings.Repeat("x", 5000) + `"/>`
	d := NewXMLDecoder(strings.NewReader(doc), Options{MaxMessageSize: 1000})
	if _, err := d.Next(); !errors.Is(err, ErrTooLarge) || !IsFatal(err) {
		t.Fatalf("got %v", err)
	}
}

func zipOf(t *testing.T, files ...string) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for i := 0; i < len(files); i += 2 {
		w, err := zw.Create(files[i])
		if err != nil {
			t.Fatal(err)
		}
		io.WriteString(w, files[i+1])
	}
	zw.Close()
	return buf.Bytes()
}

func TestOpenDetectsTheFormatByContent(t *testing.T) {
	evs := []Event{&ThreadStart{ThreadID: 1, ThreadName: "main"}, &Custom{Body: "two"}}
	bin := encodeBinary(t, evs, EncoderOptions{})
	xml := encodeXML(t, evs)
	for _, tc := range []struct {
		name string
		data []byte
		want []Event
	}{
		{"binary", bin, evs},
		{"xml", xml, evs},
		{"xml after a byte-order mark and blank lines", append([]byte("\xef\xbb\xbf\n\n  "), xml...), evs},
		{"zip with one document", zipOf(t, "trace.xml", string(xml)), evs},
		{"zip with several documents", zipOf(t, "a.xml", string(xml), "dir/", "", "b.trcbin", string(bin)), append(append([]Event{}, evs...), evs...)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d, err := Open(bytes.NewReader(tc.data), Options{})
			if err != nil {
				t.Fatal(err)
			}
			sameEvents(t, decodeAll(t, d), tc.want)
		})
	}
	for _, bad := range []string{"GIF89a", "\x00\x01\x02\x03", "hello"} {
		if _, err := Open(strings.NewReader(bad), Options{}); !errors.Is(err, ErrUnknownInput) || MoreMayCome(err) {
			t.Errorf("Open(%q): %v", bad, err)
		}
	}
}

// An input that ends before its format can be told is too short, not
// refused for what it is: a file still being written is waited for. Each
// format's first bytes, then the empty input and white space.
func TestSniffingTooShortAnInput(t *testing.T) {
	for _, in := range []string{"", "   ", "\ufeff", "0T", "0TB", "PK\x03", "\x1f", "b", "b\x08\x00", "\x82", "\xde\x00", "<?xml version=\"1.0\"?>", "<!-- a comment", "<TRA"[:2]} {
		_, _, _, err := SniffStream(strings.NewReader(in))
		if !errors.Is(err, ErrTooShort) || !MoreMayCome(err) || !strings.Contains(err.Error(), "offset") {
			t.Errorf("%q: %v", in, err)
		}
	}
}

func TestZipEntryErrorsNameTheEntry(t *testing.T) {
	d, err := Open(bytes.NewReader(zipOf(t, "good.xml", `<TRACE><custom body="1"/>`, "bad.xml", `<TRACE><custom body=1/>`)), Options{})
	if err != nil {
		t.Fatal(err)
	}
	d.Next()
	_, err = d.Next()
	var de *Error
	if !errors.As(err, &de) || de.Entry != "bad.xml" || !strings.Contains(err.Error(), `"bad.xml"`) {
		t.Fatalf("got %v", err)
	}
}

// A zip inside a zip is refused before it is inflated.
func TestNestedZipIsRefusedCheaply(t *testing.T) {
	inner := append([]byte("PK\x03\x04"), make([]byte, 50<<20)...)
	outer := zipOf(t, "bomb.xml", string(inner))
	var m testingMem
	var err error
	m.measure(func() {
		var d Decoder
		if d, err = Open(bytes.NewReader(outer), Options{}); err == nil {
			_, err = d.Next()
		}
	})
	if !errors.Is(err, ErrUnknownInput) || !strings.Contains(err.Error(), "a zip inside a zip") || !strings.Contains(err.Error(), "bomb.xml") {
		t.Fatalf("got %v", err)
	}
	if m.bytes > 8<<20 {
		t.Fatalf("allocated %d bytes to refuse it", m.bytes)
	}
}

// TPTP's XML writes a constructor "-init-" (angle brackets are markup
// there): a methodDef and a frame name it as the JVM does.
func TestXMLFramesNameConstructorsAsTheJVM(t *testing.T) {
	doc := `<TRACE><methodDef name="-init-" signature="()V" methodId="1" classIdRef="2"/>` +
		`<monWait threadIdRef="3" time="5.5" objIdRef="9" timeout="100" stackDepth="2">` +
		`<frame method="java.util.ArrayList.-init-" line="132"/><frame method="a.B.-clinit-" line="1"/></monWait></TRACE>`
	d := NewXMLDecoder(strings.NewReader(doc), Options{})
	ev, err := d.Next()
	if err != nil {
		t.Fatal(err)
	}
	if def := ev.(*MethodDef); def.Name != "<init>" {
		t.Fatalf("methodDef %q", def.Name)
	}
	if ev, err = d.Next(); err != nil {
		t.Fatal(err)
	}
	if st := ev.(*MonWait).Stack; len(st.Methods) != 2 || st.Methods[0] != "java.util.ArrayList.<init>" || st.Methods[1] != "a.B.<clinit>" {
		t.Fatalf("%q", st.Methods)
	}
}

// Processing instructions and comments anywhere in a trace are skipped:
// a PI's content is its target's own, not attributes. Before, <?pi x?>
// after traceStart was refused as malformed XML ("attribute "x" has no
// value") and the rest of a valid trace was lost.
func TestXMLSkipsProcessingInstructionsAndComments(t *testing.T) {
	const monWait = `<monWait threadIdRef="1" time="1.0" stackDepth="2"><frame method="a.B.c" line="1"/>%s<frame method="a.B.d" line="2"/></monWait>`
	for _, tc := range []struct {
		name, doc string
	}{
		{"a PI without pseudo-attributes after traceStart", `<TRACE><traceStart traceId="t" time="1.0"/><?pi x?><threadEnd threadIdRef="1" time="1.0"/>`},
		{"a PI whose content has quotes and '>'", `<TRACE><traceStart traceId="t" time="1.0"/><?php echo "a>b"; ?><threadEnd threadIdRef="1" time="1.0"/>`},
		{"a PI between an element's frames", `<TRACE><traceStart traceId="t" time="1.0"/>` + strings.Replace(monWait, "%s", "<?pi x?>", 1)},
		{"a comment between an element's frames", `<TRACE><traceStart traceId="t" time="1.0"/>` + strings.Replace(monWait, "%s", "<!-- x -->", 1)},
		{"a PI before the root", "<?xml version=\"1.0\"?>\n<?xml-stylesheet x?>\n<TRACE><traceStart traceId=\"t\" time=\"1.0\"/><threadEnd threadIdRef=\"1\" time=\"1.0\"/>"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			evs, errs := decodeThrough(NewXMLDecoder(strings.NewReader(tc.doc), Options{}))
			if len(errs) != 0 {
				t.Fatalf("errors: %v", errs)
			}
			if len(evs) != 2 || evs[0].Kind() != KindTraceStart {
				t.Fatalf("events %v", evs)
			}
			if w, ok := evs[1].(*MonWait); ok && len(w.Stack.Methods) != 2 {
				t.Fatalf("frames %v", w.Stack.Methods)
			}
		})
	}
}

// A byte XML never allows inside a tag (NUL, another C0 control) is
// refused at once, at its offset, as malformed XML: no byte to come could
// make the tag readable. Before, the scanner waited for the tag's end,
// and a followed file that had one appended was waited on forever (the
// input ending there read as a tag still being written).
func TestXMLForbiddenByteInATagIsRefusedAtOnce(t *testing.T) {
	for _, tc := range []struct {
		name, doc, element string
		at                 int64
	}{
		{"NUL after an attribute", "<TRACE>\n<threadEnd threadIdRef=\"1\"\x00", "threadEnd", 34},
		{"NUL inside a quoted value", "<TRACE><threadEnd threadIdRef=\"1\x00", "threadEnd", 32},
		{"an escape byte in a tag's name", "<TRACE><thread\x1bEnd/>", "thread", 14},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, errs := decodeThrough(NewXMLDecoder(strings.NewReader(tc.doc), Options{}))
			var de *Error
			if len(errs) != 1 || !errors.As(errs[0], &de) || !errors.Is(de, ErrSyntax) || MoreMayCome(de) || !de.Fatal ||
				de.Offset != tc.at || de.Element != tc.element {
				t.Fatalf("errors %v, want one fatal %v at offset %d, element %q", errs, ErrSyntax, tc.at, tc.element)
			}
		})
	}
	// White space stays allowed inside tags.
	evs, errs := decodeThrough(NewXMLDecoder(strings.NewReader("<TRACE><threadEnd\tthreadIdRef=\"1\"\r\n time=\"1.0\"/>"), Options{}))
	if len(errs) != 0 || len(evs) != 1 {
		t.Fatalf("tabs and line ends in a tag: %v, %v", evs, errs)
	}
}
