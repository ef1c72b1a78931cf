package io.tenantry.controller.lifecycle;

import io.tenantry.spares.fleet.FleetRecords;
import io.tenantry.spares.fleet.TenantRef;

/**
 * Deletes what a purged tenant leaves outside the cluster: its entries in the secret store, its
 * fleet records, and marks its backups for deletion after the configured delay. Implementations
 * must be idempotent (a purge may run more than once); throwing makes the purge retry with backoff
 * and keeps the Tenant's finalizer.
 */
public interface TenantCleanup {

  /** Nothing outside the cluster to delete. */
  TenantCleanup NONE = (tenant, tenantUid) -> { };

  /**
   * Cleans up after the tenant {@code tenant} whose Tenant object has UID {@code tenantUid}: records
   * kept by name (secrets) and those kept by the UID as well (fleet records, backups: a later tenant
   * of the same name, or one of the same name on another cluster, is another tenant).
   */
  void purge(String tenant, String tenantUid) throws Exception;

  /** Purges the tenant's fleet records, kept by this cluster and the Tenant's UID. */
  static TenantCleanup fleet(FleetRecords records, String cluster) {
    return (tenant, tenantUid) -> records.purgeTenant(new TenantRef(cluster, tenant, tenantUid));
  }
}
