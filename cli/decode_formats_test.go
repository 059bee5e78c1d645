package cli

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/proftop/proftop/internal/fixtures"
)

// A Jinsight trace and a ProfilerJ snapshot print as their own records,
// under the formats' own names; --stats counts them.
func TestDecodeFormatsWithRecordsOfTheirOwn(t *testing.T) {
	for _, tc := range []struct {
		path   string
		shared bool // a file of ../shared/fixtures
		lines  int
		first  string
		counts map[string]int
		stats  []string
	}{
		{"jinsight/trace-linux-x86_64-tagobjects.trc", true, 3112, "HEADER",
			map[string]int{"WIDE_METHOD_ENTER": 1414, "METHOD_LEAVE": 1414, "OBJECT_DEFINED": 252, "TRACE_END": 1},
			[]string{"format    jinsight", "records   3112 (the format's own", "WIDE_METHOD_ENTER             1414", "bytes     76527"}}, // the whole file, its trailer read,
		{"../testdata/profilerj/snapshot-synthetic.xml", false, 45, "thread",
			map[string]int{"profile": 24, "memory": 7, "method": 5},
			[]string{"format    profilerj snapshot", "records   45 (the format's own", "profile              24"}},
	} {
		t.Run(filepath.Base(tc.path), func(t *testing.T) {
			path := tc.path
			if tc.shared {
				path = fixtures.Path(t, tc.path)
			}
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			var out, errs bytes.Buffer
			if err := runDecode(bytes.NewReader(data), path, &out, &errs, decodeOptions{}); err != nil {
				t.Fatal(err, errs.String())
			}
			lines := strings.Split(strings.TrimSpace(out.String()), "\n")
			counts := map[string]int{}
			for _, l := range lines {
				var obj map[string]any
				if err := json.Unmarshal([]byte(l), &obj); err != nil {
					t.Fatalf("not JSON: %s", l)
				}
				counts[obj["type"].(string)]++
			}
			if len(lines) != tc.lines || !strings.HasPrefix(lines[0], `{"type":"`+tc.first+`"`) {
				t.Fatalf("%s: %d lines, first %s", path, len(lines), lines[0])
			}
			for k, n := range tc.counts {
				if counts[k] != n {
					t.Errorf("%s: %d %s, want %d", path, counts[k], k, n)
				}
			}
			out.Reset()
			if err := runDecode(bytes.NewReader(data), path, &out, &errs, decodeOptions{stats: true}); err != nil {
				t.Fatal(err)
			}
			for _, s := range tc.stats {
				if !strings.Contains(out.String(), s) {
					t.Errorf("%s: stats lack %q:\n%s", path, s, out.String())
				}
			}
		})
	}
}

// An unknown Jinsight event stops the decoding: the records before it
// are printed, then the error with its offset and id.
func TestDecodeJinsightUnknownEvent(t *testing.T) {
	data, err := os.ReadFile(fixtures.Path(t, "jinsight/trace-linux-x86_64-tagobjects.trc"))
	if err != nil {
		t.Fatal(err)
	}
	// The first event after the header, made unknown.
	bad := append([]byte(nil), data...)
	bad[45] = 0x99
	var out, errs bytes.Buffer
	err = runDecode(bytes.NewReader(bad), "bad.trc", &out, &errs, decodeOptions{})
	if err != errDecodeFailed || strings.Count(out.String(), "\n") != 1 ||
		!strings.Contains(errs.String(), "bad.trc: decode: offset 45: message id 153: unknown event id: event id 0x99") {
		t.Fatalf("%v\n%s\n%s", err, out.String(), errs.String())
	}
}
