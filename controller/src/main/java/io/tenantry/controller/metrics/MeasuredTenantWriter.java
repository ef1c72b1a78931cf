package io.tenantry.controller.metrics;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.tenantry.api.v1alpha1.Tenant;
import io.tenantry.api.v1alpha1.TenantStatus;
import io.tenantry.controller.apply.TenantWriter;
import io.tenantry.controller.status.Reason;
import java.time.Clock;
import java.time.Duration;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The Tenant writer, counting what the statuses it writes report (every status the operator writes
 * passes here, so no class of the sync path needs a registry):
 * <ul>
 *   <li>{@code tenantry_tenant_first_ready_seconds}: a histogram of the time from a Tenant's creation
 *       to its first Ready ({@link StatusChanges#firstReady}); for spares, that is the time to build one.</li>
 *   <li>{@code tenantry_sync_failures_total{reason}}: failures tenants start reporting, by the
 *       {@link Reason} of their condition ({@link StatusChanges#newFailures}), every reason present
 *       from the start at zero.</li>
 * </ul>
 * Counted once the write succeeded: a write that lost to a conflict is retried, and counted then.
 */
public final class MeasuredTenantWriter implements TenantWriter {

  /** From seconds (a tenant without databases on a warm cluster) to an hour (a stuck one). */
  private static final Duration[] FIRST_READY_BUCKETS = {
    Duration.ofSeconds(5), Duration.ofSeconds(10), Duration.ofSeconds(20), Duration.ofSeconds(30), Duration.ofSeconds(45),
    Duration.ofMinutes(1), Duration.ofSeconds(90), Duration.ofMinutes(2), Duration.ofMinutes(3), Duration.ofMinutes(5),
    Duration.ofMinutes(10), Duration.ofMinutes(15), Duration.ofMinutes(30), Duration.ofHours(1),
  };

  private final TenantWriter delegate;
  private final Clock clock;
  private final Timer firstReady;
  private final Map<Reason, Counter> failures = new EnumMap<>(Reason.class);

  public MeasuredTenantWriter(TenantWriter delegate, MeterRegistry registry, Clock clock) {
    this.delegate = delegate;
    this.clock = clock;
    this.firstReady = Timer.builder("tenantry.tenant.first.ready")
        .description("Time from a Tenant's creation to its first Ready phase")
        .serviceLevelObjectives(FIRST_READY_BUCKETS).register(registry);
    for (Reason reason : StatusChanges.FAILURES) {
      failures.put(reason, Counter.builder("tenantry.sync.failures")
          .description("Failures tenants started reporting in a condition (Ready, SecretsSynced or Routed False), by reason; "
              + "the retries of one failure count once")
          .tag("reason", reason.name()).register(registry));
    }
  }

  @Override
  public void writeStatus(Tenant cached, TenantStatus status) {
    // Read before the write: a writer may update the cached copy it is given.
    Optional<Duration> sinceCreation = StatusChanges.firstReady(cached, status, clock.instant());
    Set<Reason> newFailures = StatusChanges.newFailures(cached.getStatus(), status);
    delegate.writeStatus(cached, status);
    sinceCreation.ifPresent(firstReady::record);
    newFailures.forEach(reason -> failures.get(reason).increment());
  }

  @Override
  public void writeFinalizers(Tenant cached, List<String> finalizers) {
    delegate.writeFinalizers(cached, finalizers);
  }
}
