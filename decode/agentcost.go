package decode

// AgentCost is what watching costs the profiled JVM, as the agent measures
// it (message 1150, docs/trace-extensions.md): the CPU time of the agent's
// own threads and of JDK Flight Recorder's since the agent began watching,
// how many of each there are, and the JVM's whole CPU time, so that a
// client can tell each as a share of one core and of the JVM.
type AgentCost struct {
	Time         Ticks `tptp:"time"`
	AgentCPU     Ticks `tptp:"agentCpu"`     // the agent's threads (proftop-*)
	JFRCPU       Ticks `tptp:"jfrCpu"`       // JFR's threads that the JVM lists ("JFR …")
	AgentThreads int32 `tptp:"agentThreads"` // how many of each are alive
	JFRThreads   int32 `tptp:"jfrThreads"`
	ProcessCPU   Ticks `tptp:"processCpu"` // the JVM's CPU time since it started; -1: unknown
}

func (*AgentCost) Kind() Kind { return KindAgentCost }
