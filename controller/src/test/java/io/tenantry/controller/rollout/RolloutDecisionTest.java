package io.tenantry.controller.rollout;

import static org.assertj.core.api.Assertions.assertThat;

import io.tenantry.controller.rollout.RolloutDecision.DeadlinePassed;
import io.tenantry.controller.rollout.RolloutDecision.Decision;
import io.tenantry.controller.rollout.RolloutDecision.Held;
import io.tenantry.controller.rollout.RolloutDecision.Proceed;
import io.tenantry.controller.rollout.RolloutDecision.Settled;
import io.tenantry.controller.rollout.RolloutDecision.StillDegraded;
import java.time.Duration;
import java.util.Optional;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class RolloutDecisionTest {

  static Stream<Arguments> withoutSlot() {
    return Stream.of(
        Arguments.of(false, true, false, Optional.of(new Settled())),
        Arguments.of(false, true, true, Optional.of(new Settled())), // Rolled out after all: recovered.
        Arguments.of(false, false, true, Optional.of(new StillDegraded())),
        Arguments.of(false, false, false, Optional.empty()), // Still rolling out: keeps (or takes) its slot.
        Arguments.of(true, true, false, Optional.empty()),
        Arguments.of(true, false, true, Optional.empty())); // A new change after a failure asks again.
  }

  @ParameterizedTest(name = "workload writes {0}, rolled out {1}, failed this generation {2} -> {3}")
  @MethodSource
  void withoutSlot(boolean workloadWrites, boolean rolledOut, boolean failed, Optional<Decision> expected) {
    assertThat(RolloutDecision.withoutSlot(workloadWrites, rolledOut, failed)).isEqualTo(expected);
  }

  static Stream<Arguments> withSlot() {
    return Stream.of(
        Arguments.of(Optional.empty(), new Held()),
        Arguments.of(Optional.of(Duration.ofSeconds(30)), new Proceed(Duration.ofSeconds(30))),
        Arguments.of(Optional.of(Duration.ZERO), new DeadlinePassed()),
        Arguments.of(Optional.of(Duration.ofSeconds(-1)), new DeadlinePassed()));
  }

  @ParameterizedTest(name = "slot time left {0} -> {1}")
  @MethodSource
  void withSlot(Optional<Duration> remaining, Decision expected) {
    assertThat(RolloutDecision.withSlot(remaining)).isEqualTo(expected);
  }
}
