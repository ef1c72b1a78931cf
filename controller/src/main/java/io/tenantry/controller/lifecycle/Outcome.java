package io.tenantry.controller.lifecycle;

import io.tenantry.api.v1alpha1.TenantStatus;
import io.tenantry.controller.queue.SyncResult;

/**
 * A state handler's result: the status to report, what the worker does next, and whether the
 * tenant was found converged (nothing to write, nothing in flight).
 */
record Outcome(TenantStatus status, SyncResult next, boolean converged) {

  Outcome(TenantStatus status, SyncResult next) {
    this(status, next, false);
  }
}
