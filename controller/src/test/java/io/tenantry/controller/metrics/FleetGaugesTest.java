package io.tenantry.controller.metrics;

import static io.tenantry.controller.metrics.Fleet.condition;
import static io.tenantry.controller.metrics.Fleet.degraded;
import static io.tenantry.controller.metrics.Fleet.pool;
import static io.tenantry.controller.metrics.Fleet.tenant;
import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.tenantry.api.v1alpha1.SparePool;
import io.tenantry.api.v1alpha1.Tenant;
import io.tenantry.api.v1alpha1.TenantPhase;
import io.tenantry.api.v1alpha1.TenantState;
import io.tenantry.controller.fakes.FakeCluster;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The cache holds these tenants and pools → /metrics shows these fleet gauges. */
class FleetGaugesTest {

  private static final Instant NOW = Instant.parse("2026-03-01T10:00:00Z");

  private final FakeCluster cluster = new FakeCluster();
  private final List<SparePool> pools = new ArrayList<>();
  private boolean synced = true;

  private Scrape scrape() {
    PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    new FleetGauges(cluster, () -> pools, () -> synced, Set.of("standard", "premium"), "tenant-", true, Clock.fixed(NOW, ZoneOffset.UTC))
        .registerWith(registry);
    return new Scrape(registry.scrape());
  }

  @Test
  void tenantsAreCountedByStatePhaseAndPlanWithUnknownPlansAndMissingStatusesNamedAsSuch() {
    cluster.putTenant(tenant("acme", TenantState.Active, TenantPhase.Ready, "standard"));
    cluster.putTenant(tenant("globex", TenantState.Active, TenantPhase.Ready, "standard"));
    cluster.putTenant(tenant("initech", TenantState.Active, TenantPhase.Progressing, "premium"));
    cluster.putTenant(tenant("umbrella", TenantState.Active, null, "standard"));
    cluster.putTenant(tenant("hooli", TenantState.Frozen, TenantPhase.Frozen, "platinum-typo"));

    Scrape scrape = scrape();

    assertThat(scrape.value("tenantry_tenants", "phase", "Ready", "plan", "standard", "state", "Active")).isEqualTo(2);
    assertThat(scrape.value("tenantry_tenants", "phase", "Progressing", "plan", "premium", "state", "Active")).isEqualTo(1);
    assertThat(scrape.value("tenantry_tenants", "phase", "Unknown", "plan", "standard", "state", "Active")).isEqualTo(1);
    assertThat(scrape.value("tenantry_tenants", "phase", "Frozen", "plan", "unknown", "state", "Frozen")).isEqualTo(1);
    assertThat(scrape.samples("tenantry_tenants")).hasSize(4);
    assertThat(scrape.sum("tenantry_tenants", "phase", "Degraded")).isZero();
  }

  @Test
  void theLongestDegradedTenantCountsFromItsReadyConditionTurningFalse() {
    cluster.putTenant(tenant("acme", TenantState.Active, TenantPhase.Ready, "standard"));
    assertThat(scrape().value("tenantry_tenants_degraded_longest_seconds")).isZero();

    cluster.putTenant(degraded("globex", NOW.minus(Duration.ofMinutes(10))));
    cluster.putTenant(degraded("initech", NOW.minus(Duration.ofMinutes(45))));

    Scrape scrape = scrape();
    assertThat(scrape.value("tenantry_tenants_degraded_longest_seconds")).isEqualTo(2700);
    assertThat(scrape.value("tenantry_tenants", "phase", "Degraded", "plan", "standard", "state", "Active")).isEqualTo(2);
  }

  @Test
  void aPurgeThatKeepsFailingCountsAsDegradedButOneUnderWayDoesNot() {
    Tenant failing = tenant("globex", TenantState.Purged, TenantPhase.Purging, "standard");
    failing.getStatus().setConditions(new ArrayList<>(List.of(condition("Ready", false, "SyncFailed", NOW.minus(Duration.ofMinutes(40))))));
    Tenant underWay = tenant("initech", TenantState.Purged, TenantPhase.Purging, "standard");
    underWay.getStatus().setConditions(new ArrayList<>(List.of(condition("Ready", false, "Purging", NOW.minus(Duration.ofMinutes(50))))));
    cluster.putTenant(underWay);
    assertThat(scrape().value("tenantry_tenants_degraded_longest_seconds")).isZero();

    cluster.putTenant(failing);
    assertThat(scrape().value("tenantry_tenants_degraded_longest_seconds")).isEqualTo(2400);
  }

  @Test
  void eachPoolReportsWhatItsStatusCountsAndItsBufferAndANewPoolZeros() {
    pools.add(pool("default", 3, 1, 2, 7));
    pools.add(pool("enterprise", 2, null, 0, 0)); // Created a moment ago: no status yet.

    Scrape scrape = scrape();

    assertThat(scrape.value("tenantry_sparepool_spares", "pool", "default", "status", "ready")).isEqualTo(1);
    assertThat(scrape.value("tenantry_sparepool_spares", "pool", "default", "status", "provisioning")).isEqualTo(2);
    assertThat(scrape.value("tenantry_sparepool_spares", "pool", "default", "status", "allocated")).isEqualTo(7);
    assertThat(scrape.value("tenantry_sparepool_buffer", "pool", "default")).isEqualTo(3);
    assertThat(scrape.value("tenantry_sparepool_spares", "pool", "enterprise", "status", "ready")).isZero();
    assertThat(scrape.value("tenantry_sparepool_buffer", "pool", "enterprise")).isEqualTo(2);
  }

  @Test
  void aReplicaWhoseCacheHasNotSyncedReportsNoFleetFiguresRatherThanAnEmptyFleet() {
    cluster.putTenant(tenant("acme", TenantState.Active, TenantPhase.Ready, "standard"));
    pools.add(pool("default", 3, 3, 0, 0));
    synced = false;

    assertThat(scrape().names()).noneMatch(name -> name.startsWith("tenantry_tenants") || name.startsWith("tenantry_sparepool"));
  }

  @Test
  void everyFamilyHasHelpText() {
    cluster.putTenant(tenant("acme", TenantState.Active, TenantPhase.Ready, "standard"));
    pools.add(pool("default", 3, 3, 0, 0));
    PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    new FleetGauges(cluster, () -> pools, () -> true, Set.of("standard"), "tenant-", true, Clock.systemUTC()).registerWith(registry);

    String text = registry.scrape();

    for (String family : List.of("tenantry_tenants", "tenantry_tenants_degraded_longest_seconds", "tenantry_tenants_template_skew",
        "tenantry_sparepool_spares", "tenantry_sparepool_buffer")) {
      assertThat(text).contains("# TYPE " + family + " gauge\n").containsPattern("# HELP " + family + " \\S");
    }
  }
}
