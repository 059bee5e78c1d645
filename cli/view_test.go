package cli

import (
	"context"
	"strings"
	"testing"

	"github.com/proftop/proftop/client"
	"github.com/proftop/proftop/config"
)

// The batch output's options are refused without --batch, saying so,
// for one JVM and for a fleet: taken silently, the interface ran and the
// JSON or the count asked for never came.
func TestBatchOptionsWithoutBatchAreRefused(t *testing.T) {
	for _, tc := range []struct {
		name string
		v    View
		want string // "" accepted
		// fleet is what a fleet says, when not want
		fleet string
	}{
		{"json", View{JSON: true}, "--json prints the snapshots as JSON: use it with --batch", ""},
		{"iterations", View{Count: 3}, "-n (--iterations) counts the snapshots --batch prints", ""},
		{"top", View{Top: 5}, "--top is the rows per table --batch prints", ""},
		{"bundle", View{Bundle: "b.tar.gz"}, "--bundle writes a bundle when a --batch run ends", "--bundle is of one JVM"},
		{"history", View{History: true, Batch: true}, "--history prints the history as JSON lines", "--history is of one JVM"},
		{"batch json", View{Batch: true, JSON: true, Count: 2, Top: 5}, "", ""},
		{"interface", View{}, "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.v.check()
			if tc.want == "" {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got %v, want %q", err, tc.want)
			}
			targets := []client.Target{{Host: "127.0.0.1", Port: 1}, {Host: "127.0.0.1", Port: 2}}
			want := tc.want
			if tc.fleet != "" {
				want = tc.fleet
			}
			if err := WatchFleet(context.Background(), targets, config.Settings{}, tc.v, nil); err == nil || !strings.Contains(err.Error(), want) {
				t.Fatalf("the fleet: got %v, want %q", err, want)
			}
		})
	}
	targets := []client.Target{{Host: "127.0.0.1", Port: 1}, {Host: "127.0.0.1", Port: 2}}
	v := View{Batch: true, JSON: true, History: true}
	if err := WatchFleet(context.Background(), targets, config.Settings{}, v, nil); err == nil || err.Error() != "--history is of one JVM: it cannot be used with several hosts: watch that one JVM for it" {
		t.Fatalf("a fleet's bundle: %v", err)
	}
}
