package io.tenantry.controller.status;

import java.util.List;

/**
 * What the Routed condition and status.urls say of a tenant that holds hostnames: routed (to its
 * apps, or to the paused page), or why not. {@link #NONE}: routing does not concern the tenant
 * (routing is off, or the tenant is a spare or Archived), so there is no condition and no URL.
 */
public record RoutingStatus(boolean applies, boolean routed, Reason reason, String message, List<String> urls) {

  public static final RoutingStatus NONE = new RoutingStatus(false, false, null, null, List.of());

  public RoutingStatus {
    urls = List.copyOf(urls);
  }

  public static RoutingStatus of(boolean routed, Reason reason, String message, List<String> urls) {
    return new RoutingStatus(true, routed, reason, message, urls);
  }
}
