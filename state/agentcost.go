package state

import (
	"time"

	"github.com/proftop/proftop/decode"
)

// What watching costs the JVM, as its agent measures it: its own threads'
// CPU and JDK Flight Recorder's, in total and as a share of one core over
// the latest interval between two reports (a poll, a second).

// AgentCost is the agent's measure of its own cost, for the header.
type AgentCost struct {
	At       time.Time     `json:"at"`
	AgentCPU time.Duration `json:"agentCpuNs"` // since the agent began watching
	JFRCPU   time.Duration `json:"jfrCpuNs"`
	// AgentPercent and JFRPercent are % of one core over the latest
	// interval; JVMPercent the JVM's whole CPU over it (-1: unknown).
	AgentPercent float64 `json:"agentPercent"`
	JFRPercent   float64 `json:"jfrPercent"`
	JVMPercent   float64 `json:"jvmPercent"`
	AgentThreads int     `json:"agentThreads"`
	JFRThreads   int     `json:"jfrThreads"`
}

// costReading is one report, in ns.
type costReading struct {
	at, agent, jfr, process int64
}

// costState keeps the latest two reports.
type costState struct {
	prev, last costReading
	threads    [2]int
	seen       int
}

func (a *Aggregator) agentCost(e *decode.AgentCost) {
	c := &a.cost
	r := costReading{at: a.at(e.Time), agent: int64(a.clock.Duration(e.AgentCPU)), jfr: int64(a.clock.Duration(e.JFRCPU)), process: -1}
	if e.ProcessCPU >= 0 {
		r.process = int64(a.clock.Duration(e.ProcessCPU))
	}
	c.prev, c.last = c.last, r
	c.threads = [2]int{int(e.AgentThreads), int(e.JFRThreads)}
	c.seen++
}

// snapshot is the cost as the header shows it; nil before any report.
func (c *costState) snapshot() *AgentCost {
	if c.seen == 0 {
		return nil
	}
	out := &AgentCost{At: time.Unix(0, c.last.at), AgentCPU: time.Duration(c.last.agent), JFRCPU: time.Duration(c.last.jfr),
		AgentThreads: c.threads[0], JFRThreads: c.threads[1], JVMPercent: -1}
	if span := c.last.at - c.prev.at; c.seen > 1 && span > 0 {
		share := func(now, before int64) float64 { return max(100*float64(now-before)/float64(span), 0) }
		out.AgentPercent = share(c.last.agent, c.prev.agent)
		out.JFRPercent = share(c.last.jfr, c.prev.jfr)
		if c.last.process >= 0 && c.prev.process >= 0 {
			out.JVMPercent = share(c.last.process, c.prev.process)
		}
	}
	return out
}
