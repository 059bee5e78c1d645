package agent

import (
	"testing"
	"time"

	"github.com/proftop/proftop/client"
	"github.com/proftop/proftop/decode"
	"github.com/proftop/proftop/state"
)

// The agent reports what watching costs: its own threads' CPU and JFR's,
// with the JVM's, at each poll; the header's figures come from it.
func TestAgentReportsItsOwnCost(t *testing.T) {
	j, port := startWithAgent(t, 60, false, "")
	w, _, cancel := watch(t, port, client.FormatAuto)
	var last *decode.AgentCost
	await(t, w, []expectation{{"two agentCost reports, the agent's CPU growing", func(w *watched) bool {
		w.mu.Lock()
		defer w.mu.Unlock()
		var reports []*decode.AgentCost
		for _, ev := range w.events {
			if c, ok := ev.(*decode.AgentCost); ok {
				reports = append(reports, c)
			}
		}
		if len(reports) < 3 {
			return false
		}
		last = reports[len(reports)-1]
		return last.AgentCPU > reports[0].AgentCPU && last.AgentThreads >= 2 && last.JFRThreads >= 1 && last.ProcessCPU > last.AgentCPU
	}}}, 45*time.Second)
	c := w.agg.Snapshot(time.Now(), state.Query{CallersOf: -1}).AgentCost
	if c == nil || c.JVMPercent < 0 || c.AgentPercent > c.JVMPercent {
		t.Fatalf("the picture's cost: %+v", c)
	}
	t.Logf("agent %d threads, %v CPU; JFR %d threads, %v; the JVM %v; latest interval: agent %.2f%%, JFR %.2f%%, JVM %.1f%% of a core",
		last.AgentThreads, time.Duration(last.AgentCPU), last.JFRThreads, time.Duration(last.JFRCPU), time.Duration(last.ProcessCPU),
		c.AgentPercent, c.JFRPercent, c.JVMPercent)
	cancel()
	j.exits(t, 20*time.Second)
}
