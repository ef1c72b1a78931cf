package io.tenantry.deploy.rollout;

import io.tenantry.api.v1alpha1.SparePool;
import io.tenantry.api.v1alpha1.Tenant;
import java.util.List;

/**
 * What one cluster holds, as read for planning: the tenants the selection's label selector
 * matched (every tenant for names and --all) and its spare pools.
 */
public record ClusterInventory(String cluster, List<Tenant> tenants, List<SparePool> pools) {

  public ClusterInventory {
    tenants = List.copyOf(tenants);
    pools = List.copyOf(pools);
  }
}
