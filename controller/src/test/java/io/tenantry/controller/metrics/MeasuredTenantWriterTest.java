package io.tenantry.controller.metrics;

import static io.tenantry.controller.metrics.Fleet.condition;
import static io.tenantry.controller.metrics.Fleet.tenant;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.client.KubernetesClientException;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.tenantry.api.v1alpha1.Tenant;
import io.tenantry.api.v1alpha1.TenantPhase;
import io.tenantry.api.v1alpha1.TenantState;
import io.tenantry.api.v1alpha1.TenantStatus;
import io.tenantry.controller.fakes.FakeCluster;
import io.tenantry.controller.fakes.Writes;
import io.tenantry.controller.status.Reason;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The statuses the operator writes → the first-Ready histogram and the failure counters on /metrics. */
class MeasuredTenantWriterTest {

  private static final Instant NOW = Instant.parse("2026-03-01T10:00:00Z");

  private final FakeCluster cluster = new FakeCluster();
  private final Writes writes = new Writes(cluster);
  private final PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
  private final MeasuredTenantWriter writer = new MeasuredTenantWriter(writes, registry, Clock.fixed(NOW, ZoneOffset.UTC));

  /** Writes {@code phase} with a Ready condition of {@code reason} as the operator would, on the cached Tenant. */
  private void write(String name, TenantPhase phase, boolean ready, String reason) {
    TenantStatus status = new TenantStatus();
    status.setPhase(phase);
    status.setConditions(new ArrayList<>(List.of(condition("Ready", ready, reason, NOW))));
    writer.writeStatus(cluster.tenant(name), status);
  }

  private Scrape scrape() {
    return new Scrape(registry.scrape());
  }

  @Test
  void aTenantsFirstReadyRecordsTheTimeSinceItsCreationAndLaterReadyPhasesDoNot() {
    cluster.putTenant(tenant("acme", TenantState.Active, null, "standard")); // created 09:00
    write("acme", TenantPhase.Provisioning, false, "NamespaceNotReady");
    write("acme", TenantPhase.Ready, true, "Converged");
    write("acme", TenantPhase.Progressing, false, "AppsNotReady");
    write("acme", TenantPhase.Ready, true, "Converged");

    Scrape scrape = scrape();
    assertThat(scrape.value("tenantry_tenant_first_ready_seconds_count")).isEqualTo(1);
    assertThat(scrape.value("tenantry_tenant_first_ready_seconds_sum")).isEqualTo(3600);
    assertThat(scrape.value("tenantry_tenant_first_ready_seconds_bucket", "le", "3600.0")).isEqualTo(1);
    assertThat(scrape.value("tenantry_tenant_first_ready_seconds_bucket", "le", "1800.0")).isZero();
  }

  @Test
  void failuresCountOnceWhenATenantStartsReportingThemByReasonAndEveryReasonStartsAtZero() {
    assertThat(scrape().samples("tenantry_sync_failures_total")).hasSize(StatusChanges.FAILURES.size())
        .allSatisfy(s -> assertThat(s.value()).isZero());

    cluster.putTenant(tenant("acme", TenantState.Active, TenantPhase.Ready, "standard"));
    write("acme", TenantPhase.Degraded, false, "SyncFailed");
    write("acme", TenantPhase.Degraded, false, "SyncFailed"); // the retry fails again
    write("acme", TenantPhase.Degraded, false, "RolloutTimedOut");
    write("acme", TenantPhase.Progressing, false, "AppsNotReady");

    Scrape scrape = scrape();
    assertThat(scrape.value("tenantry_sync_failures_total", "reason", Reason.SyncFailed.name())).isEqualTo(1);
    assertThat(scrape.value("tenantry_sync_failures_total", "reason", Reason.RolloutTimedOut.name())).isEqualTo(1);
    assertThat(scrape.sum("tenantry_sync_failures_total")).isEqualTo(2);
  }

  @Test
  void aWriteLostToAConflictCountsNothing() {
    Tenant stale = cluster.putTenant(tenant("acme", TenantState.Active, null, "standard"));
    cluster.putTenant(cluster.tenant("acme")); // changed meanwhile: a new resourceVersion
    TenantStatus ready = new TenantStatus();
    ready.setPhase(TenantPhase.Ready);

    assertThatThrownBy(() -> writer.writeStatus(stale, ready)).isInstanceOf(KubernetesClientException.class);
    assertThat(scrape().value("tenantry_tenant_first_ready_seconds_count")).isZero();
  }
}
