package client

import "context"

// Command is something a source can be told to do from the interface: a
// toggle (CPU sampling on or off) or an action (force a collection). The
// interface binds its key, lists it in the help and the footer, and shows
// a toggle's state in the header.
type Command struct {
	Key    string // the key that runs it, as Bubble Tea names keys ("C")
	Label  string // what it does, short ("CPU sampling")
	Toggle bool   // On is its state
	On     bool
	// State, when set, is shown instead of on/off ("wall clock").
	State string
	// Busy says the command was sent and its reply has not come.
	Busy bool
}

// Commander is a source that takes commands.
type Commander interface {
	// Commands lists the commands, in the order the help shows them.
	Commands() []Command
	// Do runs the command of a key and waits for its reply (within the
	// source's command timeout); the sentence says what happened.
	Do(ctx context.Context, key string) (string, error)
}
