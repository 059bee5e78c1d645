package cli

import (
	"strings"
	"testing"
)

// --port applies on the host of --listen, whether --listen names a port
// or a host alone.
func TestSimulateListenAddress(t *testing.T) {
	for _, tc := range []struct {
		listen             string
		port               int
		listenSet, portSet bool
		want, wrong        string
	}{
		{"127.0.0.1:10002", 10002, false, false, "127.0.0.1:10002", ""},
		{"127.0.0.1:10002", 23460, false, true, "127.0.0.1:23460", ""},
		{"0.0.0.0", 23460, true, true, "0.0.0.0:23460", ""},
		{"0.0.0.0", 10002, true, false, "0.0.0.0:10002", ""},
		{"::", 23460, true, true, "[::]:23460", ""},
		{"[::1]", 23460, true, true, "[::1]:23460", ""},
		{"localhost", 23460, true, true, "localhost:23460", ""},
		{"0.0.0.0:0", 23460, true, true, "0.0.0.0:23460", ""},
		{"0.0.0.0:23460", 23460, true, true, "0.0.0.0:23460", ""},
		{"127.0.0.1:2", 1, true, true, "", "name two ports"},
		{"", 1, true, true, "", "want HOST:PORT"},
		{"a:b:c", 1, true, true, "", "want HOST:PORT"},
	} {
		got, err := listenAddress(tc.listen, tc.port, tc.listenSet, tc.portSet)
		if tc.wrong != "" {
			if err == nil || !strings.Contains(err.Error(), tc.wrong) {
				t.Errorf("%q --port %d: %q, %v", tc.listen, tc.port, got, err)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("%q --port %d: %q, %v; want %q", tc.listen, tc.port, got, err, tc.want)
		}
	}
}
