package tui

import (
	"testing"
	"time"
)

// A notice gives the footer back to the key hints after a while, unless
// a confirmation waits on it; a new notice starts its own while.
func TestNoticeAges(t *testing.T) {
	m := &Model{}
	t0 := time.Unix(1_000_000, 0)
	m.notice = "profile written: p.pb.gz"
	m.ageNotice(t0)
	m.ageNotice(t0.Add(noticeFor - time.Second))
	if m.notice == "" {
		t.Fatal("cleared before its time")
	}
	m.notice = "bundle written: b.tar.gz"
	m.ageNotice(t0.Add(noticeFor))
	if m.notice == "" {
		t.Fatal("a new notice cleared with the old one's age")
	}
	m.ageNotice(t0.Add(2 * noticeFor))
	if m.notice != "" {
		t.Fatalf("still %q after %v", m.notice, noticeFor)
	}
	m.notice, m.confirmReset = "press r again to reset", true
	m.ageNotice(t0)
	m.ageNotice(t0.Add(time.Hour))
	if m.notice == "" {
		t.Fatal("a confirmation's notice cleared")
	}
}
