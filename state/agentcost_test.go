package state

import (
	"testing"
	"time"

	"github.com/proftop/proftop/decode"
)

func TestAgentCost(t *testing.T) {
	a := New(Options{})
	if s := a.Snapshot(t0, Query{CallersOf: -1}); s.AgentCost != nil {
		t.Fatal("a cost before any report")
	}
	sec := decode.Ticks(time.Second)
	feed(a, &decode.AgentCost{Time: ms(0), AgentCPU: sec / 10, JFRCPU: sec / 20, AgentThreads: 4, JFRThreads: 2, ProcessCPU: sec},
		&decode.AgentCost{Time: ms(2000), AgentCPU: sec/10 + sec/50, JFRCPU: sec/20 + sec/100, AgentThreads: 4, JFRThreads: 2, ProcessCPU: 2 * sec})
	c := a.Snapshot(t0, Query{CallersOf: -1}).AgentCost
	if c == nil || c.AgentPercent != 1 || c.JFRPercent != 0.5 || c.JVMPercent != 50 || c.AgentCPU != 120*time.Millisecond || c.AgentThreads != 4 {
		t.Fatalf("%+v", c)
	}
}
