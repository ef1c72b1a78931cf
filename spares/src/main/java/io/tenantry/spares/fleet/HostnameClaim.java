package io.tenantry.spares.fleet;

import java.time.Instant;

/**
 * A tenant's claim on a hostname, fleet-wide: while it exists, only this tenant serves the
 * hostname, on whichever cluster of the fleet.
 *
 * @param hostname the claimed name, a lowercase DNS name of at least two labels
 * @param tenant the Tenant's name, a DNS label
 * @param cluster the fleet cluster serving the hostname for the tenant
 * @param claimedAt when the tenant first claimed it, to the microsecond
 */
public record HostnameClaim(String hostname, String tenant, String cluster, Instant claimedAt) {

  /** Validates every field, naming the one refused. */
  public HostnameClaim {
    FleetNames.requireHostname("hostname", hostname);
    FleetNames.requireDnsLabel("tenant", tenant);
    FleetNames.requireDnsLabel("cluster", cluster);
    claimedAt = FleetNames.requireTime("claimedAt", claimedAt);
  }
}
