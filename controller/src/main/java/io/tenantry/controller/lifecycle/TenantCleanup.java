package io.tenantry.controller.lifecycle;

/**
 * Deletes what a purged tenant leaves outside the cluster: its entries in the secret store, its
 * fleet records. Implementations must be idempotent (a purge may run more than once); throwing
 * makes the purge retry with backoff and keeps the Tenant's finalizer.
 */
public interface TenantCleanup {

  /** Nothing outside the cluster to delete. */
  TenantCleanup NONE = tenant -> { };

  void purge(String tenant) throws Exception;
}
