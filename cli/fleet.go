package cli

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/charmbracelet/x/term"

	"github.com/proftop/proftop/client"
	"github.com/proftop/proftop/config"
	"github.com/proftop/proftop/protocol"
	"github.com/proftop/proftop/state"
	"github.com/proftop/proftop/tui"
)

// Targets resolves the JVMs to watch: the entries of --host (comma-
// separated, or a list in the config file), then the lines of --hosts
// FILE. An entry listed twice is an error naming both places.
func Targets(s config.Settings) ([]client.Target, error) {
	port := s.Port
	if port == 0 {
		port = protocol.DefaultPort
	}
	var out []client.Target
	seen := map[client.Target]string{}
	add := func(entry, where string) error {
		t, err := client.ParseTarget(entry, port)
		if err != nil {
			return fmt.Errorf("%s: %w", where, err)
		}
		if first, dup := seen[t]; dup {
			return fmt.Errorf("%s: %s is already listed (%s)", where, t.Label(port), first)
		}
		seen[t] = where
		out = append(out, t)
		return nil
	}
	for i, entry := range splitHosts(s.Host) {
		if err := add(entry, fmt.Sprintf("host entry %d", i+1)); err != nil {
			return nil, err
		}
	}
	if s.Hosts != "" {
		f, err := os.Open(s.Hosts)
		if err != nil {
			return nil, fmt.Errorf("the hosts file: %w", err)
		}
		defer f.Close()
		sc := bufio.NewScanner(f)
		for n := 1; sc.Scan(); n++ {
			line, _, _ := strings.Cut(sc.Text(), "#")
			for _, entry := range splitHosts(line) {
				if err := add(entry, fmt.Sprintf("%s line %d", s.Hosts, n)); err != nil {
					return nil, err
				}
			}
		}
		if err := sc.Err(); err != nil {
			return nil, fmt.Errorf("the hosts file %s: %w", s.Hosts, err)
		}
	}
	return out, nil
}

// splitHosts splits a list of hosts at commas and spaces.
func splitHosts(list string) []string {
	return strings.FieldsFunc(list, func(r rune) bool { return r == ',' || r == ' ' || r == '\t' })
}

// WatchFleet watches several JVMs at once: the overview, or batch snapshots.
func WatchFleet(ctx context.Context, targets []client.Target, s config.Settings, v View, out io.Writer) error {
	switch {
	case v.History:
		return errors.New("--history is of one JVM: it cannot be used with several hosts: watch that one JVM for it")
	case v.Bundle != "":
		return errors.New("--bundle is of one JVM: it cannot be used with several hosts: watch that one JVM for it")
	}
	if err := v.check(); err != nil {
		return err
	}
	if s.Record != "" {
		return errors.New("--record writes one JVM's stream: it cannot be used with several hosts (record each with its own proftop)")
	}
	limitMemory(s.MemoryLimit)
	base := SessionConfig(s)
	fleet := client.NewFleet(base, targets)
	aggs := state.NewFleet(fleet.Len(), state.Options{Window: s.Window}.ForFleet())
	if !v.Batch {
		if !term.IsTerminal(os.Stdout.Fd()) {
			return errors.New("standard output is not a terminal: use --batch for text snapshots (or --batch --json)")
		}
		cfg := tui.Config{Refresh: s.Refresh, Theme: s.Theme, ASCII: ascii(s.Charset), Recent: true}
		return tui.RunFleet(ctx, cfg, tui.ColorMode(s.Color), fleet, aggs)
	}
	return runFleetBatch(ctx, fleet, aggs, s, v, out)
}

// runFleetBatch prints the fleet every refresh interval, Count times: the
// overview as text, or a JSON document per JVM.
func runFleetBatch(ctx context.Context, fleet *client.Fleet, aggs *state.Fleet, s config.Settings, v View, out io.Writer) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	fed := make(chan struct{})
	go func() {
		aggs.Feed(fleet.Member)
		close(fed)
	}()
	ran := make(chan error, 1)
	go func() { ran <- fleet.Run(ctx) }()
	var statuses []client.Status
	print := func() error {
		snap := aggs.Snapshot(time.Now())
		statuses = fleet.Statuses(statuses)
		if ctx.Err() != nil {
			// Interrupted while the picture was being taken: the sessions
			// are stopping, and their states would say so rather than
			// what the JVMs were doing.
			return nil
		}
		if v.JSON {
			b, err := tui.RenderFleetJSON(fleet, snap, statuses)
			if err != nil {
				return err
			}
			_, err = out.Write(b)
			return err
		}
		_, err := fmt.Fprintf(out, "%s\n", tui.RenderFleetText(fleet, snap, statuses, batchWidth(), v.Top, ascii(s.Charset)))
		return err
	}
	tick := time.NewTicker(s.Refresh)
	defer tick.Stop()
	for printed := 0; v.Count == 0 || printed < v.Count; printed++ {
		select {
		case err := <-ran:
			// Every JVM gave up (--reconnect=false): the last picture, and why.
			<-fed
			if perr := print(); perr != nil {
				return perr
			}
			return err
		case <-ctx.Done():
			return nil
		case <-tick.C:
		}
		if err := print(); err != nil {
			return err
		}
	}
	statuses = fleet.Statuses(statuses)
	for _, st := range statuses {
		if !neverStreamed(st) {
			return nil
		}
	}
	return fmt.Errorf("gave up after %s without ever receiving data from any of the %s", counted(v.Count, "snapshot"), counted(len(statuses), "JVM"))
}
