// Package simulator is a simulated profiler: an agent controller that
// speaks proftop's protocol (docs/protocol.md) and streams the activity of
// a plausible Java service, deterministic for a seed.
//
// The service (world.go) is a web shop on Tomcat with a billing pool, a
// cache refresher and a fork-join report task. Its threads run call trees
// over a fixed catalog of classes and methods (catalog.go); synchronized
// methods contend on a few monitors, some threads wait with timeouts, the
// heap fills and is collected, pool threads come and go, and now and then
// two billing threads deadlock on two accounts. The generator produces
// decode.Event values with virtual timestamps; the server (server.go) paces
// them to wall-clock time and encodes them in the negotiated format.
package simulator
