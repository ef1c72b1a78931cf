package io.tenantry.deploy.rollout;

import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;

/**
 * When a rollout stops starting waves. Checked after each wave, a rollout halts when either bound
 * is passed: {@code maxFailures} failed tenants in all (the waves so far), or a wave of which more
 * than {@code maxFailureRatio} of the tenants failed. A bound that is null does not apply; at least
 * one applies ({@link #fromFlags} says which, from what was given).
 *
 * @param maxFailures failed tenants, counted over the waves so far, at which the rollout halts; at least 1
 * @param maxFailureRatio the share of one wave's tenants that may fail (0 &lt; R &lt;= 1); a wave above it halts
 */
public record FailureLimits(Integer maxFailures, Double maxFailureRatio) {

  public static final int DEFAULT_MAX_FAILURES = 1;

  public FailureLimits {
    if (maxFailures == null && maxFailureRatio == null) {
      throw new RolloutInputException("--max-failures", "a rollout needs --max-failures or --max-failure-ratio");
    }
    if (maxFailures != null && maxFailures < 1) {
      throw new RolloutInputException("--max-failures", "must be at least 1, got " + maxFailures);
    }
    // Written so that NaN is refused too.
    if (maxFailureRatio != null && !(maxFailureRatio > 0 && maxFailureRatio <= 1)) {
      throw new RolloutInputException("--max-failure-ratio", "must be greater than 0 and at most 1 (the share of a"
          + " wave's tenants that may fail, such as 0.2), got " + plain(maxFailureRatio));
    }
  }

  /**
   * The bounds from the flags as given (null when absent). The one rule: with neither flag,
   * {@code --max-failures 1}; with only the ratio, no count bound, so a fleet is not halted by one
   * tenant; with both, both apply.
   */
  public static FailureLimits fromFlags(Integer maxFailures, Double maxFailureRatio) {
    if (maxFailures == null && maxFailureRatio == null) {
      return new FailureLimits(DEFAULT_MAX_FAILURES, null);
    }
    return new FailureLimits(maxFailures, maxFailureRatio);
  }

  /** What a finished wave means for the rollout. */
  public sealed interface Verdict {
    /** Start the next wave (or follow the pools). */
    record GoOn() implements Verdict {
    }

    /** Start nothing more; {@code reason} says which bound was passed, as the user gave it. */
    record Halt(String reason) implements Verdict {
    }
  }

  /**
   * The decision after a finished wave.
   *
   * @param failedSoFar failed tenants of this wave and of every wave before it
   * @param wave the wave just finished (or found finished on a resume)
   */
  public Verdict afterWave(long failedSoFar, Wave wave) {
    List<String> passed = new ArrayList<>();
    if (maxFailures != null && failedSoFar >= maxFailures) {
      passed.add(failedSoFar + " failed tenant(s) (--max-failures " + maxFailures + ")");
    }
    long failed = wave.count(TenantProgress.Step.FAILED);
    int size = wave.tenants().size();
    // Exact decimal arithmetic: 0.29 of 100 tenants allows 29 (in doubles, 28.999999999999996).
    if (maxFailureRatio != null && BigDecimal.valueOf(failed)
        .compareTo(BigDecimal.valueOf(maxFailureRatio).multiply(BigDecimal.valueOf(size))) > 0) {
      passed.add(failed + " of " + size + " tenant(s) of wave " + wave.index() + " failed (more than"
          + " --max-failure-ratio " + plain(maxFailureRatio) + ")");
    }
    return passed.isEmpty() ? new Verdict.GoOn() : new Verdict.Halt(String.join(" and ", passed));
  }

  /** The bounds as flags, for the progress view and messages: {@code --max-failures 1}. */
  public String describe() {
    List<String> flags = new ArrayList<>();
    if (maxFailures != null) {
      flags.add("--max-failures " + maxFailures);
    }
    if (maxFailureRatio != null) {
      flags.add("--max-failure-ratio " + plain(maxFailureRatio));
    }
    return String.join(", ", flags);
  }

  /** {@code 0.2}, {@code 1}, {@code 0.0001}: as a user would type it, never {@code 1.0E-4}. */
  static String plain(double ratio) {
    return Double.isFinite(ratio) ? BigDecimal.valueOf(ratio).stripTrailingZeros().toPlainString()
        : Double.toString(ratio);
  }
}
