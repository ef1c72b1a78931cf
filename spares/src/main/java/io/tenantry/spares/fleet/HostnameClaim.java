package io.tenantry.spares.fleet;

import java.time.Instant;

/**
 * A tenant's claim on a hostname, fleet-wide: while it exists, only this tenant serves the
 * hostname, on whichever cluster of the fleet. The claim belongs to one Tenant object, named by
 * its cluster and UID ({@link #heldBy}); another Tenant of the same name, on another cluster or
 * created again on this one, does not hold it.
 *
 * @param hostname the claimed name, a lowercase DNS name of at least two labels
 * @param tenant the Tenant's name, a DNS label
 * @param tenantUid the Tenant's UID; null in a claim written before claims kept UIDs, until its tenant
 *     adopts it ({@link FleetRecords#adopt})
 * @param cluster the fleet cluster serving the hostname for the tenant
 * @param claimedAt when the tenant first claimed it, to the microsecond
 */
public record HostnameClaim(String hostname, String tenant, String tenantUid, String cluster, Instant claimedAt) {

  /** Validates every field, naming the one refused. */
  public HostnameClaim {
    FleetNames.requireHostname("hostname", hostname);
    FleetNames.requireDnsLabel("tenant", tenant);
    if (tenantUid != null) {
      FleetNames.requireUid("tenantUid", tenantUid);
    }
    FleetNames.requireDnsLabel("cluster", cluster);
    claimedAt = FleetNames.requireTime("claimedAt", claimedAt);
  }

  /** Whether {@code tenant} holds this claim, as {@link TenantRef#owns} decides. */
  public boolean heldBy(TenantRef tenant) {
    return tenant.owns(cluster, this.tenant, tenantUid);
  }
}
