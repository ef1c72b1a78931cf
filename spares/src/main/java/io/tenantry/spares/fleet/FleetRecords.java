package io.tenantry.spares.fleet;

import java.util.List;
import java.util.Optional;

/**
 * The fleet's records: which clusters exist, which cluster holds each tenant, and which tenant each
 * signup request received. Kubernetes credentials are never part of them.
 *
 * <p>Guarantees of every implementation:
 * <ul>
 *   <li>Inputs are validated first; a bad one throws {@link FleetInputException} naming the field and
 *       nothing is written.</li>
 *   <li>{@link #recordAllocation} is idempotent by request id, also under concurrency: however many
 *       callers record the same request id at once, exactly one record exists afterwards and every
 *       caller gets that record back.</li>
 *   <li>A tenant is held by at most one request id and placed on at most one cluster.</li>
 *   <li>{@link #purgeTenant} is idempotent: after it returns, no placement or allocation record of the
 *       tenant remains.</li>
 * </ul>
 */
public interface FleetRecords {

  /**
   * Registers a cluster, or updates the context and labels of a registered one (keeping its first
   * {@code registeredAt}). Returns the record as stored.
   */
  Cluster registerCluster(Cluster cluster);

  /** Every registered cluster, sorted by name. */
  List<Cluster> listClusters();

  Optional<Cluster> getCluster(String name);

  /**
   * Forgets a cluster; returns whether it was registered. Refused with {@link FleetConflictException}
   * while tenants are placed on it, so no tenant points at a cluster the fleet no longer knows. The
   * check is a query before the delete, so a placement racing with the removal itself can slip past
   * it; removing a cluster is an operator's action, not part of the signup path.
   */
  boolean removeCluster(String name);

  /**
   * Places a tenant on a registered cluster, or moves it there. An unregistered cluster is refused
   * with {@link FleetInputException} on {@code cluster}. A move does not rewrite the tenant's
   * allocation record, which keeps where the signup was served.
   */
  void placeTenant(String tenant, String cluster);

  /** The cluster holding the tenant, if it is placed. */
  Optional<String> placement(String tenant);

  /** The tenants placed on the cluster, sorted by name. */
  List<String> tenantsOn(String cluster);

  Optional<Allocation> findAllocation(String requestId);

  /**
   * Records an allocation and places its tenant on its cluster, atomically, unless a record with the
   * same request id exists: then that record is returned unchanged and nothing is written. Refused
   * with {@link FleetConflictException} when the tenant is already held by another request id or
   * placed on another cluster, and with {@link FleetInputException} when the cluster is not registered.
   *
   * @return the record stored under the request id: {@code allocation}, or the one stored before
   */
  Allocation recordAllocation(Allocation allocation);

  /** The allocation record of the request that received the tenant, if any. */
  Optional<Allocation> findAllocationByTenant(String tenant);

  /**
   * Deletes the tenant's placement and allocation records, atomically; what the operator does once
   * a tenant is purged. Returns whether anything was deleted; calling it again is harmless.
   */
  boolean purgeTenant(String tenant);
}
