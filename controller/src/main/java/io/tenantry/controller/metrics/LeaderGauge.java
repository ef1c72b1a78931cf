package io.tenantry.controller.metrics;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.function.BooleanSupplier;

/**
 * {@code tenantry_leader}: 1 while this replica leads (holds the lease, its informers and workers
 * run), else 0. Of the replicas of one cluster exactly one should report 1: none means nothing is
 * reconciled, which is what the no-leader alert watches.
 */
public final class LeaderGauge {

  private LeaderGauge() {
  }

  public static void register(MeterRegistry registry, BooleanSupplier leading) {
    // Held strongly: the registry keeps only a weak reference to a gauge's object by default, and
    // nothing else holds this supplier.
    Gauge.builder("tenantry.leader", leading, l -> l.getAsBoolean() ? 1 : 0)
        .description("1 while this replica leads (holds the lease and runs the controllers), else 0")
        .strongReference(true).register(registry);
  }
}
