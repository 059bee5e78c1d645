package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/proftop/proftop/internal/fixtures"
)

const (
	jinsightTrace     = "jinsight/trace-linux-x86_64-tagobjects.trc" // of ../shared/fixtures
	profilerJSnapshot = "testdata/profilerj/snapshot-synthetic.xml"
)

// The picture of a Jinsight trace and of a ProfilerJ snapshot, through the
// real binary, told by content (the names say nothing: copies are made
// under misleading ones).
func TestReplayOtherFormats(t *testing.T) {
	dir := t.TempDir()
	copyTo := func(src, name string) string {
		data, err := os.ReadFile(src)
		if err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(dir, name)
		os.WriteFile(p, data, 0o644)
		return p
	}
	trace, snap := copyTo(fixtures.Path(t, jinsightTrace), "recording.trcxml"), copyTo(profilerJSnapshot, "snapshot.trcbin")

	out, errs, code := run(t, nil, "replay", snap, "--batch")
	for _, want := range []string{"profilerj snapshot", "a still picture", "call-tree times taken as µs", "HOT METHODS · CUMULATIVE · CALL TREE (12)",
		"HOT METHODS · CUMULATIVE · SAMPLER HITS, CPU SHARED AMONG THEM (6)", "COVERAGE · 71% OF 21 LINES RAN (2)", "OBJECTS · CENSUS AT",
		"main                              ended       62.5ms"} {
		if !strings.Contains(out, want) {
			t.Errorf("the snapshot's picture lacks %q", want)
		}
	}
	if code != 0 || errs != "" || t.Failed() {
		t.Fatalf("exit %d\n%s\n%s", code, out, errs)
	}

	out, errs, code = run(t, nil, "replay", trace, "--batch", "--json")
	var doc struct {
		Format  string
		Notes   []string
		Picture struct {
			Methods []struct {
				Name  string
				Calls int64
			}
			Threads []struct{ Name string }
			Objects struct{ CensusTotal int64 }
		}
	}
	if code != 0 || json.Unmarshal([]byte(out), &doc) != nil {
		t.Fatalf("exit %d\n%s\n%s", code, out, errs)
	}
	var calls int64
	for _, m := range doc.Picture.Methods {
		calls += m.Calls
	}
	if doc.Format != "jinsight" || calls != 1414 || len(doc.Picture.Threads) != 4 || doc.Picture.Objects.CensusTotal != 252 ||
		len(doc.Notes) == 0 || !strings.HasPrefix(doc.Notes[0], "times approximate") {
		t.Fatalf("%s: %d calls, %+v", doc.Format, calls, doc.Picture.Threads)
	}
	out, _, _ = run(t, nil, "replay", trace, "--batch")
	if !strings.Contains(out, "note: times approximate") {
		t.Fatalf("the approximate times are not said:\n%s", out)
	}

	out, errs, code = run(t, nil, "decode", trace, "--stats")
	if code != 0 || !strings.Contains(out, "format    jinsight") || !strings.Contains(out, "WIDE_METHOD_ENTER             1414") {
		t.Fatalf("exit %d\n%s\n%s", code, out, errs)
	}
}

// A malformed snapshot is refused with its line and column.
func TestReplayRefusesAMalformedSnapshot(t *testing.T) {
	p := filepath.Join(t.TempDir(), "bad.xml")
	os.WriteFile(p, []byte("<doc>\n<profile>\n  <thread name=\"t\" cpuTime=\"-5\"/>\n</profile>\n</doc>\n"), 0o644)
	out, errs, code := run(t, nil, "replay", p, "--batch")
	if code != 1 || !strings.Contains(errs, "(line 3, column 3): element <thread>: field cpuTime: invalid value") || strings.Contains(out, "THREADS (1") {
		t.Fatalf("exit %d\n%s\n%s", code, out, errs)
	}
}

// replay --follow shows a file that is still being written: the first
// snapshots say it waits for the file while its header is not whole,
// then hold what was there, later ones what was added.
func TestReplayFollowsAGrowingFile(t *testing.T) {
	data, err := os.ReadFile(fixtures.Path(t, jinsightTrace))
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), "growing.trc")
	os.WriteFile(p, data[:10], 0o644)
	cmd := exec.Command(proftopBin, "replay", "--follow", p, "--batch", "--json", "--refresh", "200ms")
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { cmd.Process.Kill(); cmd.Wait() }()
	lines := make(chan string)
	go func() {
		sc := bufio.NewScanner(stdout)
		sc.Buffer(nil, 16<<20)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	// Events of the snapshots as they come, until want is reached.
	next := func(want func(events int64, state, cause, waiting string) bool) int64 {
		deadline := time.After(30 * time.Second)
		for {
			select {
			case l, ok := <-lines:
				if !ok {
					t.Fatal("proftop stopped")
				}
				var doc struct {
					Events  int64
					State   string
					Cause   string
					Waiting string
				}
				json.Unmarshal([]byte(l), &doc)
				if want(doc.Events, doc.State, doc.Cause, doc.Waiting) {
					return doc.Events
				}
			case <-deadline:
				t.Fatal("no such snapshot in time")
			}
		}
	}
	next(func(n int64, state, _, waiting string) bool {
		return n == 0 && state == "streaming" && waiting == "waiting for "+p+" to be written"
	})
	appendTo := func(b []byte) {
		f, _ := os.OpenFile(p, os.O_APPEND|os.O_WRONLY, 0)
		f.Write(b)
		f.Close()
	}
	appendTo(data[10:30000])
	first := next(func(n int64, state, _, waiting string) bool { return n > 0 && state == "streaming" && waiting == "" })
	appendTo(data[30000:])
	all := next(func(n int64, state, cause, _ string) bool {
		return state == "ended" && strings.Contains(cause, "following the file for a new one")
	})
	if all <= first {
		t.Fatalf("%d events at first, %d in the end", first, all)
	}
}

// In a terminal: a Jinsight trace followed as it is written, shown live
// with its approximate times said; then replaced by a ProfilerJ snapshot,
// shown as a still picture with its two views of the methods and its
// coverage.
func TestFollowInTmux(t *testing.T) {
	trace, err := os.ReadFile(fixtures.Path(t, jinsightTrace))
	if err != nil {
		t.Fatal(err)
	}
	snap, err := os.ReadFile(profilerJSnapshot)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	p := filepath.Join(dir, "live")
	os.WriteFile(p, trace[:30000], 0o644)
	tm := newTmux(t, 200, 60)
	tm.keys(fmt.Sprintf("%s replay --follow %s --refresh 200ms", proftopBin, p), "Enter")
	tm.waitFor("the first part", 30*time.Second, "jinsight", "● streaming", "note: times approximate", "following the file (like tail -f)")
	f, _ := os.OpenFile(p, os.O_APPEND|os.O_WRONLY, 0)
	f.Write(trace[30000:])
	f.Close()
	tm.waitFor("the whole trace", 30*time.Second, "■ ended: end of file; following the file for a new one", "Demo.fib", "Demo$Node")
	os.WriteFile(p+".new", snap, 0o644)
	os.Rename(p+".new", p)
	tm.waitFor("the snapshot", 30*time.Second, "profilerj snapshot", "a still picture", "the file was replaced",
		"call tree (v: sampler hits)", "Coverage · 71% of 21 lines ran", "AWT-EventQueue-0")
	tm.keys("2", "v")
	tm.waitFor("the sampler's view", 15*time.Second, "sampler hits, CPU shared among them", "HITS")
	tm.keys("q")
	tm.waitFor("the shell", 5*time.Second, "$ ")
}
