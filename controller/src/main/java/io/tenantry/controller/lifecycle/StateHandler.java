package io.tenantry.controller.lifecycle;

import io.tenantry.controller.resources.TenantContext;

/** Makes a tenant look like its lifecycle state asks, and says what it observed. One implementation per state. */
interface StateHandler {

  /** Converges the tenant's objects (reading the cache, writing only differences). */
  Outcome reconcile(TenantContext ctx);
}
