package decode

import (
	"encoding/json"
	"testing"
)

// Text from a peer printed as JSON cannot steer a terminal: C0 and C1
// controls, bidirectional controls and line separators are escaped, and
// the value read back is the same.
func TestJSONEscapesControls(t *testing.T) {
	in := "a\x1b[2J\u009b31m\u202egnp.exe\u2028\u2066x\u2069\xff名前"
	got := string(appendJSONString(nil, in))
	want := `"a\u001b[2J\u009b31m\u202egnp.exe\u2028\u2066x\u2069\ufffd名前"`
	if got != want {
		t.Fatalf("%s\nwant %s", got, want)
	}
	var back string
	if err := json.Unmarshal([]byte(got), &back); err != nil || back != "a\x1b[2J\u009b31m\u202egnp.exe\u2028\u2066x\u2069\ufffd名前" {
		t.Fatalf("%q %v", back, err)
	}
}
