package io.proftop.agent;

import jdk.jfr.Category;
import jdk.jfr.Description;
import jdk.jfr.Enabled;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.StackTrace;
import jdk.jfr.Threshold;

/**
 * The agent's own JFR event, one a second while a client watches: the wall
 * clock's time at the moment JFR timestamps it, so that the agent can
 * compare JFR's times with its polls' (see JfrClock). Off unless
 * the agent's recording runs; a recording of the user's running at the same
 * time sees it too.
 */
@Name(ClockMark.NAME)
@Label("proftop clock mark")
@Category("proftop")
@Description("The wall clock at this instant, for proftop's agent to align JFR's clock with its thread polls")
@Enabled(false)
@StackTrace(false)
@Threshold("0 ms")
final class ClockMark extends jdk.jfr.Event {
    static final String NAME = "io.proftop.ClockMark";

    @Label("Wall clock")
    @Description("Nanoseconds since the epoch, from Instant.now()")
    long wall;
}
