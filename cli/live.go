package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sort"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/proftop/proftop/client"
	"github.com/proftop/proftop/decode"
)

// defaultRefresh is the default time between two snapshots.
const defaultRefresh = time.Second

// LiveOptions are the root command's settings for watching a profiler.
type LiveOptions struct {
	Session  client.Config
	Batch    bool
	Count    int
	JSON     bool
	Interval time.Duration
}

// RunLive connects to a profiler and shows what it sends.
func RunLive(ctx context.Context, opts LiveOptions, stdout, stderr io.Writer) error {
	if !opts.Batch {
		return fmt.Errorf("the interactive view needs --batch for now")
	}
	src := client.NewSession(opts.Session)
	return runBatch(ctx, src, opts, stdout)
}

// Interruptible returns a context that ends on SIGINT or SIGTERM.
func Interruptible() (context.Context, context.CancelFunc) {
	return signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
}

// kindCounter counts events per kind, for the batch summary.
type kindCounter struct {
	mu     sync.Mutex
	counts map[string]int64
}

func (k *kindCounter) take() map[string]int64 {
	k.mu.Lock()
	defer k.mu.Unlock()
	c := k.counts
	k.counts = map[string]int64{}
	return c
}

// runBatch prints a summary every interval, Count times (0: until stopped).
func runBatch(ctx context.Context, src client.Source, opts LiveOptions, out io.Writer) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	counter := &kindCounter{counts: map[string]int64{}}
	drained := make(chan struct{})
	go func() {
		defer close(drained)
		for b := range src.Batches() {
			counter.mu.Lock()
			for _, ev := range b.Events() {
				counter.counts[ev.Kind().String()]++
			}
			counter.mu.Unlock()
			src.Recycle(b)
		}
	}()
	runErr := make(chan error, 1)
	go func() { runErr <- src.Run(ctx) }()
	tick := time.NewTicker(opts.Interval)
	defer tick.Stop()
	for printed := 0; opts.Count == 0 || printed < opts.Count; printed++ {
		select {
		case <-tick.C:
		case err := <-runErr:
			<-drained
			printSummary(out, src.Status(), counter.take(), opts.JSON)
			return err
		case <-ctx.Done():
			return nil
		}
		st := src.Status()
		if st.State == client.StateChoosingAgent {
			return fmt.Errorf("%s", st.Cause)
		}
		printSummary(out, st, counter.take(), opts.JSON)
	}
	cancel()
	<-drained
	return nil
}

type summary struct {
	Time         time.Time        `json:"time"`
	Source       string           `json:"source"`
	State        string           `json:"state"`
	Cause        string           `json:"cause,omitempty"`
	Agent        any              `json:"agent,omitempty"`
	Format       string           `json:"format"`
	Negotiation  string           `json:"negotiation"`
	Mismatch     string           `json:"mismatch,omitempty"`
	Events       int64            `json:"events"`
	EventsPerSec float64          `json:"eventsPerSec"`
	BytesPerSec  float64          `json:"bytesPerSec"`
	DecodeErrors int64            `json:"decodeErrors"`
	Recording    string           `json:"recording,omitempty"`
	Interval     map[string]int64 `json:"eventsThisInterval"`
}

func printSummary(out io.Writer, st client.Status, counts map[string]int64, asJSON bool) {
	s := summary{Time: time.Now().UTC(), Source: st.Source, State: st.State.String(), Cause: st.Cause, Format: formatName(st.Format),
		Negotiation: st.Negotiation.String(), Mismatch: st.Mismatch, Events: st.Events, EventsPerSec: st.EventsPerSec,
		BytesPerSec: st.BytesPerSec, DecodeErrors: st.DecodeErrors, Recording: st.Recording, Interval: counts}
	if st.Agent.ID != "" {
		s.Agent = st.Agent
	}
	if asJSON {
		b, _ := json.Marshal(s)
		fmt.Fprintf(out, "%s\n", b)
		return
	}
	fmt.Fprintf(out, "%s  %s  %s", s.Time.Format("15:04:05"), st.Source, s.State)
	if st.Agent.ID != "" {
		fmt.Fprintf(out, "  agent %s", st.Agent)
	}
	fmt.Fprintf(out, "  %s (%s)  %d events, %.0f/s, %.1f MB/s, %d decode errors\n", s.Format, s.Negotiation, st.Events, st.EventsPerSec, st.BytesPerSec/1e6, st.DecodeErrors)
	if st.Cause != "" {
		fmt.Fprintf(out, "  %s\n", st.Cause)
	}
	kinds := make([]string, 0, len(counts))
	for k := range counts {
		kinds = append(kinds, k)
	}
	sort.Strings(kinds)
	var parts []string
	for _, k := range kinds {
		parts = append(parts, fmt.Sprintf("%s %d", k, counts[k]))
	}
	if len(parts) > 0 {
		fmt.Fprintf(out, "  %s\n", strings.Join(parts, ", "))
	}
}

func formatName(f decode.Format) string {
	if f == 0 {
		return ""
	}
	return f.String()
}
