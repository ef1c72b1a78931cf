package io.tenantry.spares.fleet;

/**
 * One Tenant object of the fleet, as its fleet records are keyed: the cluster that holds it, its
 * name there and the UID the API server gave it. Names are unique within a cluster only, and a
 * Tenant deleted and created again under its name is another tenant; the cluster and the UID
 * together tell them apart, so the calls of one never touch the records of another.
 *
 * @param cluster the fleet cluster holding the Tenant, a DNS label
 * @param name the Tenant's name, a DNS label
 * @param uid the Tenant's {@code metadata.uid}, 1 to 128 printable ASCII characters
 */
public record TenantRef(String cluster, String name, String uid) {

  /** Validates every field, naming the one refused ({@code cluster}, {@code tenant}, {@code tenantUid}). */
  public TenantRef {
    FleetNames.requireDnsLabel("cluster", cluster);
    FleetNames.requireDnsLabel("tenant", name);
    FleetNames.requireUid("tenantUid", uid);
  }

  /**
   * Whether a record naming {@code recordCluster}, {@code recordTenant} and {@code recordUid} is this
   * tenant's: the same cluster, name and UID. A record without a UID ({@code recordUid} null) was
   * written before the records kept UIDs, or reserves a spare's name before its Tenant exists: it is
   * the tenant's of that name on that cluster, which adopts it ({@link FleetRecords#adopt}).
   */
  public boolean owns(String recordCluster, String recordTenant, String recordUid) {
    return cluster.equals(recordCluster) && name.equals(recordTenant) && (recordUid == null || uid.equals(recordUid));
  }
}
