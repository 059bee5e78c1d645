package tui

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
)

// sharedFixtures is ../shared/fixtures (beside the project) as seen from
// this package's directory: real recordings the tests read in place.
const sharedFixtures = "../../shared/fixtures"

// jinsightTrace is the real Jinsight trace, of ../shared/fixtures.
const jinsightTrace = "jinsight/trace-linux-x86_64-tagobjects.trc"

// sharedFixture returns the path of a file of ../shared/fixtures, or skips
// the test, naming the folder, when it is absent.
func sharedFixture(t testing.TB, rel string) string {
	t.Helper()
	path := filepath.Join(sharedFixtures, rel)
	if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
		t.Skipf("%s is absent (the ../shared folder is not beside this checkout); skipping", filepath.Dir(path))
	}
	return path
}
