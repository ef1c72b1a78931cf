package io.tenantry.controller.routing;

import io.tenantry.api.v1alpha1.Tenant;
import io.tenantry.api.v1alpha1.TenantState;
import io.tenantry.controller.config.OperatorConfig;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/** Pure: the hostnames a tenant is reached at, and which tenants hold hostnames at all. */
public final class Hostnames {

  private Hostnames() {
  }

  /**
   * {@code <spec.subdomain or name>.<baseDomain>} first, then {@code spec.hostnames} in their
   * order, without repeats; none while routing is off.
   */
  public static List<String> of(Tenant tenant, OperatorConfig.Routing routing) {
    if (!routing.enabled()) {
      return List.of();
    }
    String subdomain = tenant.getSpec().getSubdomain() != null ? tenant.getSpec().getSubdomain() : tenant.getMetadata().getName();
    Set<String> hostnames = new LinkedHashSet<>();
    hostnames.add(subdomain + "." + routing.baseDomain());
    hostnames.addAll(tenant.getSpec().getHostnames());
    return new ArrayList<>(hostnames);
  }

  /**
   * Whether a tenant in {@code state} holds its hostnames: Active and Frozen tenants are routed,
   * an Archived one keeps its names for its return. A spare (New) has no public name yet, and a
   * Purged tenant has given its names back.
   */
  public static boolean held(TenantState state) {
    return state == TenantState.Active || state == TenantState.Frozen || state == TenantState.Archived;
  }

  /** The URLs of {@code hostnames}, as status.urls and allocation answers show them. */
  public static List<String> urls(List<String> hostnames, OperatorConfig.Routing routing) {
    return hostnames.stream().map(h -> routing.scheme() + "://" + h + "/").toList();
  }
}
