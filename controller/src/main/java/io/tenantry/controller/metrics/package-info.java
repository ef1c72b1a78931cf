/**
 * The fleet's metrics for SREs, on the operator's {@code /metrics} beside the queue's, the syncs'
 * and the JVM's. Every family is named {@code tenantry_*} in base units, and no label holds a
 * tenant's name: a label's values are bounded by the API's enums, the configured plans, the
 * SparePools, or a fixed vocabulary, so a fleet of any size costs the same number of series.
 *
 * <p>Two kinds, kept apart:
 * <ul>
 *   <li>Counts of what the cluster holds ({@link io.tenantry.controller.metrics.FleetGauges}):
 *       computed when scraped, from the informer cache, by pure functions
 *       ({@link io.tenantry.controller.metrics.TenantCounts},
 *       {@link io.tenantry.controller.metrics.PoolCounts},
 *       {@link io.tenantry.controller.metrics.TemplateSkew}). No bookkeeping to drift, and no API
 *       call: a scrape reads the cache only.</li>
 *   <li>Counts of what happened: decorators the composition root puts around an interface the
 *       operator already calls through, so that no class of the sync path takes a registry:
 *       {@link io.tenantry.controller.metrics.MeasuredTenantWriter} (first Ready, failures),
 *       {@link io.tenantry.controller.metrics.MeasuredSecretStore},
 *       {@link io.tenantry.controller.metrics.MeasuredFleetRecords} and
 *       {@link io.tenantry.controller.metrics.KmsCalls} (store calls), and
 *       {@link io.tenantry.controller.metrics.MeasuredAllocations} (signups by pool).</li>
 * </ul>
 *
 * <p>{@code docs/operating.md} lists every family with its labels, the alerts built on them and
 * the dashboard.
 */
package io.tenantry.controller.metrics;
