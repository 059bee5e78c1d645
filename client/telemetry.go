package client

import (
	"errors"
	"fmt"

	"github.com/proftop/proftop/decode"
	"github.com/proftop/proftop/protocol"
)

// chooseTelemetry asks the agent for the application's own series and
// probes the user named, after negotiation and before monitoring starts.
// Every spec the agent refuses, or cannot take at all (a profiler that
// does not know the command), comes back as a telemetryProblem event, so
// that the picture says why, as it does for the problems the agent finds
// while monitoring.
func (s *Session) chooseTelemetry(c *control) ([]decode.Event, error) {
	if len(s.cfg.Telemetry) == 0 && len(s.cfg.Probes) == 0 {
		return nil, nil
	}
	// What no agent takes is refused here: a spec too long, more specs
	// than the protocol allows.
	var out []decode.Event
	cmd := &protocol.ChooseTelemetry{}
	var sent []string
	seen := map[string]bool{}
	take := func(spec string, to *[]protocol.SpecItem) {
		switch {
		case seen[spec]:
			return
		case len(spec) > protocol.MaxSpecLength:
			out = append(out, &decode.TelemetryProblem{Spec: spec, Problem: fmt.Sprintf("%d bytes, longer than the %d a spec may have", len(spec), protocol.MaxSpecLength)})
		case len(sent) == protocol.MaxTelemetrySpecs:
			out = append(out, &decode.TelemetryProblem{Spec: spec, Problem: fmt.Sprintf("not asked for: at most %d series and probes together", protocol.MaxTelemetrySpecs)})
		default:
			*to = append(*to, protocol.SpecItem{Spec: spec})
			sent = append(sent, spec)
		}
		seen[spec] = true
	}
	for _, spec := range s.cfg.Telemetry {
		take(spec, &cmd.Series)
	}
	for _, spec := range s.cfg.Probes {
		take(spec, &cmd.Probes)
	}
	if len(sent) == 0 {
		return out, nil
	}
	everySpec := func(why string) []decode.Event {
		for _, spec := range sent {
			out = append(out, &decode.TelemetryProblem{Spec: spec, Problem: why})
		}
		return out
	}
	m, err := c.call(cmd, s.cfg.NegotiationTimeout)
	switch {
	case errors.Is(err, errNoReply):
		return everySpec(fmt.Sprintf("the profiler did not answer chooseTelemetry within %v", s.cfg.NegotiationTimeout)), nil
	case err != nil:
		return nil, fmt.Errorf("chooseTelemetry: %w", err)
	}
	if e := m.AsError(); e != nil {
		if e.Code == protocol.CodeUnrecognizedCommand {
			return everySpec("this profiler does not read the application's own counters (it does not know chooseTelemetry)"), nil
		}
		return everySpec("the profiler refused chooseTelemetry: " + e.Error()), nil
	}
	var chosen protocol.TelemetryChosen
	if err := m.Decode(&chosen); err != nil {
		return nil, fmt.Errorf("chooseTelemetry: %w", err)
	}
	for _, it := range append(chosen.Series, chosen.Probes...) {
		if it.Error != "" {
			out = append(out, &decode.TelemetryProblem{Spec: it.Spec, Problem: it.Error})
		}
	}
	return out, nil
}
