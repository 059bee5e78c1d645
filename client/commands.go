package client

import "context"

// Command is something a source can be told to do from the interface: a
// toggle (CPU sampling on or off) or an action (force a collection). The
// interface binds its key, lists it in the help and the footer, and shows
// a toggle's state in the header.
type Command struct {
	Key   string // the key that runs it, as Bubble Tea names keys ("C")
	Label string // what it does, short ("CPU sampling")
	// Short is a word for the footer ("CPU"), where the keys must fit in
	// one line; the help has the Label.
	Short  string
	Toggle bool // On is its state
	On     bool
	// Unknown says the toggle's state is not known (not connected): On
	// means nothing, and the header leaves it out.
	Unknown bool
	// State, when set, is shown instead of on/off ("wall clock").
	State string
	// Busy says the command was sent and its reply has not come.
	Busy bool
	// Census says what the command asks for comes later, as a census of
	// the objects (an object-space snapshot): its reply only says it was
	// asked for.
	Census bool
}

// Commander is a source that takes commands.
type Commander interface {
	// Commands lists the commands, in the order the help shows them.
	Commands() []Command
	// Do runs the command of a key and waits for its reply (within the
	// source's command timeout); the sentence says what happened.
	Do(ctx context.Context, key string) (string, error)
}
