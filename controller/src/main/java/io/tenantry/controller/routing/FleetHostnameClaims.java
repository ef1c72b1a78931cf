package io.tenantry.controller.routing;

import io.tenantry.api.v1alpha1.Tenant;
import io.tenantry.spares.fleet.FleetRecords;
import io.tenantry.spares.fleet.HostnameClaim;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Hostname claims across the fleet, in the fleet records (a Datastore transaction per claim), so
 * that two tenants on two clusters never both serve one hostname. What this process has claimed
 * is remembered: a tenant whose hostnames did not change costs no call, so a steady state stays
 * free; a lost claim is asked again on every sync of the tenant, which is how it is won once the
 * holder lets go.
 */
public final class FleetHostnameClaims implements HostnameClaims {

  private final FleetRecords records;
  private final String cluster;
  /** Per tenant, the hostnames the fleet records hold for it, as this process last claimed them. */
  private final Map<String, Set<String>> held = new ConcurrentHashMap<>();

  public FleetHostnameClaims(FleetRecords records, String cluster) {
    this.records = records;
    this.cluster = cluster;
  }

  @Override
  public Map<String, String> claim(Tenant tenant, List<String> hostnames) {
    String name = tenant.getMetadata().getName();
    Set<String> mine = held.get(name);
    if (mine == null || !hostnames.containsAll(mine)) {
      // Names the tenant dropped (also while this process was not running) go back first.
      records.releaseHostnames(name, hostnames);
      mine = mine == null ? ConcurrentHashMap.newKeySet() : mine;
      mine.retainAll(hostnames);
      held.put(name, mine);
    }
    Map<String, String> heldByOthers = new LinkedHashMap<>();
    for (String hostname : hostnames) {
      if (mine.contains(hostname)) {
        continue;
      }
      HostnameClaim claim = records.claimHostname(hostname, name, cluster);
      if (claim.tenant().equals(name)) {
        mine.add(hostname);
      } else {
        heldByOthers.put(hostname, "tenant " + claim.tenant() + " on cluster " + claim.cluster());
      }
    }
    return heldByOthers;
  }

  @Override
  public void release(String tenant) {
    held.remove(tenant); // The fleet records' purge deletes the claims themselves.
  }
}
