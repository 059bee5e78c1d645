package decode

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/proftop/proftop/internal/fixtures"
)

// sharedFixtures is ../shared/fixtures, beside the project: real
// recordings the tests read in place.
var sharedFixtures = fixtures.Dir()

var jinsightFixture = sharedFixtures + "/jinsight/trace-linux-x86_64-tagobjects.trc"

// readFixture reads a test file; one of ../shared that is absent skips the
// test, naming the folder it looked for.
func readFixture(t testing.TB, path string) []byte {
	t.Helper()
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) && strings.HasPrefix(path, sharedFixtures) {
		t.Skipf("%s is absent (the ../shared folder is not beside this checkout); skipping", filepath.Dir(path))
	}
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// optionalFixture reads a file of ../shared, or nil when it is absent: a
// fuzz target's seeds go on without it (its corpus is checked in).
func optionalFixture(path string) []byte {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil
	}
	return data
}
