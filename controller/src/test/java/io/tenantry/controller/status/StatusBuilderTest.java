package io.tenantry.controller.status;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Namespace;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.DeploymentBuilder;
import io.fabric8.kubernetes.api.model.autoscaling.v2.HorizontalPodAutoscaler;
import io.tenantry.api.v1alpha1.AppSpec;
import io.tenantry.api.v1alpha1.AutoscalingSpec;
import io.tenantry.api.v1alpha1.Tenant;
import io.tenantry.api.v1alpha1.TenantPhase;
import io.tenantry.api.v1alpha1.TenantSpec;
import io.tenantry.api.v1alpha1.TenantState;
import io.tenantry.api.v1alpha1.TenantStatus;
import io.tenantry.controller.autoscaling.Autoscaling;
import io.tenantry.controller.config.OperatorConfig;
import io.tenantry.controller.config.Plan;
import io.tenantry.controller.resources.Labels;
import io.tenantry.controller.resources.Workloads;
import java.util.Map;
import org.junit.jupiter.api.Test;

class StatusBuilderTest {

  private static final Namespace NS = new NamespaceBuilder().withNewMetadata().withName("tenant-acme").endMetadata().build();

  private static Tenant tenant(String version) {
    Tenant tenant = new Tenant();
    tenant.getMetadata().setName("acme");
    tenant.getMetadata().setGeneration(3L);
    TenantSpec spec = new TenantSpec();
    spec.setState(TenantState.Active);
    spec.getApps().add(new AppSpec("web", "registry.example.com/web", version, 2, 8080));
    tenant.setSpec(spec);
    return tenant;
  }

  private static Deployment deployment(String version, long generation, long observed, int updated, int available) {
    return new DeploymentBuilder()
        .withNewMetadata().withName("app-web").withGeneration(generation).endMetadata()
        .withNewSpec().withReplicas(2).withNewTemplate().withNewMetadata().withLabels(Map.of(Labels.VERSION, version))
        .endMetadata().endTemplate().endSpec()
        .withNewStatus().withObservedGeneration(observed).withReplicas(2).withUpdatedReplicas(updated)
        .withAvailableReplicas(available).endStatus()
        .build();
  }

  private static TenantStatus build(Tenant tenant, Deployment deployment, String now) {
    return StatusBuilder.provisioned(tenant, "tenant-acme",
        new StatusBuilder.Observed(NS, Map.of("web", deployment), Map.of()), Workloads.RUNNING,
        new SecretsStatus(true, Reason.Synced, "0 template secrets and 0 database credentials in place", "abc123"), now);
  }

  @Test
  void aTenantIsReadyOnceEveryWorkloadIsRolledOut() {
    TenantStatus status = build(tenant("1.0"), deployment("1.0", 1, 1, 2, 2), "2026-01-01T00:00:00Z");
    assertThat(status.getPhase()).isEqualTo(TenantPhase.Ready);
    assertThat(status.getVersions()).isEqualTo("web=1.0");
    assertThat(status.getObservedGeneration()).isEqualTo(3L);
    assertThat(status.getConditions()).extracting(c -> c.getType() + "=" + c.getStatus())
        .containsExactly("Ready=True", "NamespaceReady=True", "SecretsSynced=True", "DatabasesReady=True", "AppsReady=True");
    assertThat(status.getSecretsVersion()).isEqualTo("abc123");
  }

  @Test
  void theStatusKeepsTheOldVersionUntilTheNewOneIsAvailable() {
    Tenant tenant = tenant("2.0");
    tenant.setStatus(build(tenant("1.0"), deployment("1.0", 1, 1, 2, 2), "2026-01-01T00:00:00Z"));

    TenantStatus rolling = build(tenant, deployment("2.0", 2, 2, 1, 2), "2026-01-01T00:01:00Z");
    assertThat(rolling.getPhase()).isEqualTo(TenantPhase.Progressing);
    assertThat(rolling.getVersions()).isEqualTo("web=1.0");
    assertThat(rolling.getConditions().get(0).getMessage()).isEqualTo("waiting for apps web to roll out");

    TenantStatus notObserved = build(tenant, deployment("2.0", 2, 1, 2, 2), "2026-01-01T00:01:00Z");
    assertThat(notObserved.getVersions()).as("a generation the controller has not observed is not rolled out").isEqualTo("web=1.0");

    tenant.setStatus(rolling);
    TenantStatus done = build(tenant, deployment("2.0", 2, 2, 2, 2), "2026-01-01T00:02:00Z");
    assertThat(done.getVersions()).isEqualTo("web=2.0");
    assertThat(done.getPhase()).isEqualTo(TenantPhase.Ready);
  }

  @Test
  void aConditionsTransitionTimeChangesOnlyWithItsStatus() {
    Tenant tenant = tenant("1.0");
    tenant.setStatus(build(tenant, deployment("1.0", 1, 1, 2, 2), "2026-01-01T00:00:00Z"));
    TenantStatus later = build(tenant, deployment("1.0", 1, 1, 2, 2), "2026-01-01T05:00:00Z");
    assertThat(later).as("an unchanged tenant gives an equal status: no write").isEqualTo(tenant.getStatus());

    TenantStatus broken = build(tenant, deployment("1.0", 1, 1, 2, 1), "2026-01-01T06:00:00Z");
    assertThat(broken.getConditions().get(0).getLastTransitionTime()).isEqualTo("2026-01-01T06:00:00Z");
    assertThat(broken.getConditions().get(1).getLastTransitionTime()).isEqualTo("2026-01-01T00:00:00Z");
  }

  @Test
  void aSecretsFailureKeepsTheLastVersionAndDoesNotMakeTheTenantUnready() {
    Tenant tenant = tenant("1.0");
    tenant.setStatus(build(tenant, deployment("1.0", 1, 1, 2, 2), "2026-01-01T00:00:00Z"));
    TenantStatus failed = StatusBuilder.provisioned(tenant, "tenant-acme",
        new StatusBuilder.Observed(NS, Map.of("web", deployment("1.0", 1, 1, 2, 2)), Map.of()), Workloads.RUNNING,
        SecretsStatus.failed(Reason.StoreUnavailable, "secret store bucket b unreachable"), "2026-01-01T01:00:00Z");
    assertThat(failed.getPhase()).isEqualTo(TenantPhase.Ready);
    assertThat(failed.getSecretsVersion()).isEqualTo("abc123");
    assertThat(failed.getConditions().get(2)).satisfies(c -> {
      assertThat(c.getType()).isEqualTo("SecretsSynced");
      assertThat(c.getStatus()).isEqualTo("False");
      assertThat(c.getReason()).isEqualTo("StoreUnavailable");
      assertThat(c.getMessage()).isEqualTo("secret store bucket b unreachable");
    });
  }

  @Test
  void enteringAStateStampsItsTimeOnce() {
    Tenant tenant = tenant("1.0");
    TenantStatus first = StatusBuilder.enteredState(tenant, new TenantStatus(), "2026-01-01T00:00:00Z");
    assertThat(first.getObservedState()).isEqualTo(TenantState.Active);
    assertThat(first.getStateTimestamps().getActiveAt()).isEqualTo("2026-01-01T00:00:00Z");
    assertThat(StatusBuilder.enteredState(tenant, first, "2026-01-02T00:00:00Z")).isSameAs(first);

    tenant.getSpec().setState(TenantState.Frozen);
    TenantStatus frozen = StatusBuilder.enteredState(tenant, first, "2026-01-03T00:00:00Z");
    assertThat(frozen.getStateTimestamps().getFrozenAt()).isEqualTo("2026-01-03T00:00:00Z");
    assertThat(frozen.getStateTimestamps().getActiveAt()).isEqualTo("2026-01-01T00:00:00Z");
  }

  @Test
  void aFailedSyncMakesATenantDegradedButAFailedPurgeStaysPurging() {
    Tenant active = tenant("1.0");
    assertThat(StatusBuilder.failed(active, Reason.SyncFailed, "boom", "2026-01-01T00:00:00Z").getPhase())
        .isEqualTo(TenantPhase.Degraded);

    Tenant purging = tenant("1.0");
    purging.getSpec().setState(TenantState.Purged);
    purging.setStatus(new TenantStatus());
    purging.getStatus().setPhase(TenantPhase.Purging);
    TenantStatus failed = StatusBuilder.failed(purging, Reason.SyncFailed, "secret store bucket b unreachable", "2026-01-01T00:00:00Z");
    assertThat(failed.getPhase()).isEqualTo(TenantPhase.Purging);
    assertThat(failed.getConditions()).filteredOn(c -> "Ready".equals(c.getType())).singleElement()
        .satisfies(c -> assertThat(c.getMessage()).isEqualTo("secret store bucket b unreachable"));
  }

  @Test
  void aRestoreThatFailedMakesTheTenantItHoldsBackDegradedWhileOneUnderWayDoesNot() {
    Tenant tenant = tenant("1.0");
    String now = "2026-01-01T00:00:00Z";
    TenantStatus waiting = StatusBuilder.provisioned(tenant, "tenant-acme", new StatusBuilder.Observed(NS, Map.of(), Map.of()),
        Workloads.RESTORING, new SecretsStatus(true, Reason.Synced, "in place", "abc123"), now);

    TenantStatus running = StatusBuilder.withBackups(waiting, tenant, Map.of(), null, null,
        new Verdict("False", Reason.Restoring, "main restores from 20260101T000000Z"), null, null, null, now);
    assertThat(running.getPhase()).isEqualTo(TenantPhase.Progressing);

    TenantStatus failed = StatusBuilder.withBackups(waiting, tenant, Map.of(), null, null,
        new Verdict("False", Reason.RestoreFailed, "main: the backup's object does not match its manifest"), null, null, null, now);
    assertThat(failed.getPhase()).isEqualTo(TenantPhase.Degraded);
    assertThat(failed.getConditions()).filteredOn(c -> Conditions.READY.equals(c.getType())).singleElement().satisfies(c -> {
      assertThat(c.getReason()).isEqualTo("RestoreFailed");
      assertThat(c.getMessage()).isEqualTo(
          "the apps wait for a restore that failed: main: the backup's object does not match its manifest");
    });
    assertThat(failed.getConditions()).filteredOn(c -> Conditions.RESTORED.equals(c.getType())).singleElement()
        .satisfies(c -> assertThat(c.getReason()).isEqualTo("RestoreFailed"));
  }

  @Test
  void autoscaledAppsShowTheirBoundsAndAClampByThePlanIsAFalseAutoscaledCondition() {
    Tenant tenant = tenant("1.0");
    tenant.getSpec().getApps().get(0).setReplicas(null);
    tenant.getSpec().getApps().get(0).setAutoscaling(new AutoscalingSpec(1, 8, 70));
    String now = "2026-01-01T00:00:00Z";
    Plan small = OperatorConfig.defaults().plans().get("standard").withMaxReplicasPerApp(3);
    HorizontalPodAutoscaler hpa = Autoscaling.horizontalPodAutoscaler(new ObjectMetaBuilder().withName("app-web").build(),
        "app-web", Autoscaling.bounds(tenant.getSpec().getApps().get(0), small).orElseThrow());
    StatusBuilder.Observed observed = new StatusBuilder.Observed(NS, Map.of("web", deployment("1.0", 1, 1, 2, 2)), Map.of(),
        Map.of(), Map.of("web", hpa));
    TenantStatus status = StatusBuilder.withAutoscaling(build(tenant, deployment("1.0", 1, 1, 2, 2), now), tenant, small,
        observed, now);

    assertThat(status.getReplicas()).isEqualTo("web=2 (1-3)");
    assertThat(status.getConditions()).filteredOn(c -> Conditions.AUTOSCALED.equals(c.getType())).singleElement()
        .satisfies(c -> {
          assertThat(c.getStatus()).isEqualTo("False");
          assertThat(c.getReason()).isEqualTo("ClampedByPlan");
          assertThat(c.getMessage()).isEqualTo("web: maxReplicas 8 is above the plan's 3, its HPA scales 1-3");
        });

    Plan standard = OperatorConfig.defaults().plans().get("standard");
    assertThat(StatusBuilder.withAutoscaling(build(tenant, deployment("1.0", 1, 1, 2, 2), now), tenant, standard, observed, now)
        .getConditions()).filteredOn(c -> Conditions.AUTOSCALED.equals(c.getType())).singleElement()
        .satisfies(c -> assertThat(c.getMessage()).isEqualTo("scaled by their HPA: web 1-8 at 70% CPU"));
    assertThat(StatusBuilder.withAutoscaling(build(tenant("1.0"), deployment("1.0", 1, 1, 2, 2), now), tenant("1.0"), standard,
        new StatusBuilder.Observed(NS, Map.of("web", deployment("1.0", 1, 1, 2, 2)), Map.of()), now).getConditions())
        .as("no autoscaled app, no condition").noneMatch(c -> Conditions.AUTOSCALED.equals(c.getType()));
  }
}
