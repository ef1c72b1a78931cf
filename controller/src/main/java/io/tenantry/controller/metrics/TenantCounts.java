package io.tenantry.controller.metrics;

import io.fabric8.kubernetes.api.model.Condition;
import io.tenantry.api.v1alpha1.Tenant;
import io.tenantry.api.v1alpha1.TenantPhase;
import io.tenantry.api.v1alpha1.TenantState;
import io.tenantry.controller.status.Conditions;
import io.tenantry.controller.status.Reason;
import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.Collection;
import java.util.Comparator;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;

/**
 * Pure: the fleet's tenants as an SRE first asks about them, from the Tenants the cache holds:
 * how many in each state, phase and plan, and for how long the longest-Degraded one has been so.
 */
public final class TenantCounts {

  /** The phase of a tenant the operator has not written a status for yet. */
  public static final String NO_PHASE = "Unknown";
  /**
   * The plan of a tenant naming a plan the operator's configuration lacks (it reports
   * {@code UnknownPlan}): any string a user types would otherwise become a series.
   */
  public static final String UNKNOWN_PLAN = "unknown";

  /** One combination of labels of {@code tenantry_tenants}. */
  public record Key(String state, String phase, String plan) {
  }

  private static final Comparator<Key> ORDER = Comparator.comparing(Key::state).thenComparing(Key::phase)
      .thenComparing(Key::plan);

  private TenantCounts() {
  }

  /**
   * Tenants counted by {@code spec.state}, {@code status.phase} ({@link #NO_PHASE} before the first
   * status) and {@code spec.plan} ({@link #UNKNOWN_PLAN} for one not in {@code plans}). Only the
   * combinations some tenant has are present.
   */
  public static Map<Key, Long> byStatePhasePlan(Collection<Tenant> tenants, Set<String> plans) {
    Map<Key, Long> counts = new TreeMap<>(ORDER);
    for (Tenant tenant : tenants) {
      counts.merge(key(tenant, plans), 1L, Long::sum);
    }
    return counts;
  }

  /**
   * How long the tenant longest in phase Degraded has not been Ready: since its Ready condition
   * turned False (a rollout that went Degraded counts from its start). A purge whose sync fails
   * (a store is down) stays Purging but counts too: it is as stuck. Zero when none is.
   */
  public static Duration longestDegraded(Collection<Tenant> tenants, Instant now) {
    Duration longest = Duration.ZERO;
    for (Tenant tenant : tenants) {
      Optional<Condition> ready = tenant.getStatus() == null ? Optional.empty()
          : Conditions.find(tenant.getStatus().getConditions(), Conditions.READY);
      boolean failingPurge = tenant.getStatus() != null && tenant.getStatus().getPhase() == TenantPhase.Purging
          && ready.map(c -> Reason.SyncFailed.name().equals(c.getReason())).orElse(false);
      if (tenant.getStatus() == null || tenant.getStatus().getPhase() != TenantPhase.Degraded && !failingPurge) {
        continue;
      }
      Instant since = ready.map(TenantCounts::transition).orElse(now);
      Duration degraded = Duration.between(since, now);
      if (degraded.compareTo(longest) > 0) {
        longest = degraded;
      }
    }
    return longest;
  }

  private static Key key(Tenant tenant, Set<String> plans) {
    TenantState state = tenant.getSpec() == null || tenant.getSpec().getState() == null ? TenantState.New
        : tenant.getSpec().getState();
    TenantPhase phase = tenant.getStatus() == null ? null : tenant.getStatus().getPhase();
    String plan = tenant.getSpec() == null ? null : tenant.getSpec().getPlan();
    return new Key(state.name(), phase == null ? NO_PHASE : phase.name(), plan != null && plans.contains(plan) ? plan : UNKNOWN_PLAN);
  }

  /** When the condition last changed; an unreadable time counts as now (Degraded for zero seconds). */
  private static Instant transition(Condition condition) {
    try {
      return condition.getLastTransitionTime() == null ? null : Instant.parse(condition.getLastTransitionTime());
    } catch (DateTimeParseException e) {
      return null;
    }
  }
}
