package tui

import (
	"testing"
	"time"
)

func TestUptime(t *testing.T) {
	for _, tc := range []struct {
		d    time.Duration
		want string
	}{
		{0, "0s"},
		{400 * time.Millisecond, "0s"},
		{13 * time.Second, "13s"},
		{3*time.Minute + 7*time.Second + 900*time.Millisecond, "3m07s"},
		{-time.Second, "–"},
	} {
		if got := uptime(tc.d); got != tc.want {
			t.Errorf("uptime(%v) = %q, want %q", tc.d, got, tc.want)
		}
	}
}
