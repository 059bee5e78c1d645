package state

import (
	"encoding/json"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/proftop/proftop/decode"
	"github.com/proftop/proftop/simulator"
)

// What was not measured is left out of the JSON, not given a sentinel: a
// frame's unknown line, a pool's undefined max; an empty list is [], not
// null; a deadlock's monitors come in hex too, as the screen names them.
func TestSnapshotJSONHasNoSentinels(t *testing.T) {
	empty, err := json.Marshal(New(Options{}).Snapshot(t0, Query{CallersOf: -1}))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(empty), `"heap":[]`) || strings.Contains(string(empty), "null") {
		t.Fatalf("an empty picture: %s", empty)
	}

	w := simulator.NewWorld(simulator.Config{Seed: 1, Start: t0, DeadlockEvery: 20 * time.Second, DeadlockFor: 5 * time.Second})
	a := New(Options{})
	var live, recent bool
	for i := 0; i < 2000 && !(live && recent); i++ {
		evs := make([]decode.Event, 0, 1024)
		for range 1024 {
			evs = append(evs, decode.Clone(w.Next()))
		}
		feed(a, evs...)
		if i%20 != 0 {
			continue
		}
		s := a.Snapshot(t0, Query{CallersOf: -1, AllStacks: true})
		b, err := json.Marshal(s)
		if err != nil {
			t.Fatal(err)
		}
		for _, sentinel := range []string{`"line":-`, `"line":0`, `"max":-1`, `"heap":null`} {
			if strings.Contains(string(b), sentinel) {
				t.Fatalf("%s in %.400s…", sentinel, b[strings.Index(string(b), sentinel)-200:])
			}
		}
		var doc struct {
			Deadlocks       []Deadlock `json:"deadlocks"`
			RecentDeadlocks []Deadlock `json:"recentDeadlocks"`
		}
		if err := json.Unmarshal(b, &doc); err != nil {
			t.Fatal(err)
		}
		for _, d := range append(doc.Deadlocks, doc.RecentDeadlocks...) {
			if len(d.MonitorsHex) != len(d.Monitors) {
				t.Fatalf("monitors %v, in hex %v", d.Monitors, d.MonitorsHex)
			}
			for j, m := range d.Monitors {
				if d.MonitorsHex[j] != strconv.FormatInt(m, 16) {
					t.Fatalf("monitor %d in hex: %q", m, d.MonitorsHex[j])
				}
			}
		}
		live = live || len(doc.Deadlocks) > 0
		recent = recent || len(doc.RecentDeadlocks) > 0
	}
	if !live || !recent {
		t.Fatalf("deadlocks seen: live %v, recent %v", live, recent)
	}
}

// A class known by allocation samples of bytes alone (JFR's) has no count
// in JSON: "live": 0, "allocated": 0 and a minute of zero live counts said
// what was never measured.
func TestSampledClassHasNoCountsInJSON(t *testing.T) {
	b, err := json.Marshal(ObjectClass{Class: "byte[]", Bytes: 4096, BytesRate: 2048, Sampled: true, History: make([]int64, 60)})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := string(b), `{"class":"byte[]","bytes":4096,"bytesPerSec":2048,"sampled":true}`; got != want {
		t.Fatalf("got %s, want %s", got, want)
	}
	b, _ = json.Marshal(ObjectClass{Class: "Widget", Live: 3, Allocs: 5, Frees: 2, Sampled: true})
	if !strings.Contains(string(b), `"live":3`) || !strings.Contains(string(b), `"allocated":5`) {
		t.Fatalf("a sampled class with counts (rbkit's) lost them: %s", b)
	}
}

// Samples that stand for no time (rbkit's) are given in JSON as the pane
// gives them: each method's share of the samples, in order of its
// samples, and no times, which they do not stand for (a selfNs of 0 and a
// percent of 0 for the method with 95% of the samples).
func TestUntimedSamplesInJSONAreSharesOfTheSamples(t *testing.T) {
	a := New(Options{})
	var evs []decode.Event
	for i := range 4 {
		top := "Foo#work"
		if i == 3 {
			top = "Object#[]"
		}
		st := frames(top, "<main>")
		st.Lines[0] = 34
		evs = append(evs, &decode.Sample{ThreadIDRef: 1, Count: 1, Stack: st, Flags: decode.SampleFirstLines}) // rbkit's: a method's first line
	}
	a.Apply(evs, 1, decode.Clock{}, t0)
	b, err := json.Marshal(a.Snapshot(t0, Query{CallersOf: -1}))
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Methods []map[string]any `json:"methods"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	if len(doc.Methods) < 2 {
		t.Fatalf("%d methods: %s", len(doc.Methods), b)
	}
	first, second := doc.Methods[0], doc.Methods[1]
	if first["name"] != "Foo#work" || first["percent"] != 75.0 || first["line"] != 34.0 || second["name"] != "Object#[]" || second["percent"] != 25.0 {
		t.Fatalf("methods %v, want Foo#work 75%% then Object#[] 25%%", doc.Methods)
	}
	for _, m := range doc.Methods {
		if _, ok := m["selfNs"]; ok {
			t.Fatalf("a time for samples that stand for none: %v", m)
		}
	}
}

// A class known by the sampled size of its allocations only (JFR's) says
// its bytes and rate in the picture's JSON, and no count: not measured is
// left out, not written as 0.
func TestObjectsJSONLeavesOutCountsSampledBySizeOnly(t *testing.T) {
	o := Objects{FreesReported: true, Classes: []ObjectClass{
		{Class: "byte[]", Bytes: 11766992, BytesRate: 141000, Sampled: true, History: []int64{0, 0, 0}},
		{Class: "Foo", Live: 3, Allocs: 5, Frees: 2, Bytes: 80, History: []int64{1, 3}},
	}}
	b, err := json.Marshal(o)
	if err != nil {
		t.Fatal(err)
	}
	var got struct {
		Classes []map[string]any `json:"classes"`
	}
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatal(err)
	}
	sampled, counted := got.Classes[0], got.Classes[1]
	for _, key := range []string{"live", "allocated", "freed", "allocatedPerSec", "liveHistory"} {
		if _, ok := sampled[key]; ok {
			t.Errorf("the class sampled by size says %s: %s", key, b)
		}
	}
	if sampled["bytes"] != float64(11766992) || sampled["sampled"] != true || counted["live"] != float64(3) || counted["freed"] != float64(2) {
		t.Errorf("%s", b)
	}
}
