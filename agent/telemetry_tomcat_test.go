package agent

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/proftop/proftop/client"
	"github.com/proftop/proftop/state"
)

// seriesWithPrefix gives the latest value of every series whose name
// starts with prefix, by name.
func seriesWithPrefix(s *state.Snapshot, prefix string) map[string]float64 {
	out := map[string]float64{}
	for i := range s.Telemetry {
		if sr := &s.Telemetry[i]; strings.HasPrefix(sr.Name, prefix) {
			if p, ok := sr.Last(); ok {
				out[sr.Name] = sr.Scaled(p.Value)
			}
		}
	}
	return out
}

// only is the one value of m, failing the test when m has another number of them.
func only(t *testing.T, m map[string]float64, what string) float64 {
	t.Helper()
	if len(m) != 1 {
		t.Fatalf("%s: %d series, want one: %v", what, len(m), m)
	}
	for _, v := range m {
		return v
	}
	return 0
}

// Tomcat's own MBeans, chosen by object-name patterns as a user would
// (Tomcat names its connector's pool after the port it got, so nobody
// writes that name out), read live while ab loads a JSP whose requests
// serialize on a monitor: the pool's busy threads rise under the load, and
// the request count grows by what ab completed.
func TestTelemetryOfTomcat(t *testing.T) {
	_, jar := workload(t)
	portFile := filepath.Join(t.TempDir(), "port")
	tc := startTomcat(t, liveJIT, fmt.Sprintf("-javaagent:%s=port=0,portfile=%s", jar, portFile))
	at, err := waitForPort(portFile, 20*time.Second, tc.PID)
	if err != nil {
		t.Fatal(err)
	}
	const (
		busy     = "jmx:Catalina:type=ThreadPool,name=*:currentThreadsBusy"
		maxPool  = "jmx:Catalina:type=ThreadPool,name=*:maxThreads"
		requests = "jmx:Catalina:type=GlobalRequestProcessor,name=*:requestCount"
	)
	agg, s, stop := watchTelemetry(t, at.Port, client.FormatAuto, []string{busy, maxPool, requests}, nil)
	defer stop()
	snapshot := func() *state.Snapshot { return agg.Snapshot(time.Now(), state.Query{CallersOf: -1}) }

	// Before the load: one series per pattern, for the one connector.
	var before float64
	for deadline := time.Now().Add(30 * time.Second); ; {
		snap := snapshot()
		b, m, r := seriesWithPrefix(snap, "currentThreadsBusy (Catalina:type=ThreadPool,name="),
			seriesWithPrefix(snap, "maxThreads (Catalina:type=ThreadPool,name="),
			seriesWithPrefix(snap, "requestCount (Catalina:type=GlobalRequestProcessor,name=")
		if len(b) > 0 && len(m) > 0 && len(r) > 0 {
			if got := only(t, m, maxPool); got != 200 {
				t.Errorf("maxThreads %v; Tomcat's connector's default is 200", got)
			}
			before = only(t, r, requests)
			only(t, b, busy)
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("after 30s: %d series, problems %+v", len(snap.Telemetry), snap.TelemetryProblems)
		}
		time.Sleep(200 * time.Millisecond)
	}
	if before < 3 {
		t.Errorf("requestCount %v before the load; startTomcat made at least 3 requests", before)
	}

	// Under the load: 8 clients on a JSP whose requests wait for one
	// another's monitor keep several of the pool's threads busy at once.
	const clients = 8
	load := startAB(t, tc.URL("/contend.jsp"), clients, 4*time.Second)
	most := 0.0
	for {
		select {
		case <-load.done:
		default:
			most = max(most, only(t, seriesWithPrefix(snapshot(), "currentThreadsBusy ("), busy))
			time.Sleep(100 * time.Millisecond)
			continue
		}
		break
	}
	ab := load.Wait()
	if ab.Complete == 0 || ab.Failed != 0 {
		t.Fatalf("ab: %d complete, %d failed:\n%s", ab.Complete, ab.Failed, ab.Output)
	}
	if most < 2 {
		t.Errorf("at most %v of Tomcat's threads busy under %d clients", most, clients)
	}

	// After it: the request count has grown by what ab completed (and by
	// the few it had under way when its time ran out), and nothing is busy.
	var grown, idle float64
	for deadline := time.Now().Add(20 * time.Second); ; {
		snap := snapshot()
		grown = only(t, seriesWithPrefix(snap, "requestCount ("), requests) - before
		idle = only(t, seriesWithPrefix(snap, "currentThreadsBusy ("), busy)
		if grown >= float64(ab.Complete) && idle == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("after the load: requestCount grew by %v, ab completed %d; %v threads busy", grown, ab.Complete, idle)
		}
		time.Sleep(200 * time.Millisecond)
	}
	if grown > float64(ab.Complete+clients) {
		t.Errorf("requestCount grew by %v, ab completed %d with %d clients", grown, ab.Complete, clients)
	}
	snap := snapshot()
	for _, spec := range []string{busy, maxPool, requests} {
		if p := problemOf(snap, spec); p != "" {
			t.Errorf("%s: %s", spec, p)
		}
	}
	if st := s.Status(); st.DecodeErrors != 0 {
		t.Fatalf("%d decode errors: %s", st.DecodeErrors, st.LastError)
	}
	t.Logf("requestCount grew by %v (ab: %d complete, %.0f/s); at most %v threads busy", grown, ab.Complete, ab.RPS, most)
	tc.stop(t, 30*time.Second)
}
