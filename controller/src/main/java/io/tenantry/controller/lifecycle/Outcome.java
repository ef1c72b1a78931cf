package io.tenantry.controller.lifecycle;

import io.tenantry.api.v1alpha1.TenantStatus;

/** A state handler's result: the status to report and what the worker does next. */
record Outcome(TenantStatus status, SyncResult next) {
}
