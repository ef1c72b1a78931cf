package io.tenantry.controller.rollout;

import java.time.Duration;
import java.util.Optional;

/**
 * Pure: what a tenant's sync does about its workloads, from what the plan and the gate say. In two
 * steps, because asking the gate for a slot takes one: {@link #withoutSlot} decides what needs no
 * slot, {@link #withSlot} the rest once the gate has answered.
 */
public final class RolloutDecision {

  /** One of five outcomes; each says what is written and when the tenant is looked at again. */
  public sealed interface Decision permits Settled, StillDegraded, Held, DeadlinePassed, Proceed {
  }

  /** Nothing to roll out and everything rolled out: write the rest, give the slot back. */
  public record Settled() implements Decision {
  }

  /** This generation already passed its deadline: write the rest, stay Degraded, look again with backoff. */
  public record StillDegraded() implements Decision {
  }

  /** No slot free: write everything but the workloads; the gate wakes the tenant when one frees. */
  public record Held() implements Decision {
  }

  /** The slot's deadline passed: write nothing, mark the tenant Degraded, free the slot. */
  public record DeadlinePassed() implements Decision {
  }

  /** Holding a slot with {@code remaining} time: write everything, look again when the deadline comes. */
  public record Proceed(Duration remaining) implements Decision {
  }

  private RolloutDecision() {
  }

  /**
   * The decision that needs no slot, or empty when the tenant must ask the gate for one.
   *
   * @param workloadWrites whether the plan writes a workload
   * @param rolledOut whether every desired workload is observed rolled out
   * @param failedThisGeneration whether the tenant's current generation already passed its deadline
   */
  public static Optional<Decision> withoutSlot(boolean workloadWrites, boolean rolledOut, boolean failedThisGeneration) {
    if (!workloadWrites && rolledOut) {
      return Optional.of(new Settled());
    }
    if (!workloadWrites && failedThisGeneration) {
      return Optional.of(new StillDegraded());
    }
    return Optional.empty();
  }

  /** @param remaining the time left on the tenant's slot, or empty when the gate had none free */
  public static Decision withSlot(Optional<Duration> remaining) {
    if (remaining.isEmpty()) {
      return new Held();
    }
    Duration left = remaining.get();
    return left.isNegative() || left.isZero() ? new DeadlinePassed() : new Proceed(left);
  }
}
