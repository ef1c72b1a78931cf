package io.tenantry.controller.server;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;

/**
 * The count of requests a listener refused, by reason: {@code tenantry_http_rejected_total} with
 * the tags {@code listener} and {@code reason}.
 */
final class Refusals {

  /** The reasons, as the {@code reason} tag spells them. */
  enum Reason {
    /** No handler free and no room to wait: 503 with Retry-After. */
    BUSY("busy"),
    /** The body came too slowly: 408. */
    TIMEOUT("timeout"),
    /** The headers did not arrive within the read limit: the connection was closed. */
    CUT("cut"),
    /** No bearer token, or a wrong one: 401. */
    UNAUTHENTICATED("unauthenticated"),
    /** Too many failed tokens from one client: 429 with Retry-After. */
    THROTTLED("throttled");

    private final String tag;

    Reason(String tag) {
      this.tag = tag;
    }
  }

  private final Counter[] counters = new Counter[Reason.values().length];

  Refusals(MeterRegistry registry, String listener) {
    for (Reason reason : Reason.values()) {
      counters[reason.ordinal()] = Counter.builder("tenantry.http.rejected")
          .description("Requests refused by an HTTP listener: no handler free (503), body too slow (408), headers too slow"
              + " (connection closed), no or a wrong bearer token (401), too many wrong tokens from one client (429)")
          .tag("listener", listener).tag("reason", reason.tag).register(registry);
    }
  }

  void count(Reason reason) {
    counters[reason.ordinal()].increment();
  }
}
