package io.tenantry.api;

import io.tenantry.api.v1alpha1.Tenant;
import io.tenantry.api.v1alpha1.TenantPhase;
import io.tenantry.api.v1alpha1.TenantState;
import io.tenantry.api.v1alpha1.TenantStatus;
import java.util.Collection;
import java.util.Comparator;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * What makes a Tenant a spare, for the SparePool controller and the allocation API alike: a
 * tenant labelled with its pool, still New and without a customer. A spare is Ready for
 * allocation once its status describes its current spec and reports phase Ready.
 */
public final class Spares {

  /** The order in which the allocation API takes a pool's Ready spares: the longest standing first, then by name. */
  public static final Comparator<Tenant> LONGEST_STANDING =
      Comparator.comparing((Tenant t) -> t.getMetadata().getCreationTimestamp()).thenComparing(t -> t.getMetadata().getName());

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
   * The names of the {@code count} Ready spares among {@code tenants} (a pool's) that the allocation
   * API takes next: the first in {@link #LONGEST_STANDING} order, in that order.
   */
  public static Set<String> nextInLine(Collection<Tenant> tenants, int count) {
    return tenants.stream().filter(Spares::isReady).sorted(LONGEST_STANDING).limit(count)
        .map(t -> t.getMetadata().getName()).collect(Collectors.toCollection(LinkedHashSet::new));
  }

  /**
   * Whether {@code spare} is Ready and among the {@code count} of its pool that the allocation API
   * takes next: fewer than {@code count} of the pool's other Ready spares ({@code tenants}, with or
   * without it) stand longer. The same answer as {@link #nextInLine}, for one spare, without sorting.
   */
  public static boolean isNextInLine(Tenant spare, Collection<Tenant> tenants, int count) {
    if (!isReady(spare)) {
      return false;
    }
    if (tenants.size() < count) {
      return true; // Fewer others than the line holds (every spare, by default): no need to count them.
    }
    String name = spare.getMetadata().getName();
    long ahead = tenants.stream()
        .filter(t -> !t.getMetadata().getName().equals(name) && isReady(t) && LONGEST_STANDING.compare(t, spare) < 0).count();
    return ahead < count;
  }

  /** How a bound tenant's URL comes to serve, as the operator routes it. */
  public enum Exposure {
    /** Routing off: no URL, the tenant serves once Ready. */
    NOT_ROUTED,
    /** Its route written and accepted (condition Routed), and its exposed Services opened. */
    ROUTED,
    /**
     * Its spare's route in place at the edge from the start, behind a gate that opens with the bind
     * ({@code routing.spareGate.mode: forwardAuth}): whether the edge serves is the edge's to tell.
     */
    EDGE_GATED
  }

  /**
   * Whether a bound tenant's URL serves, as far as its status tells: its observed state is the one
   * asked for, it is Ready at its current generation, and, when {@link Exposure#ROUTED}, its route
   * is written and not refused by the Gateway (condition Routed True). With
   * {@link Exposure#EDGE_GATED} the spare's Ready stands for the just-bound tenant too (its pods
   * served as the spare's, and the edge had its route): its first sync is not waited for, and the
   * edge tells the rest. The Gateway's own reload is not seen here.
   */
  public static boolean serving(Tenant tenant, Exposure exposure) {
    TenantStatus status = tenant.getStatus();
    if (status == null || tenant.getSpec() == null || status.getPhase() != TenantPhase.Ready) {
      return false;
    }
    if (exposure == Exposure.EDGE_GATED && justBound(tenant)) {
      return tenant.getSpec().getState() == TenantState.Active;
    }
    if (status.getObservedState() != tenant.getSpec().getState()
        || !tenant.getMetadata().getGeneration().equals(status.getObservedGeneration())) {
      return false;
    }
    return exposure != Exposure.ROUTED
        || status.getConditions().stream().anyMatch(c -> "Routed".equals(c.getType()) && "True".equals(c.getStatus()));
  }

  /**
   * Bound by the allocation API, and its allocation not yet marked as written to the fleet records:
   * that waits for signups to pause ({@link SignupPause}).
   */
  public static boolean unrecorded(Tenant tenant) {
    Map<String, String> annotations = tenant.getMetadata().getAnnotations();
    return annotations != null && annotations.containsKey(WellKnown.ALLOCATION_REQUEST)
        && !annotations.containsKey(WellKnown.ALLOCATION_RECORDED);
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
