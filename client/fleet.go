package client

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/proftop/proftop/protocol"
)

// Target is one JVM of a fleet: the address of its agent controller and,
// when the controller offers several agents, which one.
type Target struct {
	Host  string
	Port  int
	Agent string // id, pid or name; "" when the controller has one agent
}

// Address is host:port.
func (t Target) Address() string { return net.JoinHostPort(t.Host, strconv.Itoa(t.Port)) }

// Label names the target as the fleet overview shows it: the host alone
// on the default port, else host:port, then /agent when one is named.
func (t Target) Label(defaultPort int) string {
	s := t.Host
	if t.Port != defaultPort {
		s = t.Address()
	} else if strings.Contains(s, ":") {
		s = "[" + s + "]"
	}
	if t.Agent != "" {
		s += "/" + t.Agent
	}
	return s
}

// ParseTarget reads one entry of a host list: host, host:port, [v6]:port
// or a bare IPv6 address, each optionally followed by /agent.
func ParseTarget(entry string, defaultPort int) (Target, error) {
	s := strings.TrimSpace(entry)
	var t Target
	if i := strings.IndexByte(s, '/'); i >= 0 {
		s, t.Agent = s[:i], strings.TrimSpace(s[i+1:])
		if t.Agent == "" {
			return Target{}, fmt.Errorf("%q: nothing after / (give an agent's id, pid or name, or leave out the /)", entry)
		}
	}
	if s == "" {
		return Target{}, fmt.Errorf("%q: no host", entry)
	}
	t.Host, t.Port = s, defaultPort
	switch {
	case strings.HasPrefix(s, "["):
		host, port, err := net.SplitHostPort(s)
		if err != nil {
			if !strings.HasSuffix(s, "]") {
				return Target{}, fmt.Errorf("%q: %v", entry, err)
			}
			host, port = s[1:len(s)-1], ""
		}
		t.Host = host
		if port != "" {
			p, err := parsePort(port)
			if err != nil {
				return Target{}, fmt.Errorf("%q: %v", entry, err)
			}
			t.Port = p
		}
	case strings.Count(s, ":") == 1:
		host, port, _ := strings.Cut(s, ":")
		p, err := parsePort(port)
		if err != nil {
			return Target{}, fmt.Errorf("%q: %v", entry, err)
		}
		t.Host, t.Port = host, p
	}
	// More than one colon and no brackets: an IPv6 address on the default port.
	if t.Host == "" {
		return Target{}, fmt.Errorf("%q: no host", entry)
	}
	if strings.ContainsAny(t.Host, " \t\r\n,") {
		return Target{}, fmt.Errorf("%q: a host name has no spaces or commas", entry)
	}
	// A host is a name (letters, digits, '-', '.', and '_' that some
	// networks allow) or an address (an IPv6 one has ':' and a zone after
	// '%'): anything else is a typo that would be retried for ever as a
	// name that does not resolve.
	name, _, _ := strings.Cut(t.Host, "%") // an IPv6 zone is an interface's name: any characters
	if i := strings.IndexFunc(name, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-._:%", r))
	}); i >= 0 {
		r, _ := utf8.DecodeRuneInString(name[i:])
		hint := ""
		switch {
		case r == ';':
			hint = " (a ':' before the port?)"
		case r >= utf8.RuneSelf:
			hint = " (a name in another script is written in its xn-- form)"
		}
		return Target{}, fmt.Errorf("%q: %q cannot be in a host name or address%s", entry, r, hint)
	}
	return t, nil
}

func parsePort(s string) (int, error) {
	p, err := strconv.Atoi(s)
	if err != nil || p < 1 || p > 65535 {
		return 0, fmt.Errorf("port %q is not a number from 1 to 65535", s)
	}
	return p, nil
}

// Fleet watches many profilers at once: one Session per target, each with
// its own connection, reconnection and backoff, batches and status, so
// that one JVM that is slow, refuses or drops leaves the others alone.
type Fleet struct {
	targets []Target
	labels  []string
	members []*Session
}

// ForFleet lowers what each connection holds, where base leaves it at the
// default, to what one JVM among many gets: a 64 KiB read buffer and
// batches of 1,024 events (about 1 MiB per connection in all, rather than
// 4). One JVM's stream does not need more to keep up: a batch still
// leaves as soon as the decoder would wait.
func (c Config) ForFleet() Config {
	if c.ReadBuffer <= 0 {
		c.ReadBuffer = 64 << 10
	}
	if c.BatchEvents <= 0 {
		c.BatchEvents = 1024
	}
	return c
}

// NewFleet returns a fleet of sessions configured as base.ForFleet(),
// each pointed at its target (a target's agent wins over base's). Call Run.
func NewFleet(base Config, targets []Target) *Fleet {
	f := &Fleet{targets: targets}
	base = base.ForFleet()
	defaultPort := base.Port
	if defaultPort == 0 {
		defaultPort = protocol.DefaultPort
	}
	for _, t := range targets {
		cfg := base
		cfg.Host, cfg.Port = t.Host, t.Port
		if t.Agent != "" {
			cfg.Agent = t.Agent
		}
		f.members = append(f.members, NewSession(cfg))
		f.labels = append(f.labels, t.Label(defaultPort))
	}
	return f
}

// Len is the number of JVMs.
func (f *Fleet) Len() int { return len(f.members) }

// Member is the source of the i-th JVM, in the order given.
func (f *Fleet) Member(i int) Source { return f.members[i] }

// Label names the i-th JVM (Target.Label).
func (f *Fleet) Label(i int) string { return f.labels[i] }

// Statuses describes every JVM's source now, into out's storage.
func (f *Fleet) Statuses(out []Status) []Status {
	out = out[:0]
	for _, m := range f.members {
		out = append(out, m.Status())
	}
	return out
}

// Run runs every session until ctx ends. Without reconnecting, it also
// returns once every session has given up, with their reasons.
func (f *Fleet) Run(ctx context.Context) error {
	errs := make([]error, len(f.members))
	var wg sync.WaitGroup
	for i, m := range f.members {
		wg.Go(func() {
			if err := m.Run(ctx); err != nil {
				errs[i] = fmt.Errorf("%s: %w", f.labels[i], err)
			}
		})
	}
	wg.Wait()
	if ctx.Err() != nil {
		return nil
	}
	return errors.Join(errs...)
}
