package io.tenantry.api;

import java.time.Clock;
import java.time.temporal.ChronoUnit;

/**
 * Timestamps as Kubernetes writes them in conditions and status (RFC 3339, whole seconds, UTC), so
 * that a value the operator writes compares equal to the one it reads back.
 */
public final class Timestamps {

  private Timestamps() {
  }

  public static String now(Clock clock) {
    return clock.instant().truncatedTo(ChronoUnit.SECONDS).toString();
  }
}
