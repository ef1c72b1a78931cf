package io.tenantry.controller.bench;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The counts a benchmark guards, each against its limit (requests a converged sync sends, writes
 * per tenant, failed calls, heap per tenant): a run with any over its limit exits non-zero after
 * printing every figure. Timings are printed, never checked: they depend on the machine.
 */
final class BenchGuards {

  private final List<String> broken = new ArrayList<>();

  /** Records {@code what} over its limit when {@code value > limit}. */
  void atMost(String what, double value, double limit) {
    if (value > limit) {
      broken.add(String.format(Locale.ROOT, "%s: %.2f, over its limit %.2f", what, value, limit));
    }
  }

  /** Prints the guards' verdict and ends the JVM with status 1 when a count was over its limit. */
  void exitIfBroken() {
    if (broken.isEmpty()) {
      System.out.println("guarded counts: every one within its limit");
      return;
    }
    broken.forEach(b -> System.out.println("GUARD FAILED: " + b));
    System.out.flush();
    System.exit(1);
  }
}
