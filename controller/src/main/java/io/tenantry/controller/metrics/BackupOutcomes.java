package io.tenantry.controller.metrics;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.tenantry.controller.status.Reason;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * {@code tenantry_backups_total{result}}: backups ended, by result: {@code proven}, or the reason
 * one was not. Every result is served from the start (at 0, and with backups off too), so an alert
 * on failures sees a rate, not a series that appears with the first failure.
 */
public final class BackupOutcomes {

  public static final String PROVEN = "proven";
  private static final List<Reason> FAILURES = List.of(Reason.DumpFailed, Reason.UploadFailed, Reason.BackupNotInStore,
      Reason.BackupCorrupt, Reason.WriteFailed);
  private final Map<String, Counter> counters = new LinkedHashMap<>();

  public BackupOutcomes(MeterRegistry registry) {
    counters.put(PROVEN, counter(registry, PROVEN));
    FAILURES.forEach(reason -> counters.put(reason.name(), counter(registry, reason.name())));
  }

  public void proven() {
    counters.get(PROVEN).increment();
  }

  public void failed(Reason reason) {
    Counter counter = counters.get(reason.name());
    if (counter == null) {
      throw new IllegalArgumentException("not a backup failure: " + reason);
    }
    counter.increment();
  }

  private static Counter counter(MeterRegistry registry, String result) {
    return Counter.builder("tenantry.backups").description("Backups ended, by result: proven, or why not")
        .tag("result", result).register(registry);
  }
}
