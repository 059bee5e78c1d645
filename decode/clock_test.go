package decode

import (
	"math"
	"testing"
	"time"
)

func TestClockConvertsWithIntegers(t *testing.T) {
	for _, tc := range []struct {
		freq  int64
		ticks Ticks
		want  string
	}{
		{0, 1174313536310316085, "2007-03-19T14:12:16.310316085Z"},
		{1e9, -1, "1969-12-31T23:59:59.999999999Z"},
		{2_400_000_000, 2_400_000_000*1_700_000_000 + 1_200_000_000, "2023-11-14T22:13:20.5Z"},
		{1000, 1_500, "1970-01-01T00:00:01.5Z"},
		{3, 4, "1970-01-01T00:00:01.333333333Z"},
	} {
		if got := (Clock{Frequency: tc.freq}).Time(tc.ticks).Format(time.RFC3339Nano); got != tc.want {
			t.Errorf("freq %d ticks %d: %s, want %s", tc.freq, tc.ticks, got, tc.want)
		}
	}
	c := Clock{Frequency: 2_400_000_000}
	if d := c.Duration(3_600_000_000); d != 1500*time.Millisecond {
		t.Errorf("duration %v", d)
	}
	if d := c.Duration(-2_400_000_000); d != -time.Second {
		t.Errorf("negative duration %v", d)
	}
	if d := (Clock{Frequency: 1}).Duration(math.MaxInt64); d != math.MaxInt64 {
		t.Errorf("saturation %v", d)
	}
	if got := c.FromDuration(1500 * time.Millisecond); got != 3_600_000_000 {
		t.Errorf("FromDuration %d", got)
	}
	at := time.Date(2026, 11, 21, 9, 20, 0, 123456789, time.UTC)
	if got := (Clock{}).Time((Clock{}).FromTime(at)); !got.Equal(at) {
		t.Errorf("FromTime round trip %v", got)
	}
}

// Decimal seconds written for XML read back to exactly the same ticks, at
// any frequency.
func TestSecondsRoundTripExactly(t *testing.T) {
	for _, freq := range []int64{1, 3, 1000, 1_000_000, 1e9, 2_400_000_000, 3_000_000_007, 1e18} {
		c := Clock{Frequency: freq}
		for _, v := range []Ticks{0, 1, -1, Ticks(freq - 1), Ticks(freq), Ticks(freq + 1), 1174313536310316085, math.MaxInt64, math.MinInt64, -Ticks(freq) / 2} {
			s := c.appendSeconds(nil, v)
			got, ok := c.parseSeconds(s)
			if !ok || got != v {
				t.Errorf("freq %d: %d -> %q -> %d (%v)", freq, v, s, got, ok)
			}
		}
	}
	if s := string((Clock{}).appendSeconds(nil, 1174313536310316085)); s != "1174313536.310316085" {
		t.Errorf("nanosecond form %q", s)
	}
}

func TestParseSecondsRejectsNonsense(t *testing.T) {
	c := Clock{}
	for _, s := range []string{"", "-", ".", "1.2.3", "1e9", "0x10", " 1", "1 ", "99999999999999999999", "9223372037"} {
		if v, ok := c.parseSeconds([]byte(s)); ok {
			t.Errorf("%q parsed as %d", s, v)
		}
	}
	for s, want := range map[string]Ticks{"1.": 1e9, ".5": 5e8, "+2": 2e9, "-0.000000001": -1, "1.0000000019": 1_000_000_001, "007": 7e9} {
		if v, ok := c.parseSeconds([]byte(s)); !ok || v != want {
			t.Errorf("%q: %d %v, want %d", s, v, ok, want)
		}
	}
}

func TestNanos(t *testing.T) {
	if got := (Clock{}).Nanos(1174313536310316085); got != 1174313536310316085 {
		t.Fatal(got)
	}
	if got := (Clock{Frequency: 1000}).Nanos(1500); got != 1_500_000_000 {
		t.Fatal(got)
	}
}
