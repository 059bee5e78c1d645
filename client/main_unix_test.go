//go:build unix

package client

import (
	"os"
	"testing"
)

// TestMain keeps the package's sessions away from this user's real token
// directory: an agent killed earlier may have left a token file for a port
// a test's fake profiler listens on now, and the session would then try
// to authenticate where the test expects none.
func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "proftop-client-test-")
	if err != nil {
		panic(err)
	}
	tokenDir = dir
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}
