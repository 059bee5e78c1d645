package decode

// The event kinds. The order is the registry's order; Kind values are not a
// wire format and may change, WireID does not.
const (
	KindUnknown Kind = iota
	KindEncoding
	KindFrequency
	KindNode
	KindProcessCreate
	KindAgentCreate
	KindAgentDestroy
	KindTraceStart
	KindTraceEnd
	KindFilter
	KindOption
	KindThreadStart
	KindThreadEnd
	KindClassDef
	KindMethodDef
	KindObjAlloc
	KindMethodEntry
	KindMethodExit
	KindGCStart
	KindObjFree
	KindGCFinish
	KindRuntimeInitDone
	KindRuntimeShutdown
	KindMonWait
	KindMonWaited
	KindMonContendedEnter
	KindMonContendedEntered
	KindAgMethodEntry
	KindAgMethodExit
	KindHeapDumpDef
	KindGCRoot
	KindObjReference
	KindCustom
	KindSample
	KindThreadState
	KindThreadPoll
	KindMemoryPool
	KindCollection
	KindGCTotals
	KindObjectCensus
	KindAllocation
	KindThreadCPU
	KindCoverage
	KindTelemetrySeries
	KindTelemetryValue
	KindTelemetryProblem
	KindProbe
	KindThreadGroup
	KindVirtualThreads
	KindSourceNote
	KindVirtualPinned
	KindAgentCost
	KindObjClass
	numKinds
)

// The structs below are the events. Their fields are declared in wire order
// and named after the specification's attributes (tag `tptp`), which is what
// the registry reads: do not reorder them.

// Unknown is a message or element this decoder does not know. Binary streams
// give its id and size (it was skipped by its size); XML streams give its
// element name and attributes (its content was skipped).
type Unknown struct {
	ID      uint16
	Size    uint32
	Element string
	Attrs   []Attr
}

// Encoding (system message 1) names the charset of every later string.
type Encoding struct {
	Encoding string `tptp:"encoding"`
}

// Frequency (system message 2) gives the timer ticks per second.
type Frequency struct {
	Frequency int64 `tptp:"frequency"`
}

// Node describes the machine the profiled process runs on.
type Node struct {
	NodeID    string `tptp:"nodeId"`
	Hostname  string `tptp:"hostname"`
	IPAddress string `tptp:"ipaddress"`
	Timezone  int32  `tptp:"timezone"`
	Time      Ticks  `tptp:"time"`
}

// ProcessCreate describes the profiled process.
type ProcessCreate struct {
	ProcessID  string `tptp:"processId"`
	Name       string `tptp:"name"`
	PID        int32  `tptp:"pid"`
	NodeIDRef  string `tptp:"nodeIdRef"`
	Time       Ticks  `tptp:"time"`
	Executable string `tptp:"executable"`
}

// AgentCreate describes the profiling agent.
type AgentCreate struct {
	AgentID         string `tptp:"agentId"`
	ProcessIDRef    string `tptp:"processIdRef"`
	AgentName       string `tptp:"agentName"`
	AgentType       string `tptp:"agentType"`
	Time            Ticks  `tptp:"time"`
	AgentParameters string `tptp:"agentParameters"`
	Version         string `tptp:"version"`
}

// AgentDestroy says the agent went away.
type AgentDestroy struct {
	AgentIDRef string `tptp:"agentIdRef"`
	Time       Ticks  `tptp:"time"`
}

// TraceStart opens a trace.
type TraceStart struct {
	TraceID        string `tptp:"traceId"`
	AgentIDRef     string `tptp:"agentIdRef"`
	Time           Ticks  `tptp:"time"`
	CollationValue string `tptp:"collationValue"`
}

// TraceEnd closes a trace.
type TraceEnd struct {
	TraceIDRef     string `tptp:"traceIdRef"`
	Time           Ticks  `tptp:"time"`
	CollationValue string `tptp:"collationValue"`
}

// Filter is one class/method filter the agent applies.
type Filter struct {
	TraceIDRef           string `tptp:"traceIdRef"`
	Pattern              string `tptp:"pattern"`
	GenericPattern       string `tptp:"genericPattern"`
	Mode                 string `tptp:"mode"`
	MethodPattern        string `tptp:"methodPattern"`
	MethodGenericPattern string `tptp:"methodGenericPattern"`
	MethodMode           string `tptp:"methodMode"`
}

// Option is one agent option; keys may repeat.
type Option struct {
	TraceIDRef string `tptp:"traceIdRef"`
	Key        string `tptp:"key"`
	Value      string `tptp:"value"`
}

// ThreadStart says a thread started (or was already running when tracing began).
type ThreadStart struct {
	TransientThreadID int64  `tptp:"transientThreadId"`
	ThreadID          int64  `tptp:"threadId"`
	Time              Ticks  `tptp:"time"`
	GroupName         string `tptp:"groupName"`
	ParentName        string `tptp:"parentName"`
	TransientObjIDRef int64  `tptp:"transientObjIdRef"`
	ObjIDRef          int64  `tptp:"objIdRef"`
	ThreadName        string `tptp:"threadName"`
	CollationValue    string `tptp:"collationValue"`
	TraceIDRef        string `tptp:"traceIdRef"`
}

// ThreadMoment is the shape shared by the events that only say "this
// happened on this thread at this time".
type ThreadMoment struct {
	TransientThreadIDRef int64  `tptp:"transientThreadIdRef"`
	ThreadIDRef          int64  `tptp:"threadIdRef"`
	Time                 Ticks  `tptp:"time"`
	CollationValue       string `tptp:"collationValue"`
	TraceIDRef           string `tptp:"traceIdRef"`
}

// ThreadEnd says a thread ended.
type ThreadEnd struct{ ThreadMoment }

// GCStart says a garbage collection began.
type GCStart struct{ ThreadMoment }

// RuntimeInitDone says the runtime finished initialising.
type RuntimeInitDone struct{ ThreadMoment }

// RuntimeShutdown says the runtime is shutting down.
type RuntimeShutdown struct{ ThreadMoment }

// ClassDef defines a class id.
type ClassDef struct {
	TransientThreadIDRef int64  `tptp:"transientThreadIdRef"`
	ThreadIDRef          int64  `tptp:"threadIdRef"`
	Time                 Ticks  `tptp:"time"`
	NumInterfaces        int32  `tptp:"numInterfaces"`
	InterfaceNames       string `tptp:"interfaceNames"`
	TransientClassID     int64  `tptp:"transientClassId"`
	ClassID              int64  `tptp:"classId"`
	SourceName           string `tptp:"sourceName"`
	ClassLoader          string `tptp:"classLoader"`
	Superclass           string `tptp:"superclass"`
	TransientObjIDRef    int64  `tptp:"transientObjIdRef"`
	ObjIDRef             int64  `tptp:"objIdRef"`
	Name                 string `tptp:"name"`
	Access               string `tptp:"access"`
	NumStaticFields      int32  `tptp:"numStaticFields"`
	NumMethods           int32  `tptp:"numMethods"`
	NumInstanceFields    int32  `tptp:"numInstanceFields"`
	CollationValue       string `tptp:"collationValue"`
	TraceIDRef           string `tptp:"traceIdRef"`
}

// MethodDef defines a method id within a class.
type MethodDef struct {
	Name                string `tptp:"name"`
	Signature           string `tptp:"signature"`
	IsNative            byte   `tptp:"isNative"`
	IsAbstract          byte   `tptp:"isAbstract"`
	IsStatic            byte   `tptp:"isStatic"`
	IsSynchronized      byte   `tptp:"isSynchronized"`
	Exceptions          string `tptp:"exceptions"`
	StartLineNumber     int64  `tptp:"startLineNumber"`
	EndLineNumber       int64  `tptp:"endLineNumber"`
	SignatureNotation   string `tptp:"signatureNotation"`
	TransientClassIDRef int64  `tptp:"transientClassIdRef"`
	ClassIDRef          int64  `tptp:"classIdRef"`
	MethodID            int64  `tptp:"methodId"`
	CollationValue      string `tptp:"collationValue"`
	TraceIDRef          string `tptp:"traceIdRef"`
}

// ObjAlloc says an object was allocated.
type ObjAlloc struct {
	TransientThreadIDRef int64  `tptp:"transientThreadIdRef"`
	ThreadIDRef          int64  `tptp:"threadIdRef"`
	Time                 Ticks  `tptp:"time"`
	IsArray              byte   `tptp:"isArray"`
	TransientObjID       int64  `tptp:"transientObjId"`
	ObjID                int64  `tptp:"objId"`
	Size                 int64  `tptp:"size"`
	LineNo               int64  `tptp:"lineNo"`
	MethodIDRef          int64  `tptp:"methodIdRef"`
	TransientClassIDRef  int64  `tptp:"transientClassIdRef"`
	ClassIDRef           int64  `tptp:"classIdRef"`
	ContextData          string `tptp:"contextData"`
	CollationValue       string `tptp:"collationValue"`
	TraceIDRef           string `tptp:"traceIdRef"`
}

// MethodEntry says a thread entered a method; Ticket pairs it with its exit.
type MethodEntry struct {
	TransientThreadIDRef int64  `tptp:"transientThreadIdRef"`
	ThreadIDRef          int64  `tptp:"threadIdRef"`
	Time                 Ticks  `tptp:"time"`
	MethodIDRef          int64  `tptp:"methodIdRef"`
	Ticket               int32  `tptp:"ticket"`
	TransientObjIDRef    int64  `tptp:"transientObjIdRef"`
	ClassIDRef           int64  `tptp:"classIdRef"`
	ThreadCPUTime        Ticks  `tptp:"threadCpuTime"`
	SequenceCounter      int64  `tptp:"sequenceCounter"`
	StackDepth           int64  `tptp:"stackDepth"`
	CollationValue       string `tptp:"collationValue"`
	TraceIDRef           string `tptp:"traceIdRef"`
}

// MethodExit says a thread left a method; Ticket pairs it with its entry.
type MethodExit struct {
	TransientThreadIDRef int64 `tptp:"transientThreadIdRef"`
	ThreadIDRef          int64 `tptp:"threadIdRef"`
	Time                 Ticks `tptp:"time"`
	Ticket               int32 `tptp:"ticket"`
	ThreadCPUTime        Ticks `tptp:"threadCpuTime"`
	MethodIDRef          int64 `tptp:"methodIdRef"`
	TransientObjIDRef    int64 `tptp:"transientObjIdRef"`
	ObjIDRef             int64 `tptp:"objIdRef"`
	TransientClassIDRef  int64 `tptp:"transientClassIdRef"`
	ClassIDRef           int64 `tptp:"classIdRef"`
	// SequenceCounter is a string on the wire: the original proposal types it so.
	SequenceCounter string `tptp:"sequenceCounter"`
	CollationValue  string `tptp:"collationValue"`
	TraceIDRef      string `tptp:"traceIdRef"`
}

// ObjFree says an object was reclaimed.
type ObjFree struct {
	TransientThreadIDRef int64  `tptp:"transientThreadIdRef"`
	ThreadIDRef          int64  `tptp:"threadIdRef"`
	Time                 Ticks  `tptp:"time"`
	TransientObjIDRef    int64  `tptp:"transientObjIdRef"`
	ObjIDRef             int64  `tptp:"objIdRef"`
	ObjAge               int64  `tptp:"objAge"`
	SequenceCounter      int64  `tptp:"sequenceCounter"`
	StackDepth           int64  `tptp:"stackDepth"`
	CollationValue       string `tptp:"collationValue"`
	TraceIDRef           string `tptp:"traceIdRef"`
}

// GCFinish says a garbage collection ended, with the heap after it.
type GCFinish struct {
	TransientThreadIDRef int64  `tptp:"transientThreadIdRef"`
	ThreadIDRef          int64  `tptp:"threadIdRef"`
	Time                 Ticks  `tptp:"time"`
	TotalObjSpace        int64  `tptp:"totalObjSpace"`
	UsedObjSpace         int64  `tptp:"usedObjSpace"`
	UsedObjects          int64  `tptp:"usedObjects"`
	CollationValue       string `tptp:"collationValue"`
	TraceIDRef           string `tptp:"traceIdRef"`
}

// MonitorWait is the shape of monWait and monWaited: a thread waits (or
// stopped waiting) on a monitor, with a timeout in milliseconds (0: none).
type MonitorWait struct {
	ThreadIDRef int64 `tptp:"threadIdRef"`
	Time        Ticks `tptp:"time"`
	ObjIDRef    int64 `tptp:"objIdRef"`
	Timeout     int64 `tptp:"timeout"`
	Stack       Stack `tptp:"stack"`
}

// MonWait says a thread started waiting on a monitor (Object.wait).
type MonWait struct{ MonitorWait }

// MonWaited says a thread stopped waiting on a monitor.
type MonWaited struct{ MonitorWait }

// MonContendedEnter says a thread blocked entering a monitor owned by ThreadOwner.
type MonContendedEnter struct {
	ThreadIDRef int64 `tptp:"threadIdRef"`
	Time        Ticks `tptp:"time"`
	ObjIDRef    int64 `tptp:"objIdRef"`
	ThreadOwner int64 `tptp:"threadOwner"`
	Stack       Stack `tptp:"stack"`
}

// MonContendedEntered says a blocked thread acquired the monitor.
type MonContendedEntered struct {
	ThreadIDRef int64 `tptp:"threadIdRef"`
	Time        Ticks `tptp:"time"`
	ObjIDRef    int64 `tptp:"objIdRef"`
	Stack       Stack `tptp:"stack"`
}

// AgMethodEntry aggregates one (thread, method) since the last report: self
// time, min and max per call, CPU time, calls. -1 means "not measured".
type AgMethodEntry struct {
	ThreadIDRef int64 `tptp:"threadIdRef"`
	MethodIDRef int64 `tptp:"methodIdRef"`
	BaseTime    Ticks `tptp:"baseTime"`
	MinTime     Ticks `tptp:"minTime"`
	MaxTime     Ticks `tptp:"maxTime"`
	BaseCPUTime Ticks `tptp:"baseCPUTime"`
	NumCalls    int64 `tptp:"numCalls"`
}

// AgMethodExit closes an aggregated method report.
type AgMethodExit struct {
	ThreadIDRef int64 `tptp:"threadIdRef"`
	MethodIDRef int64 `tptp:"methodIdRef"`
}

// HeapDumpDef defines a heap dump.
type HeapDumpDef struct {
	HeapDumpID int64  `tptp:"heapDumpId"`
	Time       Ticks  `tptp:"time"`
	Name       string `tptp:"name"`
	Basetime   Ticks  `tptp:"basetime"`
}

// GCRoot names a garbage-collection root of a heap dump.
type GCRoot struct {
	ClassIDRef int64  `tptp:"classIdRef"`
	ObjIDRef   int64  `tptp:"objIdRef"`
	Type       string `tptp:"type"`
}

// ObjReference is one reference between two objects of a heap dump.
type ObjReference struct {
	OwnerObjIDRef  int64 `tptp:"ownerObjIdRef"`
	TargetObjIDRef int64 `tptp:"targetObjIdRef"`
	HeapDumpIDRef  int64 `tptp:"heapDumpIdRef"`
}

// Custom carries a free-form body.
type Custom struct {
	Body string `tptp:"body"`
}

func (*Unknown) Kind() Kind             { return KindUnknown }
func (*Encoding) Kind() Kind            { return KindEncoding }
func (*Frequency) Kind() Kind           { return KindFrequency }
func (*Node) Kind() Kind                { return KindNode }
func (*ProcessCreate) Kind() Kind       { return KindProcessCreate }
func (*AgentCreate) Kind() Kind         { return KindAgentCreate }
func (*AgentDestroy) Kind() Kind        { return KindAgentDestroy }
func (*TraceStart) Kind() Kind          { return KindTraceStart }
func (*TraceEnd) Kind() Kind            { return KindTraceEnd }
func (*Filter) Kind() Kind              { return KindFilter }
func (*Option) Kind() Kind              { return KindOption }
func (*ThreadStart) Kind() Kind         { return KindThreadStart }
func (*ThreadEnd) Kind() Kind           { return KindThreadEnd }
func (*ClassDef) Kind() Kind            { return KindClassDef }
func (*MethodDef) Kind() Kind           { return KindMethodDef }
func (*ObjAlloc) Kind() Kind            { return KindObjAlloc }
func (*MethodEntry) Kind() Kind         { return KindMethodEntry }
func (*MethodExit) Kind() Kind          { return KindMethodExit }
func (*GCStart) Kind() Kind             { return KindGCStart }
func (*ObjFree) Kind() Kind             { return KindObjFree }
func (*GCFinish) Kind() Kind            { return KindGCFinish }
func (*RuntimeInitDone) Kind() Kind     { return KindRuntimeInitDone }
func (*RuntimeShutdown) Kind() Kind     { return KindRuntimeShutdown }
func (*MonWait) Kind() Kind             { return KindMonWait }
func (*MonWaited) Kind() Kind           { return KindMonWaited }
func (*MonContendedEnter) Kind() Kind   { return KindMonContendedEnter }
func (*MonContendedEntered) Kind() Kind { return KindMonContendedEntered }
func (*AgMethodEntry) Kind() Kind       { return KindAgMethodEntry }
func (*AgMethodExit) Kind() Kind        { return KindAgMethodExit }
func (*HeapDumpDef) Kind() Kind         { return KindHeapDumpDef }
func (*GCRoot) Kind() Kind              { return KindGCRoot }
func (*ObjReference) Kind() Kind        { return KindObjReference }
func (*Custom) Kind() Kind              { return KindCustom }
