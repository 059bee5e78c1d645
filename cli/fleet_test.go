package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/proftop/proftop/client"
	"github.com/proftop/proftop/config"
)

func TestTargets(t *testing.T) {
	dir := t.TempDir()
	file := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	fleet := file("fleet", "# the shop\nprod-3   # the busy one\n\nprod-4:10004, prod-5/billing\n")
	dup := file("dup", "prod-9\nprod-1:10002\n")
	bad := file("bad", "prod-9\nprod-10:x\n")
	for _, tc := range []struct {
		name  string
		s     config.Settings
		want  []client.Target
		error string
	}{
		{"one host", config.Settings{Host: "prod-1", Port: 10002}, []client.Target{{Host: "prod-1", Port: 10002}}, ""},
		{"the port setting is the default", config.Settings{Host: "prod-1,prod-2:9", Port: 7}, []client.Target{{Host: "prod-1", Port: 7}, {Host: "prod-2", Port: 9}}, ""},
		{"a list and a file", config.Settings{Host: "prod-1, prod-2", Hosts: fleet, Port: 10002}, []client.Target{
			{Host: "prod-1", Port: 10002}, {Host: "prod-2", Port: 10002}, {Host: "prod-3", Port: 10002},
			{Host: "prod-4", Port: 10004}, {Host: "prod-5", Port: 10002, Agent: "billing"}}, ""},
		{"none", config.Settings{Port: 10002}, nil, ""},
		{"twice", config.Settings{Host: "prod-1", Hosts: dup, Port: 10002}, nil, dup + " line 2: prod-1 is already listed (host entry 1)"},
		{"a bad port in a file", config.Settings{Hosts: bad, Port: 10002}, nil, bad + ` line 2: "prod-10:x": port "x"`},
		{"a bad entry", config.Settings{Host: "prod-1,prod-2/", Port: 10002}, nil, `host entry 2: "prod-2/": nothing after /`},
		{"no such file", config.Settings{Hosts: filepath.Join(dir, "absent"), Port: 10002}, nil, "the hosts file: open " + dir},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Targets(tc.s)
			if tc.error != "" {
				if err == nil || !strings.Contains(err.Error(), tc.error) {
					t.Fatalf("error %v, want one saying %q", err, tc.error)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(tc.want) {
				t.Fatalf("%+v, want %+v", got, tc.want)
			}
			for i := range got {
				if got[i] != tc.want[i] {
					t.Fatalf("%+v, want %+v", got, tc.want)
				}
			}
		})
	}
}
