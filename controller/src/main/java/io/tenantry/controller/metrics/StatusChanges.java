package io.tenantry.controller.metrics;

import io.fabric8.kubernetes.api.model.Condition;
import io.tenantry.api.v1alpha1.Tenant;
import io.tenantry.api.v1alpha1.TenantPhase;
import io.tenantry.api.v1alpha1.TenantStatus;
import io.tenantry.controller.status.Conditions;
import io.tenantry.controller.status.Reason;
import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * Pure: what a status write tells about a tenant, for the counters of what happened: its first
 * Ready, and the failures it starts reporting.
 */
public final class StatusChanges {

  /**
   * The reasons of the operator's vocabulary that report a failure, each under the condition that
   * carries it when False: Ready (the sync or the rollout failed), SecretsSynced (the store, its
   * key, or a template), Routed (a hostname held by another tenant, a route the Gateway refused). Progress (RollingOut,
   * NamespaceNotReady, ...) and intended states (Frozen, Archived) are not failures.
   */
  public static final Set<Reason> FAILURES = Set.copyOf(EnumSet.of(
      Reason.SyncFailed, Reason.WriteFailed, Reason.NamespaceTaken, Reason.UnknownPlan, Reason.RolloutTimedOut, Reason.MigrationFailed,
      Reason.PoolerRefused, Reason.TemplateSyncFailed, Reason.StoreUnavailable, Reason.KeyUnavailable, Reason.CorruptSecret,
      Reason.SecretConflict, Reason.TemplateSecretMissing, Reason.HostnameConflict, Reason.RouteRefused));

  private static final List<String> FAILING_CONDITIONS = List.of(Conditions.READY, Conditions.SECRETS_SYNCED, Conditions.ROUTED);

  private StatusChanges() {
  }

  /**
   * The time from the Tenant's creation to now, when {@code next} is its first Ready: it turns Ready
   * from Provisioning (or no status), the phase a tenant has until it first converges. A tenant
   * whose first rollout went Degraded before it became Ready is not counted.
   */
  public static Optional<Duration> firstReady(Tenant cached, TenantStatus next, Instant now) {
    TenantPhase before = cached.getStatus() == null ? null : cached.getStatus().getPhase();
    if (next.getPhase() != TenantPhase.Ready || (before != null && before != TenantPhase.Provisioning)) {
      return Optional.empty();
    }
    String created = cached.getMetadata().getCreationTimestamp();
    try {
      return created == null ? Optional.empty()
          : Optional.of(Duration.between(Instant.parse(created), now)).filter(d -> !d.isNegative());
    } catch (DateTimeParseException e) {
      return Optional.empty();
    }
  }

  /**
   * The failure reasons {@code next} reports that {@code previous} did not: a condition that turns
   * False for a reason of {@link #FAILURES}, or changes to another one. A failure repeated by the
   * retries of the same problem is reported once.
   */
  public static Set<Reason> newFailures(TenantStatus previous, TenantStatus next) {
    Set<Reason> reasons = EnumSet.noneOf(Reason.class);
    for (String type : FAILING_CONDITIONS) {
      failure(next, type).ifPresent(reason -> {
        if (failure(previous, type).filter(reason::equals).isEmpty()) {
          reasons.add(reason);
        }
      });
    }
    return reasons;
  }

  private static Optional<Reason> failure(TenantStatus status, String type) {
    if (status == null) {
      return Optional.empty();
    }
    return Conditions.find(status.getConditions(), type)
        .filter(c -> "False".equals(c.getStatus()))
        .map(Condition::getReason)
        .flatMap(StatusChanges::reason)
        .filter(FAILURES::contains);
  }

  private static Optional<Reason> reason(String name) {
    return Arrays.stream(Reason.values()).filter(r -> r.name().equals(name)).findFirst();
  }
}
