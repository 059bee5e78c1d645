package bundle

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strings"
	"testing"
	"time"

	"github.com/proftop/proftop/client"
	"github.com/proftop/proftop/decode"
	"github.com/proftop/proftop/export"
	"github.com/proftop/proftop/simulator"
	"github.com/proftop/proftop/state"
)

var t0 = time.Date(2026, 11, 21, 9, 0, 0, 0, time.UTC)

// simulatedSource runs the simulated service for some seconds (a deadlock
// 2 s in, for 4 s, every 8 s) into an aggregator, a history and a ring.
func simulatedSource(t *testing.T, seconds int) *Source {
	t.Helper()
	w := simulator.NewWorld(simulator.Config{Seed: 1, Start: t0, DeadlockEvery: 8 * time.Second, DeadlockFor: 4 * time.Second})
	agg := state.New(state.Options{})
	hist := state.NewHistory(state.HistoryOptions{})
	rec := state.NewRecorder(agg, hist)
	ring := client.NewStreamRing(8<<20, 8<<20)
	for s := 1; s <= seconds; s++ {
		end := t0.Add(time.Duration(s) * time.Second)
		b := &client.Batch{Stream: 1}
		for w.Now().Before(end) {
			b.Add(w.Next())
		}
		agg.Apply(b.Events(), 1, decode.Clock{}, end)
		ring.Add(b)
		rec.Take(end)
	}
	status := client.Status{Source: "127.0.0.1:10002", State: client.StateStreaming, Format: decode.FormatBinary, Negotiation: client.OutcomeNegotiated}
	return &Source{Agg: agg, History: hist, Ring: ring, Status: func() client.Status { return status }, Version: "proftop 9.9.9 (commit abc)"}
}

// files reads every file of a bundle.
func files(t *testing.T, path string) map[string][]byte {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	tr := tar.NewReader(zr)
	out := map[string][]byte{}
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
		out[h.Name], _ = io.ReadAll(tr)
	}
}

func TestBundleContents(t *testing.T) {
	src := simulatedSource(t, 16)
	path := filepath.Join(t.TempDir(), "incident.tar.gz")
	sum, err := src.Write(path, t0.Add(16*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	if sum.Pictures != 16 || sum.Deadlocks != 2 || sum.Bytes == 0 {
		t.Fatalf("%+v", sum)
	}
	fs := files(t, path)
	for _, name := range []string{FileReadme, FilePicture, FileText, FileHistory, FileHistoryTree, FileDeadlocks, FileDeadJSON, FileThreads, FileStream, FileProfile, FileCollapsed} {
		if len(fs[name]) == 0 {
			t.Errorf("%s is missing or empty", name)
		}
	}
	readme := string(fs[FileReadme])
	for _, want := range []string{"proftop 9.9.9 (commit abc)", "on host ", "127.0.0.1:10002", "16 pictures", "every deadlock seen (2)", "JVM       pid 4242"} {
		if !strings.Contains(readme, want) {
			t.Errorf("the README lacks %q:\n%s", want, readme)
		}
	}
	if n := strings.Count(string(fs[FileHistory]), "\n"); n != 16 {
		t.Errorf("%d history lines", n)
	}
	// Both deadlocks, each with both threads' stacks.
	dl := string(fs[FileDeadlocks])
	if strings.Count(dl, "Found one Java-level deadlock") != 2 || strings.Count(dl, "- waiting to lock <0x") != 4 ||
		strings.Count(dl, "\tat com.acme.billing") < 4 || strings.Count(dl, "\t- holds <0x") != 4 {
		t.Errorf("deadlocks:\n%s", dl)
	}
	th := string(fs[FileThreads])
	if !strings.HasPrefix(th, "2026-11-21 09:00:1") || !strings.Contains(th, "Full thread dump") ||
		!strings.Contains(th, "   java.lang.Thread.State: RUNNABLE") || !strings.Contains(th, "\"http-nio-8080-exec-") ||
		!strings.Contains(th, ".java:") {
		t.Errorf("thread dump:\n%.2000s", th)
	}
	// The profile reads back with the pprof library; the collapsed stacks parse.
	tree, p, err := export.ReadPprof(bytes.NewReader(fs[FileProfile]))
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Sample) == 0 || tree.Nodes[0].TotalN == 0 || p.SampleType[0].Type != "calls" {
		t.Fatalf("profile: %d samples, types %v", len(p.Sample), p.SampleType)
	}
	stacks, err := export.ReadCollapsed(bytes.NewReader(fs[FileCollapsed]))
	if err != nil || len(stacks) == 0 {
		t.Fatalf("collapsed: %v, %d stacks", err, len(stacks))
	}
	var total int64
	for _, s := range stacks {
		total += s.Value
	}
	if want := tree.Nodes[0].Total / 1000; total < want*99/100 || total > want {
		t.Fatalf("collapsed total %d µs, profile %d µs", total, want)
	}
	// The raw stream decodes, from the bundle itself.
	dec, err := decode.Open(mustOpen(t, path), decode.Options{})
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for {
		_, err := dec.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		n++
	}
	if n < 50_000 {
		t.Fatalf("%d events in the stream", n)
	}
	// Read back: the same history.
	b, err := Read(path)
	if err != nil {
		t.Fatal(err)
	}
	h := b.History(state.HistoryOptions{})
	pics := h.Pictures()
	if len(pics) != 16 || len(h.Deadlocks()) != 2 || !IsBundle(path) || len(b.Profile) == 0 {
		t.Fatalf("read back %d pictures, %d deadlocks", len(pics), len(h.Deadlocks()))
	}
	orig := src.History.Pictures()
	for i := range pics {
		if pics[i].Marks != orig[i].Marks || !pics[i].At.Equal(orig[i].At) || len(pics[i].Snap.Threads) != len(orig[i].Snap.Threads) {
			t.Fatalf("picture %d differs", i)
		}
		// Its call tree, of the window that ended then, as it was.
		want := state.PastCallTree(orig, i, 10*time.Second, nil, src.Agg.TreeShape)
		got := state.PastCallTree(pics, i, 10*time.Second, nil, func() state.TreeShape { return state.TreeShape{} })
		if i > 1 && len(got.Nodes) < 10 || len(got.Nodes) != len(want.Nodes) || got.Nodes[0].Total != want.Nodes[0].Total || got.Nodes[0].TotalN != want.Nodes[0].TotalN {
			t.Fatalf("picture %d: a call tree of %d nodes (%d ns), want %d (%d ns)", i, len(got.Nodes), got.Nodes[0].Total, len(want.Nodes), want.Nodes[0].Total)
		}
		if got := pics[i].Snap.Since; len(got) != len(orig[i].Snap.Since) || len(got) == 0 || got[0].Calls != orig[i].Snap.Since[0].Calls {
			t.Fatalf("picture %d: the figures since the start differ", i)
		}
	}
}

// Writing a bundle streams its files: what it allocates is far below
// what the history it writes holds.
func TestBundleWriteIsStreamed(t *testing.T) {
	src := simulatedSource(t, 16)
	var hist int64
	for _, p := range src.History.Pictures() {
		b, _ := json.Marshal(p)
		hist += int64(len(b)) + 1 // and its newline
	}
	path := filepath.Join(t.TempDir(), "b.tar.gz")
	// Garbage collected soon after it is made: the heap's growth is then
	// what the write holds at once.
	defer debug.SetGCPercent(debug.SetGCPercent(5))
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	if _, err := src.Write(path, t0.Add(16*time.Second)); err != nil {
		t.Fatal(err)
	}
	runtime.ReadMemStats(&after)
	fs := files(t, path)
	if int64(len(fs[FileHistory])) != hist {
		t.Fatalf("history.jsonl: %d bytes, want %d", len(fs[FileHistory]), hist)
	}
	// The peak is not measured, but what is live at the end and the heap's
	// high-water mark are: a history held whole in memory would show.
	t.Logf("the heap grew by %d bytes writing a history of %d", int64(after.HeapSys)-int64(before.HeapSys), hist)
	if grew := int64(after.HeapSys) - int64(before.HeapSys); grew > hist/2 {
		t.Fatalf("the heap grew by %d bytes writing a history of %d", grew, hist)
	}
}

func mustOpen(t *testing.T, path string) *os.File {
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return f
}

func TestBundleWriteFailuresAreClear(t *testing.T) {
	src := simulatedSource(t, 2)
	dir := t.TempDir()
	missing := filepath.Join(dir, "no", "such", "dir.tar.gz")
	if _, err := src.Write(missing, t0); err == nil ||
		!strings.HasPrefix(err.Error(), "cannot write the bundle: the directory "+filepath.Dir(missing)+" does not exist") {
		t.Fatalf("%v", err)
	}
	// A name taken by a directory: nothing is left behind.
	taken := filepath.Join(dir, "taken.tar.gz")
	os.Mkdir(taken, 0o755)
	os.WriteFile(filepath.Join(taken, "x"), nil, 0o644)
	if _, err := src.Write(taken, t0); err == nil {
		t.Fatal("wrote over a directory")
	}
	left, _ := filepath.Glob(filepath.Join(dir, ".taken*"))
	if len(left) != 0 {
		t.Fatalf("left behind: %v", left)
	}
}
