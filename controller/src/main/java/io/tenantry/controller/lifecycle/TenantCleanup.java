package io.tenantry.controller.lifecycle;

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
   * kept by name (secrets, fleet records) and those kept by the UID as well (backups: a later tenant
   * of the same name is another tenant).
   */
  void purge(String tenant, String tenantUid) throws Exception;

  /** A cleanup of records kept by name alone, such as {@code FleetRecords::purgeTenant}. */
  static TenantCleanup byName(ByName cleanup) {
    return (tenant, tenantUid) -> cleanup.purge(tenant);
  }

  /** Cleans up what is kept by the tenant's name alone. */
  @FunctionalInterface
  interface ByName {
    void purge(String tenant) throws Exception;
  }
}
