package io.tenantry.controller.routing;

import io.tenantry.api.v1alpha1.Tenant;
import java.util.List;
import java.util.Map;

/**
 * Who holds a hostname: one tenant at a time, so that no two tenants are ever routed one
 * hostname. A holder keeps its hostname until it lets it go (drops it from its spec, or is
 * purged): a later claimant never takes it over, so the answer does not flap.
 */
public interface HostnameClaims {

  /**
   * Claims {@code hostnames} for {@code tenant} (those it holds already stay held) and gives back
   * the ones another tenant holds, each with a description of its holder; the tenant may be
   * routed the others. Hostnames the tenant held but no longer names are let go.
   */
  Map<String, String> claim(Tenant tenant, List<String> hostnames);

  /**
   * {@code bound} holds {@code hostname} already: the allocation API in this process claimed it for
   * this Tenant (this cluster, its UID) before binding it with that subdomain. Spares its route, on
   * the customer's path, a second claim of the same name.
   */
  default void claimedOnBind(Tenant bound, String hostname) {
  }

  /** Lets go of everything {@code tenant} holds: it was purged. */
  void release(String tenant);
}
