package io.tenantry.spares.fleet;

import java.util.Collection;
import java.util.List;
import java.util.Optional;

/**
 * The fleet's records: which clusters exist, which cluster holds each tenant, which tenant each
 * signup request received, and which tenant serves each hostname. Kubernetes credentials are never
 * part of them.
 *
 * <p>Tenant names are unique within a cluster only. The records of a tenant (its placement, its
 * allocation, its hostname claims) therefore belong to one Tenant object, named by its cluster and
 * UID ({@link TenantRef}): a Tenant of the same name on another cluster, or created again under the
 * name, never releases, purges or shares them. Spares are kept apart by name as well: a spare's name
 * is reserved fleet-wide ({@link #reserveName}) before its Tenant is created, so the name-keyed
 * lookups ({@link #placement}, {@link #findAllocationByTenant}) find the one tenant of a signup.
 * Records without a UID (written before the records kept UIDs, or a name reserved before its Tenant
 * existed) belong to the tenant of that name on that cluster, as {@link TenantRef#owns} says, until it
 * adopts them ({@link #adopt}).
 *
 * <p>Guarantees of every implementation:
 * <ul>
 *   <li>Inputs are validated first; a bad one throws {@link FleetInputException} naming the field and
 *       nothing is written.</li>
 *   <li>{@link #recordAllocation} is idempotent by request id, also under concurrency: however many
 *       callers record the same request id at once, exactly one record exists afterwards and every
 *       caller gets that record back.</li>
 *   <li>A tenant name is held by at most one request id and placed on at most one cluster; of any
 *       number of clusters reserving one name at once, exactly one gets it.</li>
 *   <li>A hostname is held by at most one tenant across the fleet. {@link #claimHostname} is atomic, also
 *       under concurrency: however many callers claim a free hostname for different tenants at once,
 *       exactly one tenant holds it afterwards and every caller gets that holder's claim back.</li>
 *   <li>Calls naming a {@link TenantRef} act only on that tenant's records: another tenant's, also
 *       one of the same name on another cluster, are never changed or deleted.</li>
 *   <li>{@link #purgeTenant} is idempotent: after it returns, no placement, allocation or hostname
 *       claim of the tenant remains (but see {@link #purgeTenant} on claims made while it runs).</li>
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
   * while tenants are placed on it (reserved spare names included), so no tenant points at a cluster
   * the fleet no longer knows. The check is a query before the delete, so a placement racing with the
   * removal itself can slip past it; removing a cluster is an operator's action, not part of the
   * signup path.
   */
  boolean removeCluster(String name);

  /**
   * Places a tenant on a registered cluster, or moves it there. An unregistered cluster is refused
   * with {@link FleetInputException} on {@code cluster}. A move does not rewrite the tenant's
   * allocation record, which keeps where the signup was served, and forgets the placement's UID: the
   * Tenant on the new cluster is another object, which adopts the placement.
   */
  void placeTenant(String tenant, String cluster);

  /**
   * Reserves a spare's name for a cluster, before its Tenant is created there: places the name on the
   * cluster, without a UID, if no tenant of that name is placed anywhere. Returns whether it did; false
   * means the name is taken in the fleet, and the caller draws another. Atomic, also under concurrency.
   * The cluster need not be registered: a cluster builds spares before it serves signups. A
   * reservation whose Tenant is never created (the create failed) keeps the name from the fleet,
   * which costs nothing but that name.
   */
  boolean reserveName(String tenant, String cluster);

  /** The cluster holding the tenant, if it is placed (or its name reserved). */
  Optional<String> placement(String tenant);

  /** The tenants placed on the cluster, sorted by name. */
  List<String> tenantsOn(String cluster);

  Optional<Allocation> findAllocation(String requestId);

  /**
   * Records an allocation and places its tenant on its cluster, atomically, unless a record with the
   * same request id exists: then that record is returned unchanged and nothing is written. The
   * allocation must name its Tenant's UID, refused on {@code tenantUid} otherwise. Refused with
   * {@link FleetConflictException} when the tenant is already held by another request id, placed on
   * another cluster or placed for another Tenant object (another UID), and with
   * {@link FleetInputException} when the cluster is not registered.
   *
   * @return the record stored under the request id: {@code allocation}, or the one stored before
   */
  Allocation recordAllocation(Allocation allocation);

  /** The allocation record of the request that received the tenant, if any. */
  Optional<Allocation> findAllocationByTenant(String tenant);

  /**
   * Writes the tenant's UID into its records that have none, as {@link TenantRef#owns} finds them: its
   * placement and the allocation it points at, and its hostname claims; what the operator does on a
   * tenant's first sync. Returns how many records it wrote; calling it again is harmless. The claims
   * are found as {@link #hostnamesOf} finds them.
   */
  int adopt(TenantRef tenant);

  /**
   * Deletes the tenant's placement, allocation record and hostname claims, atomically; what the
   * operator does once a tenant is purged. Its hostnames are then free for any tenant to claim.
   * Returns whether anything was deleted; calling it again is harmless. The claims to delete are
   * found as {@link #hostnamesOf} finds them, so a claim made for the tenant while it is being purged
   * may survive; a purged tenant should not be claiming hostnames. An implementation whose
   * transactions hold few records may release claims beyond that first, as {@link #releaseHostnames}
   * would, and says so.
   */
  boolean purgeTenant(TenantRef tenant);

  /**
   * Claims a hostname for a tenant, atomically. If nobody holds it, it is stored for the tenant and
   * that claim returned. If the tenant holds it ({@link HostnameClaim#heldBy}), the stored claim is
   * returned unchanged. If another tenant holds it, also one of the same name on another cluster,
   * nothing is written and that holder's claim is returned: a caller asks
   * {@link HostnameClaim#heldBy} to know whether it won. Names are not lowered: an uppercase hostname
   * is refused on {@code hostname}.
   *
   * @return the claim stored for the hostname: the new one, or the one stored before
   */
  HostnameClaim claimHostname(String hostname, TenantRef tenant);

  /**
   * The tenant's hostname claims, sorted by hostname. Every claim returned is current, but an
   * implementation may find them by an eventually consistent query (see its documentation), so a
   * claim made a moment ago may be missing.
   */
  List<HostnameClaim> hostnamesOf(TenantRef tenant);

  /** The claim on the hostname, whoever holds it; read by the hostname itself, so always current. */
  Optional<HostnameClaim> hostnameHolder(String hostname);

  /**
   * Deletes the tenant's claims on hostnames not in {@code keep}; claims of other tenants are never
   * touched, even when {@code keep} leaves them out or names them. Returns how many claims were
   * deleted; calling it again is harmless. Every name in {@code keep} must be a valid hostname, or
   * the call is refused on {@code keep}, so a name in the wrong case cannot silently release the
   * claim it meant to keep. The claims are found as {@link #hostnamesOf} finds them: one made a moment
   * ago may stay until a later call.
   */
  int releaseHostnames(TenantRef tenant, Collection<String> keep);
}
