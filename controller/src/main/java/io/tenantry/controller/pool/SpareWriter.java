package io.tenantry.controller.pool;

import io.tenantry.api.v1alpha1.SparePool;
import io.tenantry.api.v1alpha1.SparePoolStatus;
import io.tenantry.api.v1alpha1.Tenant;

/**
 * The writes of the SparePool controller: its spares (Tenants) and the pool's status. Updates and
 * status writes are guarded by the resourceVersion of the object passed in, so a spare a signup
 * bound meanwhile fails with a conflict and is never touched.
 */
public interface SpareWriter {

  void create(Tenant spare);

  /** Replaces the spare with {@code updated} (carrying the cached resourceVersion). */
  void update(Tenant updated);

  void delete(Tenant spare);

  void writeStatus(SparePool cached, SparePoolStatus status);
}
