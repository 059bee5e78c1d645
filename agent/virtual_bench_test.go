package agent

import (
	"bufio"
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"
	"time"

	"github.com/proftop/proftop/client"
	"github.com/proftop/proftop/state"
)

// BenchmarkVirtualListing100k measures what listing virtual threads costs
// with 100,000 of them parked (besides the workload's own 2,600): the CPU
// time of one listing (the JDK's JSON thread dump and the agent's reading
// of it), the period the agent then lists them at, the application's
// safepoints meanwhile (-Xlog:safepoint: the dump pauses no thread but the
// one it looks at), and the collections the listing's garbage causes. Each
// iteration waits for the next listing (a minute or so apart). On the
// newest JDK present (24 or later); docs/performance.md has the figures.
// About 3 minutes:
//
//	go test ./agent -run '^$' -bench VirtualListing100k -benchtime 1x -timeout 60m
func BenchmarkVirtualListing100k(b *testing.B) {
	j, ok := newestJDK(b, 24)
	if !ok {
		b.Skip("no JDK 24 or later here")
	}
	log := filepath.Join(b.TempDir(), "safepoints.log")
	vm, port := virtualWorkload(b, j, 3600, []string{"-Xlog:safepoint=info:file=" + log}, "many", "100000")
	s := client.NewSession(client.Config{Host: "127.0.0.1", Port: port})
	agg := state.New(state.Options{})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go agg.Feed(s)
	go s.Run(ctx)
	listing := func(after time.Time, within time.Duration) *state.Snapshot {
		deadline := time.Now().Add(within)
		for time.Now().Before(deadline) {
			snap := agg.Snapshot(time.Now(), state.Query{CallersOf: -1})
			if v := snap.Virtual; v != nil && v.ListedAt.After(after) && v.Count > 0 {
				return snap
			}
			time.Sleep(500 * time.Millisecond)
		}
		b.Fatalf("no listing within %v\n%s", within, vm.stderr)
		return nil
	}
	first := listing(time.Time{}, 10*time.Minute)
	b.Logf("first listing: %d virtual threads, %v of CPU (JIT and class loading included), next in %v",
		first.Virtual.Count, first.Virtual.ListingCost, first.Virtual.ListingPeriod)
	last := first
	start := time.Now()
	b.ResetTimer()
	var cost, period time.Duration
	listings := 0
	for range b.N {
		last = listing(last.Virtual.ListedAt, 15*time.Minute)
		listings++
		cost += last.Virtual.ListingCost
		period += last.Virtual.ListingPeriod
		b.Logf("listing: %d virtual threads (%d one by one, %d rows), %v of CPU, next in %v; note: %v", last.Virtual.Count,
			last.Virtual.Listed, len(last.VirtualGroups), last.Virtual.ListingCost, last.Virtual.ListingPeriod, last.Notes)
	}
	b.StopTimer()
	elapsed := time.Since(start)
	cancel()
	vm.stdin.Close()
	sp := safepointStats(b, log)
	b.Logf("safepoints over the whole run (%v measured): %d of the collector, longest %v at the safepoint; %d others, longest %v at the "+
		"safepoint (%v), %v to reach it", elapsed.Round(time.Second), sp.gcs, sp.longestGC, sp.others, sp.longestOther, sp.otherNames, sp.longestReach)
	b.ReportMetric(float64(cost.Milliseconds())/float64(listings), "cpu-ms/listing")
	b.ReportMetric(period.Seconds()/float64(listings), "s-between-listings")
	b.ReportMetric(float64(last.Virtual.Count), "virtual-threads")
	b.ReportMetric(float64(sp.longestOther.Microseconds()), "max-non-gc-safepoint-µs")
	b.ReportMetric(float64(sp.longestGC.Microseconds()), "max-gc-pause-µs")
}

var (
	safepointLine = regexp.MustCompile(`Safepoint "([^"]+)".*Reaching safepoint: (\d+) ns, At safepoint: (\d+) ns`)
	collectorOp   = regexp.MustCompile(`G1|GC|Collect|Cleanup|Remark`)
)

// safepoints sums up -Xlog:safepoint's lines.
type safepoints struct {
	gcs, others             int
	longestGC, longestOther time.Duration // at the safepoint: the operation itself
	longestReach            time.Duration // bringing the threads to it (long on a loaded machine)
	otherNames              map[string]int
}

// safepointStats reads -Xlog:safepoint's lines: the collector's pauses and
// the others (ThreadMXBean's thread dumps, the agent's polls of the
// platform threads, are "ThreadDump"; the JSON dump of the virtual threads
// takes none).
func safepointStats(b *testing.B, path string) safepoints {
	sp := safepoints{otherNames: map[string]int{}}
	f, err := os.Open(path)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		m := safepointLine.FindStringSubmatch(sc.Text())
		if m == nil {
			continue
		}
		reach, _ := strconv.ParseInt(m[2], 10, 64)
		ns, _ := strconv.ParseInt(m[3], 10, 64)
		sp.longestReach = max(sp.longestReach, time.Duration(reach))
		if collectorOp.MatchString(m[1]) {
			sp.gcs++
			sp.longestGC = max(sp.longestGC, time.Duration(ns))
			continue
		}
		sp.others++
		sp.otherNames[m[1]]++
		sp.longestOther = max(sp.longestOther, time.Duration(ns))
	}
	return sp
}
