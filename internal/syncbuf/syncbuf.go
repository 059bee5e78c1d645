// Package syncbuf is a bytes.Buffer that one goroutine may write while
// another reads it: the output of a child process that a test watches as
// it runs.
package syncbuf

import (
	"bytes"
	"sync"
)

// Buffer collects writes under a lock.
type Buffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *Buffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

// String returns what was written so far.
func (s *Buffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
