package io.tenantry.controller.routing;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.gatewayapi.v1.HTTPRoute;
import io.fabric8.kubernetes.api.model.networking.v1.Ingress;
import io.fabric8.kubernetes.api.model.networking.v1.IngressRule;
import io.tenantry.api.v1alpha1.Tenant;
import io.tenantry.controller.cache.ClusterView;
import io.tenantry.controller.config.OperatorConfig;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Hostname claims within one cluster, when there are no fleet records: read from the cache, so
 * they cost no call. A tenant whose route already serves a hostname holds it; of the tenants
 * that want a hostname nobody serves yet, the oldest (then the first by name) gets it. Two
 * clusters without fleet records can still route one hostname each.
 */
public final class ClusterHostnameClaims implements HostnameClaims {

  private static final Comparator<Tenant> OLDEST_FIRST = Comparator
      .comparing((Tenant t) -> t.getMetadata().getCreationTimestamp(), Comparator.nullsLast(Comparator.naturalOrder()))
      .thenComparing(t -> t.getMetadata().getName());

  private final ClusterView cache;
  private final OperatorConfig.Routing routing;

  public ClusterHostnameClaims(ClusterView cache, OperatorConfig.Routing routing) {
    this.cache = cache;
    this.routing = routing;
  }

  @Override
  public Map<String, String> claim(Tenant tenant, List<String> hostnames) {
    Map<String, String> heldByOthers = new LinkedHashMap<>();
    List<Tenant> others = cache.tenantNames().stream().map(cache::tenant)
        .filter(t -> t != null && !t.getMetadata().getName().equals(tenant.getMetadata().getName()))
        .filter(t -> t.getSpec() != null && Hostnames.held(t.getSpec().getState())).toList();
    for (String hostname : hostnames) {
      List<Tenant> rivals = others.stream().filter(t -> Hostnames.of(t, routing).contains(hostname)).toList();
      if (rivals.isEmpty()) {
        continue;
      }
      List<Tenant> candidates = new ArrayList<>(rivals);
      candidates.add(tenant);
      List<Tenant> serving = candidates.stream().filter(t -> serves(t.getMetadata().getName(), hostname)).toList();
      Tenant holder = (serving.isEmpty() ? candidates : serving).stream().min(OLDEST_FIRST).orElseThrow();
      if (holder != tenant) {
        heldByOthers.put(hostname, "tenant " + holder.getMetadata().getName());
      }
    }
    return heldByOthers;
  }

  @Override
  public void release(String tenant) {
    // Nothing is kept: the claims are the Tenants and routes in the cache.
  }

  /** Whether one of the tenant's routes in the cache serves {@code hostname}. */
  private boolean serves(String tenant, String hostname) {
    for (HasMetadata owned : cache.ownedBy(tenant)) {
      if (owned instanceof HTTPRoute route && route.getSpec() != null && route.getSpec().getHostnames().contains(hostname)) {
        return true;
      }
      if (owned instanceof Ingress ingress && ingress.getSpec() != null
          && ingress.getSpec().getRules().stream().map(IngressRule::getHost).anyMatch(hostname::equals)) {
        return true;
      }
    }
    return false;
  }
}
