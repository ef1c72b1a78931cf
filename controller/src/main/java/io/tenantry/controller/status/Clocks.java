package io.tenantry.controller.status;

import java.time.Clock;
import java.time.temporal.ChronoUnit;

/** Timestamps as Kubernetes writes them: RFC 3339, whole seconds, UTC. */
public final class Clocks {

  private Clocks() {
  }

  public static String now(Clock clock) {
    return clock.instant().truncatedTo(ChronoUnit.SECONDS).toString();
  }
}
