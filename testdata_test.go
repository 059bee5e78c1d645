package main

import (
	"archive/zip"
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/proftop/proftop/decode"
	"github.com/proftop/proftop/simulator"
)

var update = flag.Bool("update", false, "rewrite testdata/ (the sample traces and the golden decode output)")

// sampleEvents is the simulated service's first 400 events, fixed by seed
// and start time: the sample traces in testdata/ hold them.
func sampleEvents() []decode.Event {
	w := simulator.NewWorld(simulator.Config{Seed: 11, Start: time.Date(2026, 11, 21, 9, 0, 0, 0, time.UTC), DeadlockEvery: 2 * time.Second})
	out := make([]decode.Event, 400)
	for i := range out {
		out[i] = decode.Clone(w.Next())
	}
	return out
}

func writeSamples(t *testing.T) {
	var bin, xml bytes.Buffer
	enc, xw := decode.NewEncoder(&bin, decode.EncoderOptions{}), decode.NewXMLWriter(&xml)
	for _, ev := range sampleEvents() {
		if err := enc.Encode(ev); err != nil {
			t.Fatal(err)
		}
		if err := xw.Write(ev); err != nil {
			t.Fatal(err)
		}
	}
	enc.Flush()
	xw.Flush()
	var zipped bytes.Buffer
	zw := zip.NewWriter(&zipped)
	f, _ := zw.CreateHeader(&zip.FileHeader{Name: "sample.trcxml", Method: zip.Deflate, Modified: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)})
	f.Write(xml.Bytes())
	zw.Close()
	for name, data := range map[string][]byte{"sample.trcbin": bin.Bytes(), "sample.trcxml": xml.Bytes(), "sample-zipped.trcxml": zipped.Bytes()} {
		if err := os.WriteFile(filepath.Join("testdata", name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// The sample traces in every encoding decode, through the real binary, to
// exactly the golden JSON lines (file extensions are not trusted: the zip
// is named .trcxml).
func TestDecodeSamplesMatchTheGolden(t *testing.T) {
	golden := filepath.Join("testdata", "sample.decode.golden")
	if *update {
		writeSamples(t)
		out, errs, code := run(t, nil, "decode", "testdata/sample.trcbin")
		if code != 0 {
			t.Fatal(errs)
		}
		os.WriteFile(golden, []byte(out), 0o644)
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (go test -run DecodeSamples -update . writes it)", err)
	}
	if n := strings.Count(string(want), "\n"); n != 400 {
		t.Fatalf("the golden has %d lines", n)
	}
	for _, name := range []string{"sample.trcbin", "sample.trcxml", "sample-zipped.trcxml"} {
		out, errs, code := run(t, nil, "decode", filepath.Join("testdata", name))
		if code != 0 || out != string(want) {
			t.Errorf("%s: exit %d %s; output differs from %s", name, code, errs, golden)
		}
	}
	// And what the sample holds, as the interface's batch mode sees it.
	out, _, code := run(t, nil, "replay", "testdata/sample.trcbin", "--batch", "--top", "3")
	if code != 0 || !strings.Contains(out, "ended: end of file") || !strings.Contains(out, "THREADS (47") || !strings.Contains(out, "HOT METHODS") {
		t.Fatalf("exit %d:\n%s", code, out)
	}
}

// Collapsed stacks by time of stacks that have no times (samples only
// counted, as rbkit's are) are refused, saying to count them: every line
// would count 0, and an empty file said nothing of why.
func TestExportByTimeOfStacksWithoutTimes(t *testing.T) {
	var bin bytes.Buffer
	enc := decode.NewEncoder(&bin, decode.EncoderOptions{})
	for _, ev := range []decode.Event{
		&decode.ThreadStart{ThreadID: 1, ThreadName: "main"},
		&decode.Sample{ThreadIDRef: 1, Count: 3, Stack: decode.Stack{Methods: []string{"Foo#work", "<main>"}, Lines: []int64{3, 1}}},
	} {
		if err := enc.Encode(ev); err != nil {
			t.Fatal(err)
		}
	}
	enc.Flush()
	dir := t.TempDir()
	trace, out := filepath.Join(dir, "counted.trcbin"), filepath.Join(dir, "stacks.txt")
	if err := os.WriteFile(trace, bin.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	_, errs, code := run(t, nil, "export", trace, "--format", "collapsed", "--value", "time", "-o", out)
	if _, statErr := os.Stat(out); code != 1 || !strings.Contains(errs, "have no times (they are counted: --value count)") || statErr == nil {
		t.Fatalf("exit %d, %s, the file: %v", code, errs, statErr)
	}
	if got, errs, code := run(t, nil, "export", trace, "--format", "collapsed", "--value", "count", "-o", "-"); code != 0 || got != "<main>;Foo#work 3\n" {
		t.Fatalf("exit %d: %q %s", code, got, errs)
	}
}

// --value means something to collapsed stacks only: given with pprof, it
// is refused (a pprof profile holds both values, its viewer chooses), not
// ignored; without it, pprof is written.
func TestExportRefusesValueForPprof(t *testing.T) {
	out := filepath.Join(t.TempDir(), "p.pb.gz")
	_, errs, code := run(t, nil, "export", "testdata/sample.trcbin", "--format", "pprof", "--value", "count", "-o", out)
	if _, statErr := os.Stat(out); code != 1 || !strings.Contains(errs, "--value applies to --format collapsed only") || statErr == nil {
		t.Fatalf("exit %d, %s, the file: %v", code, errs, statErr)
	}
	if _, errs, code := run(t, nil, "export", "testdata/sample.trcbin", "--format", "pprof", "-o", out); code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
}
