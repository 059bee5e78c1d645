package rbkitsim

import (
	"bytes"
	"math/rand/v2"
	"time"

	"github.com/vmihailenco/msgpack/v5"
)

// The synthetic Ruby workload: a ledger reconciliation script with a
// poller thread, and rbkit's own thread. It samples stacks, allocates and
// frees objects and collects garbage as a Ruby 3.1 process does under
// rbkit, and packs each event as rbkit 0.1.10 does.

// rawEvent is one event, msgpack-encoded.
type rawEvent []byte

type frame struct {
	label, file string
	line        int
}

const cfunc = "<cfunc>"

var (
	main0 = []frame{{"block in <main>", "/srv/ledger/bin/reconcile.rb", 12}, {"Integer#times", cfunc, 0},
		{"<main>", "/srv/ledger/bin/reconcile.rb", 0}, {"<main>", "/srv/ledger/bin/reconcile.rb", 0}}
	ledger = "/srv/ledger/app/models/ledger.rb"
	report = "/srv/ledger/app/models/ledger/report.rb"
)

// stack is a sampled stack (innermost first) and how often it is seen.
type stack struct {
	frames []frame
	weight int
	wall   bool // only on the wall clock: the thread sleeps or waits
}

type rubyThread struct {
	id     int64
	share  int // of the samples
	stacks []stack
}

func with(inner []frame, outer []frame) []frame {
	return append(append([]frame(nil), inner...), outer...)
}

var rubyThreads = []rubyThread{
	{id: 60, share: 80, stacks: []stack{
		{with([]frame{{"BigDecimal#+", cfunc, 0}, {"Ledger::Entry#amount", "/srv/ledger/app/models/ledger/entry.rb", 18},
			{"block in Ledger#reconcile", ledger, 42}, {"Array#each", cfunc, 0}, {"Ledger#reconcile", ledger, 40}}, main0), 30, false},
		{with([]frame{{"Ledger#reconcile", ledger, 40}}, main0), 25, false},
		{with([]frame{{"Hash#[]", cfunc, 0}, {"block in Ledger#reconcile", ledger, 42}, {"Array#each", cfunc, 0}, {"Ledger#reconcile", ledger, 40}}, main0), 15, false},
		{with([]frame{{"String#%", cfunc, 0}, {"Ledger::Report#line", report, 9}, {"block (2 levels) in Ledger::Report#render", report, 22},
			{"Hash#each", cfunc, 0}, {"Ledger::Report#render", report, 20}}, main0), 20, false},
		{with([]frame{{"JSON::Ext::Generator::GeneratorMethods::Hash#to_json", cfunc, 0},
			{"Ledger::Export#dump", "/srv/ledger/app/models/ledger/export.rb", 7}}, main0), 10, false},
		{with([]frame{{"Kernel#sleep", cfunc, 0}}, main0), 30, true},
	}},
	{id: 80, share: 15, stacks: []stack{
		{[]frame{{"Ledger::Poller#fetch", "/srv/ledger/app/poller.rb", 14}, {"block in Ledger::Poller#start", "/srv/ledger/app/poller.rb", 6}}, 10, false},
		{[]frame{{"IO.select", cfunc, 0}, {"Ledger::Poller#fetch", "/srv/ledger/app/poller.rb", 14}, {"block in Ledger::Poller#start", "/srv/ledger/app/poller.rb", 6}}, 40, true},
	}},
	{id: 100, share: 5, stacks: []stack{
		{[]frame{{"Rbkit::Server#poll_for_request", cfunc, 0}, {"block (2 levels) in Rbkit::Server#start", "/usr/lib/ruby/rbkit/server.rb", 44},
			{"Kernel#loop", cfunc, 0}, {"block in Rbkit::Server#start", "/usr/lib/ruby/rbkit/server.rb", 43}}, 10, false},
	}},
}

// rubyClasses are what the script allocates, and how often ("" is an
// object without a class: an internal one).
var rubyClasses = []struct {
	name   string
	weight int
	size   int64
	site   string
}{
	{"String", 40, 40, "/srv/ledger/app/models/ledger/report.rb:9"},
	{"Array", 12, 40, "/srv/ledger/app/models/ledger.rb:41"},
	{"Hash", 10, 160, "/srv/ledger/app/models/ledger/entry.rb:20"},
	{"BigDecimal", 18, 72, "/srv/ledger/app/models/ledger/entry.rb:18"},
	{"Ledger::Entry", 12, 40, "/srv/ledger/app/models/ledger.rb:42"},
	{"Time", 5, 40, ""},
	{"", 3, 40, ""},
}

type liveObject struct {
	id    int64
	class int
	dies  int // the collection that frees it; -1: lives on
}

// ruby is the workload's state.
type ruby struct {
	rng         *rand.Rand
	nextID      int64
	live        []liveObject
	gcs         int
	minor       int
	major       int
	sinceGC     time.Duration
	sinceStats  time.Duration
	correlation int64
	allocated   int64
	freed       int64
}

// maxLive bounds the live objects the workload keeps.
const maxLive = 30000

func newRuby(seed uint64) *ruby {
	return &ruby{rng: rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15)), nextID: 20}
}

// run advances the workload by d and returns its events in frames of at
// most 400 events (rbkit's flush size); a dump goes in a frame of its own.
func (r *ruby) run(d time.Duration, cpu, memory, wall, gcNow, dump bool) [][]rawEvent {
	var out []rawEvent
	now := nowMS() - float64(d)/1e6
	step := func(ms float64) float64 { now += ms; return now }
	if cpu {
		rate := 50.0
		if wall {
			rate = 140
		}
		n := int(d.Seconds()*rate + r.rng.Float64())
		for range n {
			out = append(out, r.sample(step(d.Seconds()*1000/float64(n+1)), wall))
		}
	}
	if memory {
		n := int(d.Seconds() * 1500)
		for range n {
			out = append(out, r.allocate(step(d.Seconds()*1000/float64(n+1))))
		}
		r.sinceGC += d
		r.sinceStats += d
		if r.sinceGC >= 2*time.Second || len(r.live) > maxLive*9/10 {
			gcNow = true
		}
	}
	if gcNow {
		out = append(out, r.collect(now)...)
		r.sinceGC = 0
	}
	if memory && r.sinceStats >= 5*time.Second {
		out = append(out, r.stats(now))
		r.sinceStats = 0
	}
	var frames [][]rawEvent
	for len(out) > 0 {
		n := min(len(out), 400)
		frames = append(frames, out[:n])
		out = out[n:]
	}
	if dump {
		frames = append(frames, r.dump(now))
	}
	return frames
}

func pack(f func(e *msgpack.Encoder)) rawEvent {
	var buf bytes.Buffer
	f(msgpack.NewEncoder(&buf))
	return buf.Bytes()
}

func (r *ruby) sample(ts float64, wall bool) rawEvent {
	pick := r.rng.IntN(100)
	t := &rubyThreads[0]
	for i := range rubyThreads {
		if pick < rubyThreads[i].share {
			t = &rubyThreads[i]
			break
		}
		pick -= rubyThreads[i].share
	}
	total := 0
	for _, s := range t.stacks {
		if wall || !s.wall {
			total += s.weight
		}
	}
	pick = r.rng.IntN(total)
	var st *stack
	for i := range t.stacks {
		if s := &t.stacks[i]; wall || !s.wall {
			if pick < s.weight {
				st = s
				break
			}
			pick -= s.weight
		}
	}
	return pack(func(e *msgpack.Encoder) {
		e.EncodeMapLen(3)
		e.EncodeInt(0)
		e.EncodeInt(9)
		e.EncodeInt(1)
		e.EncodeFloat64(ts)
		e.EncodeInt(2)
		e.EncodeArrayLen(len(st.frames))
		for _, f := range st.frames {
			e.EncodeMapLen(6)
			e.EncodeInt(12)
			if i := lastMethod(f.label); i != "" {
				e.EncodeString(i)
			} else {
				e.EncodeNil()
			}
			e.EncodeInt(13)
			e.EncodeString(f.label)
			e.EncodeInt(6)
			e.EncodeString(f.file)
			e.EncodeInt(7)
			e.EncodeInt(int64(f.line))
			e.EncodeInt(14)
			e.EncodeInt(0)
			e.EncodeInt(15)
			e.EncodeInt(t.id)
		}
	})
}

// lastMethod is the method name of a label ("reconcile" of
// "Ledger#reconcile"); "" for <main> and the like.
func lastMethod(label string) string {
	for i := len(label) - 1; i >= 0; i-- {
		switch label[i] {
		case '#', '.':
			return label[i+1:]
		case ' ', '>':
			return ""
		}
	}
	return ""
}

func (r *ruby) allocate(ts float64) rawEvent {
	total := 0
	for _, c := range rubyClasses {
		total += c.weight
	}
	pick, class := r.rng.IntN(total), 0
	for i, c := range rubyClasses {
		if pick < c.weight {
			class = i
			break
		}
		pick -= c.weight
	}
	id := r.nextID
	r.nextID += 20
	dies := r.gcs + 1 + r.rng.IntN(3)
	if r.rng.IntN(10) == 0 {
		dies = -1
	}
	if len(r.live) < maxLive {
		r.live = append(r.live, liveObject{id: id, class: class, dies: dies})
	}
	r.allocated++
	return pack(func(e *msgpack.Encoder) {
		e.EncodeMapLen(3)
		e.EncodeInt(0)
		e.EncodeInt(0)
		e.EncodeInt(1)
		e.EncodeFloat64(ts)
		e.EncodeInt(2)
		e.EncodeMapLen(2)
		e.EncodeInt(3)
		e.EncodeInt(id)
		e.EncodeInt(4)
		if name := rubyClasses[class].name; name != "" {
			e.EncodeString(name)
		} else {
			e.EncodeNil()
		}
	})
}

func marker(typ int, ts float64) rawEvent {
	return pack(func(e *msgpack.Encoder) {
		e.EncodeMapLen(2)
		e.EncodeInt(0)
		e.EncodeInt(int64(typ))
		e.EncodeInt(1)
		e.EncodeFloat64(ts)
	})
}

// collect runs a collection: gc_start, the frees, the end of marking (a
// few milliseconds later) and of sweeping.
func (r *ruby) collect(ts float64) []rawEvent {
	r.gcs++
	if r.gcs%5 == 0 {
		r.major++
	} else {
		r.minor++
	}
	mark := 2 + r.rng.Float64()*6
	out := []rawEvent{marker(2, ts)}
	kept := r.live[:0]
	for _, o := range r.live {
		if o.dies >= 0 && o.dies <= r.gcs {
			id := o.id
			r.freed++
			out = append(out, pack(func(e *msgpack.Encoder) {
				e.EncodeMapLen(3)
				e.EncodeInt(0)
				e.EncodeInt(1)
				e.EncodeInt(1)
				e.EncodeFloat64(ts + mark)
				e.EncodeInt(2)
				e.EncodeMapLen(1)
				e.EncodeInt(3)
				e.EncodeInt(id)
			}))
			continue
		}
		kept = append(kept, o)
	}
	r.live = kept
	return append(out, marker(3, ts+mark), marker(4, ts+mark+1))
}

// stats is gc_stats: GC.stat's keys, string-keyed, as rbkit sends them.
func (r *ruby) stats(ts float64) rawEvent {
	live := int64(len(r.live)) + 18000
	pages := live/409 + 8
	stats := []struct {
		k string
		v int64
	}{
		{"count", int64(r.gcs)}, {"minor_gc_count", int64(r.minor)}, {"major_gc_count", int64(r.major)},
		{"heap_allocated_pages", pages}, {"heap_live_slots", live}, {"heap_free_slots", pages*409 - live},
		{"heap_final_slots", 0}, {"total_allocated_objects", r.allocated + 40000}, {"total_freed_objects", r.freed + 22000},
		{"total_heap_size", pages * 409 * 40}, {"total_memsize", live*40 + 1_900_000},
	}
	return pack(func(e *msgpack.Encoder) {
		e.EncodeMapLen(3)
		e.EncodeInt(0)
		e.EncodeInt(6)
		e.EncodeInt(1)
		e.EncodeFloat64(ts)
		e.EncodeInt(2)
		e.EncodeMapLen(len(stats))
		for _, s := range stats {
			e.EncodeString(s.k)
			e.EncodeInt(s.v)
		}
	})
}

// dump is an object-space dump of the live objects, in messages of 1000
// objects that share a correlation id and announce the total.
func (r *ruby) dump(ts float64) []rawEvent {
	r.correlation++
	var out []rawEvent
	for first := 0; first < len(r.live) || first == 0; first += 1000 {
		part := r.live[first:min(first+1000, len(r.live))]
		out = append(out, pack(func(e *msgpack.Encoder) {
			e.EncodeMapLen(5)
			e.EncodeInt(0)
			e.EncodeInt(5)
			e.EncodeInt(1)
			e.EncodeFloat64(ts)
			e.EncodeInt(10)
			e.EncodeInt(r.correlation)
			e.EncodeInt(11)
			e.EncodeInt(int64(len(r.live)))
			e.EncodeInt(2)
			e.EncodeArrayLen(len(part))
			for _, o := range part {
				c := rubyClasses[o.class]
				e.EncodeMapLen(6)
				e.EncodeInt(3)
				e.EncodeInt(o.id)
				e.EncodeInt(4)
				if c.name != "" {
					e.EncodeString(c.name)
				} else {
					e.EncodeNil()
				}
				e.EncodeInt(5)
				e.EncodeArrayLen(0)
				file, line := splitSite(c.site)
				e.EncodeInt(6)
				if file != "" {
					e.EncodeString(file)
				} else {
					e.EncodeNil()
				}
				e.EncodeInt(7)
				if file != "" {
					e.EncodeInt(line)
				} else {
					e.EncodeNil()
				}
				e.EncodeInt(8)
				e.EncodeInt(c.size)
			}
		}))
		if len(r.live) == 0 {
			break
		}
	}
	return out
}

func splitSite(site string) (string, int64) {
	for i := len(site) - 1; i >= 0; i-- {
		if site[i] == ':' {
			var n int64
			for _, c := range site[i+1:] {
				n = n*10 + int64(c-'0')
			}
			return site[:i], n
		}
	}
	return site, 0
}
