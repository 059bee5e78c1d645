package state

import (
	"math"
	"strconv"
	"testing"
	"time"

	"github.com/proftop/proftop/decode"
)

func TestBucketEntriesRoundTrip(t *testing.T) {
	entries := []struct {
		slot int32
		f    figures
	}{
		{0, figures{calls: 1, self: 5, total: 7, cpu: 3, min: 7, max: 7}},
		{1, figures{samples: 4, totalSamples: 9, self: 40, total: 90, min: math.MaxInt64, max: -1}},
		{2, figures{calls: 3, self: 0, total: 0, min: 0, max: 0}},
		{1 << 20, figures{calls: math.MaxInt64, self: -5, total: math.MinInt64, cpu: -1, min: math.MinInt64, max: math.MaxInt64 - 1,
			samples: math.MaxInt64, totalSamples: 1}},
		{1<<31 - 1, figures{min: math.MaxInt64, max: -1}},
		// Total the self time, min and max the total: neither is stored.
		{1<<31 - 1, figures{calls: 1, self: 4000, total: 4000, min: 4000, max: 4000}},
		// Only some of them equal: the others are stored.
		{1<<31 - 1, figures{calls: 1, self: 4000, total: 4000, min: 4000, max: 4001}},
		{1<<31 - 1, figures{calls: 1, self: 3000, total: 4000, min: 4000, max: 4000}},
		{1<<31 - 1, figures{calls: 2, self: 4000, total: 4000, min: 4000, max: -1}},
		{1<<31 - 1, figures{calls: 2, self: -1, total: -1, min: -1, max: -1}},
		{1<<31 - 1, figures{calls: 1, self: 3, total: 2, min: math.MaxInt64, max: -1}},
		{1<<31 - 1, figures{calls: 0, self: 3, total: 3, min: math.MaxInt64, max: -1}},
		{1<<31 - 1, figures{samples: 1, self: 0, total: 0, min: math.MaxInt64, max: math.MaxInt64}},
	}
	var b windowBucket
	prev := int32(0)
	for _, e := range entries {
		b = b.appendEntry(prev, e.slot, &e.f)
		prev = e.slot
	}
	prev = 0
	pos := 0
	for i, want := range entries {
		var slot int32
		var f figures
		slot, f, pos = b.entry(pos, prev)
		prev = slot
		if slot != want.slot || f != want.f {
			t.Fatalf("entry %d: slot %d %+v, want %d %+v", i, slot, f, want.slot, want.f)
		}
	}
	if pos != len(b) {
		t.Fatalf("%d of %d bytes read", pos, len(b))
	}
}

// A method called once in the second, without callees (its total its self
// time, its min and max its total), takes a slot distance, the flags and
// self: no more.
func TestBucketEntryOfOneLeafCallIsShort(t *testing.T) {
	f := figures{calls: 1, self: 4000, total: 4000, min: 4000, max: 4000}
	b := windowBucket(nil).appendEntry(0, 1, &f)
	if len(b) != 4 { // 1 + 1 + 2
		t.Fatalf("%d bytes, want 4", len(b))
	}
	if _, got, _ := b.entry(0, 0); got != f {
		t.Fatalf("%+v, want %+v", got, f)
	}
}

// The window's min and max follow the seconds that leave it.
func TestWindowMinMaxForgetExpiredSeconds(t *testing.T) {
	a := New(Options{Window: 3 * time.Second})
	feed(a, defs()...)
	call := func(sec int, d time.Duration, ticket int32) {
		at := t0.Add(time.Duration(sec) * time.Second)
		tt := decode.Ticks(at.UnixNano())
		a.Apply([]decode.Event{
			&decode.MethodEntry{ThreadIDRef: 1, MethodIDRef: 10, Ticket: ticket, Time: tt},
			&decode.MethodExit{ThreadIDRef: 1, Ticket: ticket, Time: tt + decode.Ticks(d)},
		}, 1, decode.Clock{}, at)
	}
	call(0, 9*time.Millisecond, 1)
	call(1, 2*time.Millisecond, 2)
	call(2, 4*time.Millisecond, 3)
	for _, tc := range []struct {
		sec      int
		min, max time.Duration
	}{
		{2, 2 * time.Millisecond, 9 * time.Millisecond},
		{3, 2 * time.Millisecond, 4 * time.Millisecond},
		{4, 4 * time.Millisecond, 4 * time.Millisecond},
	} {
		s := a.Snapshot(t0.Add(time.Duration(tc.sec)*time.Second+time.Millisecond), Query{Recent: true, CallersOf: -1})
		if len(s.Methods) != 1 || s.Methods[0].Min != tc.min || s.Methods[0].Max != tc.max {
			t.Fatalf("second %d: %+v, want min %v max %v", tc.sec, s.Methods, tc.min, tc.max)
		}
	}
}

// A window bucket is sized once, from the bytes an entry took the second
// before, not grown by appends: a wide window's bucket is a megabyte,
// copied a dozen times as it grows.
func TestWindowBucketSizedFromTheSecondBefore(t *testing.T) {
	var mt methodTable
	mt.init(time.Hour, 10_000)
	for i := range 5_000 {
		mt.newSlot(provisionalText(strconv.Itoa(i)), strconv.Itoa(i), 1)
	}
	second := int64(0)
	fill := func() {
		second++
		for slot := range int32(5_000) {
			mt.record(slot, 1, 1000+second, 1000+second, 1000, 1000, -1)
		}
	}
	fill()
	mt.closeBucket()
	allocs := testing.AllocsPerRun(5, func() {
		fill()
		mt.closeBucket()
	})
	if allocs > 2 { // the bucket, and now and then the list of buckets
		t.Fatalf("closing a second of 5,000 methods allocates %.0f times", allocs)
	}
	last, prev := mt.buckets[len(mt.buckets)-1], mt.buckets[len(mt.buckets)-2]
	if cap(last) > len(prev)+len(prev)/4 {
		t.Fatalf("a bucket of %d bytes after one of %d has capacity %d", len(last), len(prev), cap(last))
	}
}
