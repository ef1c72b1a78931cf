package io.tenantry.spares.allocation;

import io.tenantry.api.Spares;
import io.tenantry.api.v1alpha1.Tenant;
import io.tenantry.spares.fleet.Allocation;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * One fleet cluster's spares as the {@link Allocator} reads and writes them. {@link SpareCluster}
 * is the implementation over an informer and the Kubernetes API.
 *
 * <p>Guarantees of every implementation:
 * <ul>
 *   <li>Reads come from a cache that may lag behind the cluster but never runs ahead of it: a
 *       spare bound elsewhere can still be listed as Ready for a while, and a spare just bound
 *       here can still be listed at the resourceVersion it had.</li>
 *   <li>{@link #bind} succeeds only when the spare is unchanged since the cache saw it, so of any
 *       number of binds of one cached spare, from any number of processes, at most one succeeds.</li>
 *   <li>What {@link #bind} writes is what {@link #allocationFor} and {@link #unrecorded} read back,
 *       once the cache has seen it: the cluster itself holds the answer to a request id.</li>
 * </ul>
 */
public interface SpareSource {

  /** The cluster's name in the fleet. */
  String name();

  /** Whether the cache has read the cluster's spares at least once. */
  boolean isSynced();

  /** The pool's Ready spares, as cached, in no particular order. */
  List<Tenant> readySpares(String pool);

  /** The cached resourceVersion of a spare, or null when the cache does not hold it. */
  String cachedResourceVersion(String tenant);

  /** The allocation the cached tenants hold for the request id, if one of them was bound to it. */
  Optional<Allocation> allocationFor(String requestId);

  /** Allocations bound in this cluster but not yet marked as recorded in the fleet records. */
  List<Allocation> unrecorded();

  /**
   * Binds the cached spare to the allocation in one write. Returns false, having written nothing,
   * when the spare is not cached as unallocated, changed since it was cached, or is gone: the
   * caller moves on to another spare. Other failures are thrown.
   */
  boolean bind(String tenant, Allocation allocation);

  /**
   * Whether the tenant, as the cluster holds it now (read past the cache), is allocated with this
   * subdomain: after a bind that failed, whether another signup took the spare under the same name.
   */
  boolean boundWith(String tenant, String subdomain);

  /** Whether the cached tenant serves at its URL ({@link io.tenantry.api.Spares#serving}); false when not cached. */
  boolean serving(String tenant, Spares.Exposure exposure);

  /** Marks the tenant's allocation as recorded in the fleet records; a tenant gone meanwhile needs no mark. */
  void markRecorded(String tenant);

  /**
   * Tells the pool a signup found it empty, so it builds beyond its buffer for a while. Returns
   * false when the cluster has no such pool.
   */
  boolean signalShortage(String pool, Instant now);
}
