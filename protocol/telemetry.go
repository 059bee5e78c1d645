package protocol

import "encoding/xml"

// The application's own counters, chosen by the user: the client names
// them after attaching, before startMonitoring; the agent answers for each
// whether it takes it. A spec it takes may still fail while monitoring
// (an MBean that went away): the trace's telemetryProblem messages say so.
type (
	// ChooseTelemetry replaces the agent's choice of the application's
	// series and probes (docs/protocol.md).
	ChooseTelemetry struct {
		XMLName xml.Name   `xml:"chooseTelemetry"`
		Series  []SpecItem `xml:"series"`
		Probes  []SpecItem `xml:"probe"`
	}
	// TelemetryChosen answers ChooseTelemetry: every spec, in the order
	// asked, with Error set when the agent cannot take it.
	TelemetryChosen struct {
		XMLName xml.Name   `xml:"telemetryChosen"`
		Series  []SpecItem `xml:"series"`
		Probes  []SpecItem `xml:"probe"`
	}
)

// SpecItem is one spec of a ChooseTelemetry or its answer: in the answer,
// Error is the reason a spec was refused ("" when it was taken).
type SpecItem struct {
	Spec  string `xml:"spec,attr"`
	Error string `xml:",chardata"`
}

// Limits on a ChooseTelemetry an agent is asked to take.
const (
	MaxTelemetrySpecs = 64  // series and probes together
	MaxSpecLength     = 512 // bytes of one spec
)
