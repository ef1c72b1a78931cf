package io.tenantry.spares.allocation;

import io.tenantry.api.v1alpha1.Tenant;

/**
 * What the cluster's own operator does around this process's binds ({@link SpareCluster#bind}),
 * called on the signup's path: it must hand any I/O off.
 */
@FunctionalInterface
public interface BindListener {

  /** Another cluster's operator routes its own tenants: nothing to do here. */
  BindListener NONE = bound -> { };

  /**
   * The bind of {@code spare} (as cached) into {@code binding} (the Tenant the bind writes) is
   * about to be sent; work that would follow the bind may start alongside it. Returns what to do
   * when the spare ends up not bound by this bind (taken, changed, or the bind failed).
   */
  default Runnable binding(Tenant spare, Tenant binding) {
    return () -> { };
  }

  /** The spare is bound: {@code bound} is the Tenant as the API server stored it. */
  void bound(Tenant bound);
}
