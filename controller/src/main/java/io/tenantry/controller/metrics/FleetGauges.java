package io.tenantry.controller.metrics;

import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.prometheus.metrics.model.registry.MultiCollector;
import io.prometheus.metrics.model.snapshots.GaugeSnapshot;
import io.prometheus.metrics.model.snapshots.GaugeSnapshot.GaugeDataPointSnapshot;
import io.prometheus.metrics.model.snapshots.Labels;
import io.prometheus.metrics.model.snapshots.MetricSnapshots;
import io.prometheus.metrics.model.snapshots.Unit;
import io.tenantry.api.v1alpha1.SparePool;
import io.tenantry.api.v1alpha1.Tenant;
import io.tenantry.controller.cache.ClusterView;
import java.time.Clock;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

/**
 * The fleet's gauges, computed from the informer cache each time {@code /metrics} is scraped:
 * nothing is counted in between, so nothing can drift, and a scrape makes no API call.
 *
 * <ul>
 *   <li>{@code tenantry_tenants{state,phase,plan}}: tenants by {@code spec.state},
 *       {@code status.phase} and {@code spec.plan} ({@link TenantCounts}).</li>
 *   <li>{@code tenantry_tenants_degraded_longest_seconds}: how long the longest-Degraded tenant has
 *       not been Ready.</li>
 *   <li>{@code tenantry_tenants_template_skew}: tenants not on the current template secrets ({@link TemplateSkew}).</li>
 *   <li>{@code tenantry_sparepool_spares{pool,status}}, {@code status} one of ready, provisioning,
 *       allocated; and {@code tenantry_sparepool_buffer{pool}} ({@link PoolCounts}).</li>
 *   <li>{@code tenantry_backups_stale} and {@code tenantry_backups_oldest_seconds}: Active tenants'
 *       databases without a recent proven backup, and the oldest such age ({@link BackupAges}); 0
 *       when backups are off.</li>
 *   <li>{@code tenantry_restore_drills_failing}: databases whose newest restore drill failed.</li>
 * </ul>
 *
 * <p>A replica that does not lead has not started its informers: it reports none of these (rather
 * than an empty fleet), so that the leader's figures are the only ones.
 */
public final class FleetGauges implements MultiCollector {

  private final ClusterView cache;
  private final Supplier<List<SparePool>> pools;
  private final BooleanSupplier synced;
  private final Set<String> plans;
  private final String namespacePrefix;
  private final boolean backups;
  private final Clock clock;

  /**
   * @param pools every SparePool the cache holds
   * @param synced whether the cache has listed everything (false on a replica that does not lead)
   * @param plans the plans of the operator's configuration: the only values of the plan label
   * @param namespacePrefix a tenant's namespace is this plus its name
   * @param backups whether the operator backs up (backups.enabled)
   */
  public FleetGauges(ClusterView cache, Supplier<List<SparePool>> pools, BooleanSupplier synced, Set<String> plans,
      String namespacePrefix, boolean backups, Clock clock) {
    this.cache = cache;
    this.pools = pools;
    this.synced = synced;
    this.plans = Set.copyOf(plans);
    this.namespacePrefix = namespacePrefix;
    this.backups = backups;
    this.clock = clock;
  }

  /** Serves these gauges from {@code registry}'s scrape, beside its Micrometer meters. */
  public void registerWith(PrometheusMeterRegistry registry) {
    registry.getPrometheusRegistry().register(this);
  }

  @Override
  public MetricSnapshots collect() {
    if (!synced.getAsBoolean()) {
      return MetricSnapshots.of();
    }
    List<Tenant> tenants = cache.tenantNames().stream().map(cache::tenant).filter(Objects::nonNull).toList();
    List<PoolCounts> poolCounts = pools.get().stream().map(PoolCounts::of).toList();
    return MetricSnapshots.of(
        tenants(TenantCounts.byStatePhasePlan(tenants, plans)),
        gauge("tenantry_tenants_degraded_longest_seconds", "How long the tenant longest in phase Degraded (or Purging "
            + "with a failed sync) has not been Ready (since its Ready condition turned False); 0 when none is", Unit.SECONDS)
            .dataPoint(point(TenantCounts.longestDegraded(tenants, clock.instant()).toMillis() / 1000.0, Labels.EMPTY)).build(),
        gauge("tenantry_tenants_template_skew", "Tenants whose namespace lacks a template Secret or holds a copy at "
            + "another version than the template namespace (refreshed from the secret store)", null)
            .dataPoint(point(TemplateSkew.tenantsBehind(cache, tenants, namespacePrefix), Labels.EMPTY)).build(),
        spares(poolCounts),
        buffers(poolCounts),
        gauge("tenantry_backups_stale", "Active tenants' databases (those that keep data) whose newest proven backup"
            + " is older than 26 h, or that have none and a tenant older than that; 0 when backups are off", null)
            .dataPoint(point(backups ? BackupAges.stale(tenants, clock.instant()) : 0, Labels.EMPTY)).build(),
        gauge("tenantry_backups_oldest_seconds", "Age of the oldest newest-proven-backup over Active tenants' databases"
            + " (a database without one counts from its tenant's creation); 0 when backups are off", Unit.SECONDS)
            .dataPoint(point(backups ? BackupAges.oldest(tenants, clock.instant()).toSeconds() : 0, Labels.EMPTY)).build(),
        gauge("tenantry_restore_drills_failing", "Databases of Active and Frozen tenants whose newest restore drill"
            + " failed (the backup did not restore, its counts differ, or the drill could not run)", null)
            .dataPoint(point(BackupAges.drillsFailing(tenants), Labels.EMPTY)).build());
  }

  private static GaugeSnapshot tenants(Map<TenantCounts.Key, Long> counts) {
    GaugeSnapshot.Builder gauge = gauge("tenantry_tenants", "Tenants by spec.state, status.phase (Unknown before the "
        + "first status) and spec.plan (unknown for a plan the operator does not have)", null);
    counts.forEach((key, count) -> gauge.dataPoint(point(count, Labels.of("state", key.state(), "phase", key.phase(),
        "plan", key.plan()))));
    return gauge.build();
  }

  private static GaugeSnapshot spares(List<PoolCounts> pools) {
    GaugeSnapshot.Builder gauge = gauge("tenantry_sparepool_spares", "Tenants of each SparePool, as its status counts "
        + "them: ready (Ready and unallocated), provisioning (being built) and allocated (bound to a customer)", null);
    for (PoolCounts pool : pools) {
      gauge.dataPoint(point(pool.ready(), Labels.of("pool", pool.pool(), "status", "ready")));
      gauge.dataPoint(point(pool.provisioning(), Labels.of("pool", pool.pool(), "status", "provisioning")));
      gauge.dataPoint(point(pool.allocated(), Labels.of("pool", pool.pool(), "status", "allocated")));
    }
    return gauge.build();
  }

  private static GaugeSnapshot buffers(List<PoolCounts> pools) {
    GaugeSnapshot.Builder gauge = gauge("tenantry_sparepool_buffer", "Ready spares each SparePool is to keep (spec.buffer)", null);
    pools.forEach(pool -> gauge.dataPoint(point(pool.buffer(), Labels.of("pool", pool.pool()))));
    return gauge.build();
  }

  private static GaugeSnapshot.Builder gauge(String name, String help, Unit unit) {
    GaugeSnapshot.Builder gauge = GaugeSnapshot.builder().name(name).help(help);
    return unit == null ? gauge : gauge.unit(unit);
  }

  private static GaugeDataPointSnapshot point(double value, Labels labels) {
    return GaugeDataPointSnapshot.builder().value(value).labels(labels).build();
  }
}
