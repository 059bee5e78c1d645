package decode

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"testing"
)

// Fuzz targets of the formats with records of their own: whatever the
// bytes, the decoders end (cleanly or with a fatal *Error that sticks),
// never panic, and every record renders as valid JSON.

// jinsightSeeds are the real trace's first bytes and its last (no header:
// refused), when ../shared is beside the project, and small traces.
func jinsightSeeds() [][]byte {
	var seeds [][]byte
	if data := optionalFixture(jinsightFixture); len(data) > 4096 {
		seeds = append(seeds, data[:4096], data[len(data)-2048:])
	}
	return append(seeds,
		smallTrace(44, everyEvent()...),
		smallTrace(22, everyEvent()...),
		smallTrace(44, classLoad(2, "a/B", "m"), enter(1, 3, 2, 0), enter(2, 3, 2, 0), &JinsightMoment{id: jiEndBurst, Ticks: 3}),
		append(smallTrace(44, enter(1, 3, 2, 0)), 0x37),
	)
}

func profilerJSeeds(t testing.TB) [][]byte {
	return [][]byte{
		readFixture(t, profilerJFixture),
		[]byte(`<doc><profile><thread name="t" cpuTime="5"><profile name="a.B.c()" signature="()V" count="2" cumulatedElapsed="9"><profile name="d" count="1" methodElapsed="3"/></profile></thread></profile></doc>`),
		[]byte(`<doc><sampler><thread name="t" cumulated="4" cpuTime="8"><profile name="x()" hits="3"><profile name="y()" hits="1"/></profile></thread></sampler><memory><thread name="t"><memory class="C" count="1" max="2"/></thread></memory></doc>`),
		[]byte(`<doc><coverage><class name="C" source="C.java"><method name="m" firstline="4" count="2"><footprints>2 -1 0 7</footprints></method></class></coverage></doc>`),
		[]byte(`<?xml version="1.0" encoding="ISO-8859-1"?><doc><profile><thread name="` + "\xe9" + `"/></profile></doc>`),
		[]byte(`<doc><profile><thread name="t"><profile name="a" count="-1"/></thread></profile></doc>`),
		[]byte("\ufeff<?xml version=\"1.0\"?><doc><profile><thread name=\"t\" cpuTime=\"1\"/></profile></doc>\n<!-- end -->"),
		[]byte(`<doc></doc><doc></doc>`),
		[]byte(`<doc><profile><thread name="t"><profile name="a" count="5000" count="1"/></thread></profile></doc>`),
		[]byte(`<doc><profile><thread name="t"><profile name="p.A(int)" signature="(I)V" count="1" cumulatedElapsed="100" methodElapsed="30" cumulated="9" method="2">` +
			`<profile name="p.A.b()" count="2" cumulatedElapsed="60" cumulated="3"><profile name="p.A(int)" count="1" methodElapsed="10"/></profile></profile></thread></profile></doc>`),
		[]byte(`<doc><profile><thread name="t"><profile name="a" cumulatedElapsed="5" methodElapsed="6"><profile name="b" cumulatedElapsed="9"/></profile></thread></profile></doc>`),
	}
}

// drainRecords reads every record, checking each renders as JSON.
func drainRecords(t *testing.T, rs RecordSource) {
	for range 1 << 20 {
		rec, err := rs.NextRecord()
		if err != nil {
			if err != io.EOF && !IsFatal(err) {
				t.Fatalf("a non-fatal error %v", err)
			}
			return
		}
		if b := rec.AppendJSON(nil); !json.Valid(b) {
			t.Fatalf("not JSON: %s", b)
		}
	}
	t.Fatal("the records do not come to an end")
}

func FuzzJinsightDecoder(f *testing.F) {
	for _, s := range jinsightSeeds() {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		opts := Options{MaxMessageSize: 1 << 20}
		drain(t, NewJinsightDecoder(bytes.NewReader(data), opts))
		drainRecords(t, NewJinsightDecoder(bytes.NewReader(data), opts))
	})
}

func FuzzProfilerJDecoder(f *testing.F) {
	for _, s := range profilerJSeeds(f) {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		opts := Options{MaxMessageSize: 1 << 20}
		drain(t, NewProfilerJDecoder(bytes.NewReader(data), opts))
		drainRecords(t, NewProfilerJDecoder(bytes.NewReader(data), opts))
		// And told by content, as proftop opens files.
		if d, err := Open(bytes.NewReader(data), opts); err == nil {
			drain(t, d)
		}
	})
}

// TestWriteFormatFuzzCorpus refreshes the checked-in seed corpora of these
// targets (go test -run WriteFormatFuzzCorpus -write-fuzz-corpus).
func TestWriteFormatFuzzCorpus(t *testing.T) {
	if !*writeCorpus {
		t.Skip("only with -write-fuzz-corpus")
	}
	readFixture(t, jinsightFixture) // the real trace's bytes are seeds too
	for name, seeds := range map[string][][]byte{"FuzzJinsightDecoder": jinsightSeeds(), "FuzzProfilerJDecoder": profilerJSeeds(t)} {
		dir := filepath.Join("testdata", "fuzz", name)
		os.RemoveAll(dir)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		for i, s := range seeds {
			body := fmt.Sprintf("go test fuzz v1\n[]byte(%q)\n", s)
			if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("seed-%02d", i)), []byte(body), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
}
