package io.tenantry.controller.routing;

import io.tenantry.api.v1alpha1.Tenant;
import io.tenantry.spares.fleet.FleetRecords;
import io.tenantry.spares.fleet.HostnameClaim;
import io.tenantry.spares.fleet.TenantRef;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Hostname claims across the fleet, in the fleet records (a Datastore transaction per claim), so
 * that two tenants on two clusters never both serve one hostname. A claim belongs to one Tenant
 * object, named by this cluster and its UID: a tenant of the same name on another cluster, or
 * created again here, is another tenant, told the hostname is held. What this process has claimed
 * is remembered: a tenant whose hostnames did not change costs no call, so a steady state stays
 * free; a lost claim is asked again on every sync of the tenant, which is how it is won once the
 * holder lets go. The first sync of a Tenant in this process adopts its records written before
 * the records kept UIDs ({@link FleetRecords#adopt}), and lets go of the names it dropped.
 */
public final class FleetHostnameClaims implements HostnameClaims {

  /** The hostnames the fleet records hold for one Tenant object, as this process last claimed them. */
  private record Held(String uid, Set<String> hostnames) {
  }

  private final FleetRecords records;
  private final String cluster;
  /** By tenant name; an entry of another UID is the name's previous Tenant, and counts as none. */
  private final Map<String, Held> held = new ConcurrentHashMap<>();

  public FleetHostnameClaims(FleetRecords records, String cluster) {
    this.records = records;
    this.cluster = cluster;
  }

  @Override
  public Map<String, String> claim(Tenant tenant, List<String> hostnames) {
    TenantRef me = new TenantRef(cluster, tenant.getMetadata().getName(), tenant.getMetadata().getUid());
    Set<String> mine = held(me, hostnames);
    Map<String, String> heldByOthers = new LinkedHashMap<>();
    for (String hostname : hostnames) {
      if (mine.contains(hostname)) {
        continue;
      }
      HostnameClaim claim = records.claimHostname(hostname, me);
      if (claim.heldBy(me)) {
        mine.add(hostname);
      } else {
        heldByOthers.put(hostname, "tenant " + claim.tenant() + " on cluster " + claim.cluster());
      }
    }
    return heldByOthers;
  }

  /**
   * The hostnames this process knows the tenant holds, after adopting its records on its first sync
   * here and letting go of the names it no longer wants (also those dropped while this process was
   * not running).
   */
  private Set<String> held(TenantRef me, List<String> hostnames) {
    Held known = held.get(me.name());
    if (known == null || !known.uid().equals(me.uid())) {
      records.adopt(me);
      records.releaseHostnames(me, hostnames);
      known = new Held(me.uid(), ConcurrentHashMap.newKeySet());
      held.put(me.name(), known);
    } else if (!hostnames.containsAll(known.hostnames())) {
      records.releaseHostnames(me, hostnames);
      known.hostnames().retainAll(hostnames);
    }
    return known.hostnames();
  }

  /** Remembered only for a Tenant this process knows (a spare it claimed for): else its next claim adopts its records first. */
  @Override
  public void claimedOnBind(Tenant bound, String hostname) {
    Held known = held.get(bound.getMetadata().getName());
    if (known != null && known.uid().equals(bound.getMetadata().getUid())) {
      known.hostnames().add(hostname);
    }
  }

  @Override
  public void release(String tenant) {
    held.remove(tenant); // The fleet records' purge deletes the claims themselves.
  }
}
