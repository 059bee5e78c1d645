package decode

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// rbkitSeeds are real frames (when ../shared is beside the project) and
// hostile ones: huge lengths, deep nesting, values of the wrong type, a
// truncated frame.
func rbkitSeeds() [][]byte {
	var seeds [][]byte
	cpu, hello := optionalFixture(sharedFixtures+"/rbkit/cpu_sampling.msgpack"), optionalFixture(sharedFixtures+"/rbkit/handshake_reply.msgpack")
	if mem := optionalFixture(sharedFixtures + "/rbkit/memory_profile.msgpack"); cpu != nil && hello != nil && len(mem) >= 4000 {
		seeds = append(seeds, cpu, hello, mem[:4000])
	}
	return append(seeds,
		collection(1, kv{0, 5, 10, 1, 11, 2, 2, []any{kv{3, 1, 4, "Foo", 6, "/a.rb", 7, 1, 8, 40}, kv{3, 2, 4, nil, 8, nil}}}),
		collection(2, kv{0, 9, 2, []any{kv{13, []any{1}}}}, kv{0, 6, 2, kv{"count", "x", "heap_live_slots", 9}}),
		frameBytes(kv{0, 7, 2, nest(40)}),
		[]byte{0x81, 0x00, 0xdb, 0xff, 0xff, 0xff, 0xff, 'a'},
		[]byte{0xdf, 0xff, 0xff, 0xff, 0xff, 0x00, 0x07},
		[]byte{0x82, 0x00, 0x07, 0x02, 0xdd, 0xff, 0xff, 0xff, 0xff, 0x01},
		[]byte{0x84, 0x00, 0x07, 0x09, 0xcf, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01, 0xcb, 0x7f, 0xf8, 0, 0, 0, 0, 0, 1, 0x02, 0x90},
	)
}

func FuzzRbkitDecoder(f *testing.F) {
	for _, s := range rbkitSeeds() {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		drain(t, NewRbkitDecoder(bytes.NewReader(data), Options{MaxMessageSize: 1 << 20}))
		evs, err := NewRbkitFrames(Options{MaxMessageSize: 1 << 20}).Decode(data, 0)
		if err != nil && len(evs) > 0 {
			t.Fatal("a malformed frame gave events")
		}
		for _, ev := range evs {
			Clone(ev)
		}
		ParseRbkitHandshake(data)
	})
}

// TestWriteRbkitFuzzCorpus refreshes the checked-in seed corpus (go test
// -run WriteRbkitFuzzCorpus -write-fuzz-corpus).
func TestWriteRbkitFuzzCorpus(t *testing.T) {
	if !*writeCorpus {
		t.Skip("only with -write-fuzz-corpus")
	}
	readFixture(t, sharedFixtures+"/rbkit/memory_profile.msgpack") // the real frames are seeds too
	dir := filepath.Join("testdata", "fuzz", "FuzzRbkitDecoder")
	os.RemoveAll(dir)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for i, s := range rbkitSeeds() {
		body := fmt.Sprintf("go test fuzz v1\n[]byte(%q)\n", s)
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("seed-%02d", i)), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
