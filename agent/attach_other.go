//go:build !linux

package agent

import (
	"errors"
	"time"
)

// ErrUnsupported is returned where attaching is not implemented.
var ErrUnsupported = errors.New("attaching to a running JVM is implemented for Linux only; start the JVM with -javaagent:proftop-agent.jar instead")

// AttachOptions tune Attach.
type AttachOptions struct {
	AgentOptions string
	Timeout      time.Duration
}

// JVM is a Java process on this machine.
type JVM struct {
	PID        int
	User       string
	Main       string
	Attachable bool
}

// Attachment is where an attached agent listens.
type Attachment struct {
	Port  int
	Token string
	Notes []string
}

// Attach is not implemented on this platform.
func Attach(pid int, opts AttachOptions) (Attachment, error) { return Attachment{}, ErrUnsupported }

// List is not implemented on this platform.
func List() ([]JVM, error) { return nil, ErrUnsupported }
