package io.tenantry.api;

import io.tenantry.api.v1alpha1.Tenant;
import io.tenantry.api.v1alpha1.TenantPhase;
import io.tenantry.api.v1alpha1.TenantState;
import java.util.Map;

/**
 * What makes a Tenant a spare, for the SparePool controller and the allocation API alike: a
 * tenant labelled with its pool, still New and without a customer. A spare is Ready for
 * allocation once its status describes its current spec and reports phase Ready.
 */
public final class Spares {

  private Spares() {
  }

  /** The pool the tenant was built for, or null when it is no spare. */
  public static String pool(Tenant tenant) {
    Map<String, String> labels = tenant.getMetadata().getLabels();
    return labels == null ? null : labels.get(WellKnown.SPARE_POOL);
  }

  /** A spare of some pool that no customer holds yet and that is not being deleted. */
  public static boolean isUnallocated(Tenant tenant) {
    return pool(tenant) != null && tenant.getSpec() != null && tenant.getSpec().getState() == TenantState.New
        && tenant.getSpec().getOrganization() == null && tenant.getMetadata().getDeletionTimestamp() == null;
  }

  /** Unallocated, and its status reports Ready for the spec as it is now. */
  public static boolean isReady(Tenant tenant) {
    return isUnallocated(tenant) && tenant.getStatus() != null && tenant.getStatus().getPhase() == TenantPhase.Ready
        && tenant.getStatus().getObservedGeneration() != null
        && tenant.getStatus().getObservedGeneration().equals(tenant.getMetadata().getGeneration());
  }

  /**
   * Bound to a customer by the allocation API, and not yet reported as such: the tenant's first
   * sync after the bind has not run yet.
   */
  public static boolean justBound(Tenant tenant) {
    Map<String, String> annotations = tenant.getMetadata().getAnnotations();
    return annotations != null && annotations.containsKey(WellKnown.ALLOCATION_REQUEST)
        && tenant.getSpec() != null && tenant.getSpec().getState() != TenantState.New
        && tenant.getStatus() != null && tenant.getStatus().getObservedState() == TenantState.New;
  }
}
