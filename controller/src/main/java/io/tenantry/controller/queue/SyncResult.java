package io.tenantry.controller.queue;

import java.time.Duration;

/** What the worker does with a tenant's key after a sync that did not throw. */
public record SyncResult(Duration requeueAfter, boolean backoff) {

  private static final SyncResult DONE = new SyncResult(null, false);
  private static final SyncResult BACKOFF = new SyncResult(null, true);

  /** Nothing more to do until the next event. */
  public static SyncResult done() {
    return DONE;
  }

  /** Look again after {@code delay} even without an event (e.g. a rollout's deadline). */
  public static SyncResult after(Duration delay) {
    return new SyncResult(delay, false);
  }

  /** Look again later, with the tenant's growing backoff (a condition that has not cleared). */
  public static SyncResult withBackoff() {
    return BACKOFF;
  }
}
