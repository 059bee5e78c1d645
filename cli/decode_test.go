package cli

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/proftop/proftop/decode"
)

const fixture = "../../shared/fixtures/tptp/statechum-part3.trcxml"

func openFixture(t *testing.T) *os.File {
	t.Helper()
	f, err := os.Open(fixture)
	if errors.Is(err, os.ErrNotExist) {
		t.Skipf("%s is absent (../shared is not beside this checkout); skipping", fixture)
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return f
}

func TestDecodePrintsOneJSONObjectPerEvent(t *testing.T) {
	var out, errs bytes.Buffer
	if err := runDecode(openFixture(t), "fixture", &out, &errs, decodeOptions{}); err != nil {
		t.Fatal(err, errs.String())
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != 3441 {
		t.Fatalf("%d lines", len(lines))
	}
	types := map[string]int{}
	for _, l := range lines {
		var obj map[string]any
		if err := json.Unmarshal([]byte(l), &obj); err != nil {
			t.Fatalf("not JSON: %s", l)
		}
		types[obj["type"].(string)]++
	}
	if types["methodEntry"] != 1492 || types["classDef"] != 90 {
		t.Fatalf("%v", types)
	}
	var first map[string]any
	json.Unmarshal([]byte(lines[0]), &first)
	if first["type"] != "node" || first["hostname"] != "dcs03196.windows.dcs.shef.ac.uk" || first["timeRFC3339"] != "2007-03-19T14:12:16.310316085Z" {
		t.Fatalf("first event %v", first)
	}
}

func TestDecodeStats(t *testing.T) {
	var out, errs bytes.Buffer
	if err := runDecode(openFixture(t), "fixture", &out, &errs, decodeOptions{stats: true}); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"format    xml, in a zip archive", "events    3441", "bytes     451561 (of the trace, as inflated from the archive)", "methodEntry          1492", "MB/s"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("stats lack %q:\n%s", want, out.String())
		}
	}
}

// An error comes after the events decoded before it, names its offset, and fails the command.
func TestDecodeReportsErrorsAfterTheEvents(t *testing.T) {
	var stream bytes.Buffer
	enc := decode.NewEncoder(&stream, decode.EncoderOptions{})
	enc.Encode(&decode.Custom{Body: "one"})
	enc.Encode(&decode.Custom{Body: "two"})
	enc.Flush()
	cut := stream.Bytes()[:stream.Len()-2]
	var out, errs bytes.Buffer
	err := runDecode(bytes.NewReader(cut), "cut.trcbin", &out, &errs, decodeOptions{})
	if !errors.Is(err, errDecodeFailed) {
		t.Fatalf("got %v", err)
	}
	if got := strings.Count(out.String(), "\n"); got != 1 || !strings.Contains(out.String(), `"body":"one"`) {
		t.Fatalf("events before the error: %q", out.String())
	}
	if want := "cut.trcbin: decode: offset 22: message #2, id 1041 (custom): stream ends inside a message"; !strings.Contains(errs.String(), want) {
		t.Fatalf("stderr %q lacks %q", errs.String(), want)
	}
}

func TestDecodeRejectsUnknownContent(t *testing.T) {
	var out, errs bytes.Buffer
	err := runDecode(strings.NewReader("GIF89a..."), "picture.trcbin", &out, &errs, decodeOptions{})
	if !errors.Is(err, decode.ErrUnknownInput) || !strings.Contains(err.Error(), `"GIF8"`) {
		t.Fatalf("got %v", err)
	}
}
