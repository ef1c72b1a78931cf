package io.tenantry.spares.allocation;

import io.tenantry.api.Spares;
import io.tenantry.spares.fleet.Allocation;
import io.tenantry.spares.fleet.FleetNames;
import java.util.Optional;
import java.util.Set;

/**
 * Where allocated tenants are reached: {@code <scheme>://<subdomain or tenant name>.<baseDomain>/},
 * as the operator routes them. The operator passes its routing settings here, so this module needs
 * nothing of the controller's configuration.
 *
 * @param scheme {@code https} or {@code http}
 * @param baseDomain the domain tenants are routed under; empty when routing is off
 * @param reservedSubdomains the subdomains no signup may take (the operator's routing.reservedSubdomains)
 * @param edgeGated spares gated at the edge (the operator's routing.spareGate.mode forwardAuth)
 */
public record TenantUrls(String scheme, String baseDomain, Set<String> reservedSubdomains, boolean edgeGated) {

  /** Routing off: no tenant has a URL, and a signup naming a subdomain is refused. */
  public static final TenantUrls OFF = new TenantUrls("https", "");

  /** Refuses a scheme other than https or http, and a base domain that is not a hostname. */
  public TenantUrls {
    if (!"https".equals(scheme) && !"http".equals(scheme)) {
      throw new IllegalArgumentException("routing.scheme: must be https or http, not " + scheme);
    }
    if (!baseDomain.isEmpty()) {
      FleetNames.requireHostname("routing.baseDomain", baseDomain);
    }
    reservedSubdomains = Set.copyOf(reservedSubdomains);
  }

  /** No subdomain reserved. */
  public TenantUrls(String scheme, String baseDomain) {
    this(scheme, baseDomain, Set.of(), false);
  }

  /** Spares closed by their Services until bound. */
  public TenantUrls(String scheme, String baseDomain, Set<String> reservedSubdomains) {
    this(scheme, baseDomain, reservedSubdomains, false);
  }

  /** Whether no tenant may take {@code label} as its subdomain. */
  public boolean reserved(String label) {
    return reservedSubdomains.contains(label);
  }

  /** Whether tenants are routed at all. */
  public boolean enabled() {
    return !baseDomain.isEmpty();
  }

  /** How an allocated tenant's URL comes to serve ({@link Spares#serving}). */
  public Spares.Exposure exposure() {
    return !enabled() ? Spares.Exposure.NOT_ROUTED : edgeGated ? Spares.Exposure.EDGE_GATED : Spares.Exposure.ROUTED;
  }

  /** The hostname of {@code label} under the base domain; only while routing is on. */
  public String hostname(String label) {
    return label + "." + baseDomain;
  }

  /** The allocated tenant's URL; none while routing is off. */
  public Optional<String> url(Allocation allocation) {
    return enabled() ? Optional.of(scheme + "://" + hostname(allocation.label()) + "/") : Optional.empty();
  }
}
