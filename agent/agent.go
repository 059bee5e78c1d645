// Package agent holds proftop's JVM agent (Java, JDK Flight Recorder
// based; sources in java/), embedded in the proftop binary as a jar, and
// what it takes to use it from Go: attaching it to a running JVM through
// the HotSpot attach mechanism, and listing the JVMs that can be attached.
package agent

import _ "embed"

//go:generate go run ./internal/jarbuild -src java -out proftop-agent.jar

// Jar is the agent, as built from java/ by go generate.
//
//go:embed proftop-agent.jar
var Jar []byte
