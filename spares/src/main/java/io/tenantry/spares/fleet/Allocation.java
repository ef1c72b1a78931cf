package io.tenantry.spares.fleet;

import java.time.Instant;

/**
 * The record of one signup: the request id the caller sent and the tenant it received. The request
 * id identifies the record, so a retried request finds the same tenant.
 *
 * @param requestId the caller's idempotency key, 1 to 128 printable ASCII characters
 * @param organization the customer's organization name
 * @param email the customer's contact email
 * @param tenant the Tenant's name, a DNS label
 * @param tenantUid the Tenant's UID; null only in a record written before allocations kept UIDs
 *     ({@link FleetRecords#recordAllocation} requires it)
 * @param cluster the fleet cluster holding the tenant
 * @param namespace the tenant's Kubernetes namespace in that cluster
 * @param allocatedAt when the tenant was allocated, to the microsecond
 * @param subdomain the DNS label the signup asked to be reached at under the routing base domain; null when it
 *     asked none, and the tenant is reached at its name
 */
public record Allocation(String requestId, String organization, String email, String tenant, String tenantUid,
                         String cluster, String namespace, Instant allocatedAt, String subdomain) {

  /** Validates every field, naming the one refused. */
  public Allocation {
    FleetNames.requireRequestId(requestId);
    FleetNames.requireOrganization(organization);
    FleetNames.requireEmail(email);
    FleetNames.requireDnsLabel("tenant", tenant);
    if (tenantUid != null) {
      FleetNames.requireUid("tenantUid", tenantUid);
    }
    FleetNames.requireDnsLabel("cluster", cluster);
    FleetNames.requireNamespace(namespace);
    allocatedAt = FleetNames.requireTime("allocatedAt", allocatedAt);
    if (subdomain != null) {
      FleetNames.requireDnsLabel("subdomain", subdomain);
    }
  }

  /** The label the tenant is reached at under the routing base domain: its subdomain, else its name. */
  public String label() {
    return subdomain != null ? subdomain : tenant;
  }
}
