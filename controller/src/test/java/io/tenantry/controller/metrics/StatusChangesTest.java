package io.tenantry.controller.metrics;

import static io.tenantry.controller.metrics.Fleet.condition;
import static io.tenantry.controller.metrics.Fleet.tenant;
import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Condition;
import io.tenantry.api.v1alpha1.Tenant;
import io.tenantry.api.v1alpha1.TenantPhase;
import io.tenantry.api.v1alpha1.TenantState;
import io.tenantry.api.v1alpha1.TenantStatus;
import io.tenantry.controller.status.Reason;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** What a status write tells: a first Ready, and the failures it starts reporting. */
class StatusChangesTest {

  private static final Instant NOW = Instant.parse("2026-03-01T10:00:00Z");

  private static TenantStatus status(TenantPhase phase, Condition... conditions) {
    TenantStatus status = new TenantStatus();
    status.setPhase(phase);
    status.setConditions(new ArrayList<>(List.of(conditions)));
    return status;
  }

  private static Condition failed(String type, Reason reason) {
    return condition(type, false, reason.name(), NOW);
  }

  @Test
  void theFirstReadyIsTheOneAfterProvisioningOrNoStatusTimedFromCreation() {
    Tenant created = tenant("acme", TenantState.Active, null, "standard"); // created 09:00
    Tenant provisioning = tenant("acme", TenantState.Active, TenantPhase.Provisioning, "standard");

    assertThat(StatusChanges.firstReady(created, status(TenantPhase.Ready), NOW)).contains(Duration.ofHours(1));
    assertThat(StatusChanges.firstReady(provisioning, status(TenantPhase.Ready), NOW)).contains(Duration.ofHours(1));
    assertThat(StatusChanges.firstReady(provisioning, status(TenantPhase.Provisioning), NOW)).isEmpty();
  }

  @Test
  void readyAgainAfterARolloutOrAFailureIsNotAFirstReady() {
    for (TenantPhase before : List.of(TenantPhase.Ready, TenantPhase.Progressing, TenantPhase.Degraded, TenantPhase.Frozen)) {
      assertThat(StatusChanges.firstReady(tenant("acme", TenantState.Active, before, "standard"), status(TenantPhase.Ready), NOW))
          .as("Ready after %s", before).isEmpty();
    }
  }

  @Test
  void aFailureIsNewWhenItsConditionTurnsFalseForItOrChangesReason() {
    TenantStatus ready = status(TenantPhase.Ready, condition("Ready", true, "Converged", NOW));
    TenantStatus syncFailed = status(TenantPhase.Degraded, failed("Ready", Reason.SyncFailed));
    TenantStatus timedOut = status(TenantPhase.Degraded, failed("Ready", Reason.RolloutTimedOut));

    assertThat(StatusChanges.newFailures(ready, syncFailed)).containsExactly(Reason.SyncFailed);
    assertThat(StatusChanges.newFailures(null, syncFailed)).containsExactly(Reason.SyncFailed);
    assertThat(StatusChanges.newFailures(syncFailed, syncFailed)).as("a retry of the same failure").isEmpty();
    assertThat(StatusChanges.newFailures(syncFailed, timedOut)).containsExactly(Reason.RolloutTimedOut);
    assertThat(StatusChanges.newFailures(syncFailed, ready)).isEmpty();
  }

  @Test
  void secretsAndRoutingFailuresCountAndProgressDoesNot() {
    TenantStatus progressing = status(TenantPhase.Progressing, failed("Ready", Reason.AppsNotReady),
        failed("SecretsSynced", Reason.StoreUnavailable), failed("Routed", Reason.HostnameConflict));

    assertThat(StatusChanges.newFailures(status(TenantPhase.Ready), progressing))
        .containsExactlyInAnyOrder(Reason.StoreUnavailable, Reason.HostnameConflict);
    assertThat(StatusChanges.newFailures(status(TenantPhase.Provisioning), status(TenantPhase.Frozen, failed("Ready", Reason.Frozen))))
        .isEmpty();
  }
}
