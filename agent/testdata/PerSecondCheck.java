package io.proftop.agent;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.math.BigDecimal;

/**
 * Runs PerSecond through scripts read from standard input, one command a
 * line, times in decimal seconds:
 *
 *   case NAME            a new PerSecond
 *   first SECOND         the first second the recording saw whole
 *   add END VALUE        an event that ended at END
 *   complete HORIZON     hands out the seconds complete before HORIZON
 *
 * and prints "case NAME" and, for each second handed out, "SECOND SUM".
 *
 * java -cp proftop-agent.jar:CLASSES io.proftop.agent.PerSecondCheck < SCRIPT
 */
public class PerSecondCheck {
    public static void main(String[] args) throws Exception {
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, "UTF-8"));
        PerSecond p = new PerSecond();
        long first = 0;
        for (String line; (line = in.readLine()) != null;) {
            String[] w = line.trim().split("\\s+");
            switch (w[0]) {
                case "case" -> {
                    p = new PerSecond();
                    first = 0;
                    System.out.println(line.trim());
                }
                case "first" -> first = Long.parseLong(w[1]);
                case "add" -> p.add(nanos(w[1]), Double.parseDouble(w[2]), first);
                case "complete" -> p.complete(nanos(w[1]), (second, sum) -> System.out.println(second + " " + Math.round(sum)));
                case "" -> {
                }
                default -> throw new IllegalArgumentException("unknown command: " + line);
            }
        }
    }

    private static long nanos(String seconds) {
        return new BigDecimal(seconds).movePointRight(9).longValueExact();
    }
}
