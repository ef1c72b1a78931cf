package io.tenantry.controller.metrics;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.tenantry.controller.status.Reason;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * {@code tenantry_backups_total{result}}: backups ended, by result: {@code proven}, or the reason
 * one was not; {@code tenantry_restore_drills_total{result}}: drills ended, {@code passed} or why
 * not. Every result is served from the start (at 0, and with backups off too), so an alert on
 * failures sees a rate, not a series that appears with the first failure.
 */
public final class BackupOutcomes {

  public static final String PROVEN = "proven";
  public static final String PASSED = "passed";
  private static final List<Reason> FAILURES = List.of(Reason.DumpFailed, Reason.UploadFailed, Reason.BackupNotInStore,
      Reason.BackupCorrupt, Reason.WriteFailed);
  private static final List<Reason> DRILL_FAILURES = List.of(Reason.DrillFailed, Reason.DrillNotRun, Reason.DrillDoesNotFit,
      Reason.WriteFailed);
  private final Map<String, Counter> counters = new LinkedHashMap<>();
  private final Map<String, Counter> drills = new LinkedHashMap<>();

  public BackupOutcomes(MeterRegistry registry) {
    counters.put(PROVEN, counter(registry, "tenantry.backups", "Backups ended, by result: proven, or why not", PROVEN));
    FAILURES.forEach(reason -> counters.put(reason.name(),
        counter(registry, "tenantry.backups", "Backups ended, by result: proven, or why not", reason.name())));
    drills.put(PASSED, counter(registry, "tenantry.restore.drills", "Restore drills ended, by result: passed, or why not",
        PASSED));
    DRILL_FAILURES.forEach(reason -> drills.put(reason.name(),
        counter(registry, "tenantry.restore.drills", "Restore drills ended, by result: passed, or why not", reason.name())));
  }

  /** A drill ended: passed ({@code failure} null) or failed for {@code failure}. */
  public void drilled(Reason failure) {
    Counter counter = drills.get(failure == null ? PASSED : failure.name());
    if (counter == null) {
      throw new IllegalArgumentException("not a drill failure: " + failure);
    }
    counter.increment();
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

  private static Counter counter(MeterRegistry registry, String name, String description, String result) {
    return Counter.builder(name).description(description).tag("result", result).register(registry);
  }
}
