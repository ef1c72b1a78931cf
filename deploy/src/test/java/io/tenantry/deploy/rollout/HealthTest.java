package io.tenantry.deploy.rollout;

import static io.tenantry.deploy.rollout.Fixtures.tenant;
import static io.tenantry.deploy.rollout.Fixtures.withStatus;
import static org.assertj.core.api.Assertions.assertThat;

import io.tenantry.api.v1alpha1.Tenant;
import io.tenantry.api.v1alpha1.TenantPhase;
import io.tenantry.api.v1alpha1.TenantState;
import io.tenantry.deploy.rollout.TenantProgress.Step;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;

class HealthTest {

  private static final Instant APPLIED = Instant.parse("2026-03-01T10:00:00Z");
  private static final Duration TIMEOUT = Duration.ofMinutes(5);

  /** A tenant whose spec carries web=2.0.0 at generation 2. */
  private static Tenant rolled() {
    Tenant tenant = tenant("t", TenantState.Active, "web");
    tenant.getSpec().getApps().get(0).setVersion("2.0.0");
    tenant.getMetadata().setGeneration(2L);
    return tenant;
  }

  private static Health.Verdict at(Tenant tenant, Instant now) {
    return Health.of(tenant, "web", "2.0.0", 2, APPLIED, now, TIMEOUT);
  }

  @Test
  void theNewVersionReadyForTheWrittenGenerationSucceeds() {
    Tenant tenant = withStatus(rolled(), 2, TenantPhase.Ready, "web", "2.0.0", true, "ok");
    assertThat(at(tenant, APPLIED.plusSeconds(10)).step()).isEqualTo(Step.SUCCEEDED);
  }

  @Test
  void theOldVersionOrANotReadyAppIsStillRollingOut() {
    assertThat(at(withStatus(rolled(), 2, TenantPhase.Progressing, "web", "1.0.0", false, "waiting for apps web"),
        APPLIED.plusSeconds(10)).step()).isEqualTo(Step.APPLIED);
    assertThat(at(withStatus(rolled(), 2, TenantPhase.Progressing, "web", "2.0.0", false, "waiting"),
        APPLIED.plusSeconds(10)).step()).isEqualTo(Step.APPLIED);
  }

  @Test
  void aStatusOfAnOlderGenerationIsNotTrusted() {
    // Degraded before the write: not this rollout's failure.
    assertThat(at(withStatus(rolled(), 1, TenantPhase.Degraded, "web", "1.0.0", false, "old trouble"),
        APPLIED.plusSeconds(10)).step()).isEqualTo(Step.APPLIED);
  }

  @Test
  void degradedForTheWrittenGenerationFailsWithTheOperatorsMessage() {
    Health.Verdict verdict = at(withStatus(rolled(), 2, TenantPhase.Degraded, "web", "1.0.0", false,
        "not rolled out within 30s: waiting for apps web to roll out"), APPLIED.plusSeconds(40));
    assertThat(verdict.step()).isEqualTo(Step.FAILED);
    assertThat(verdict.detail()).isEqualTo("Degraded: not rolled out within 30s: waiting for apps web to roll out");
  }

  @Test
  void notReadyWithinTheTenantTimeoutFails() {
    Tenant tenant = withStatus(rolled(), 2, TenantPhase.Progressing, "web", "1.0.0", false, "waiting for apps web");
    assertThat(at(tenant, APPLIED.plus(TIMEOUT).minusSeconds(1)).step()).isEqualTo(Step.APPLIED);
    Health.Verdict late = at(tenant, APPLIED.plus(TIMEOUT));
    assertThat(late.step()).isEqualTo(Step.FAILED);
    assertThat(late.detail()).isEqualTo("not Ready on 2.0.0 within 300s (phase Progressing: waiting for apps web)");
  }

  @Test
  void aDeletedTenantOrAVersionChangedByOthersFails() {
    assertThat(at(null, APPLIED).detail()).isEqualTo("the tenant was deleted");
    Tenant changed = rolled();
    changed.getSpec().getApps().get(0).setVersion("1.0.1");
    assertThat(at(changed, APPLIED).detail()).isEqualTo("someone else set web to 1.0.1 meanwhile");
  }
}
