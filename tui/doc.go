// Package tui is proftop's terminal interface: a Bubble Tea program whose
// root model owns the state and routes keys, and whose panes (threads, hot
// methods, monitors, GC) are plain structs rendered from an immutable
// snapshot of the aggregator. The same renderers print the text snapshots
// of --batch. The fleet overview (FleetModel) is a table of JVMs over
// their summaries that wraps one root model per JVM opened.
package tui
