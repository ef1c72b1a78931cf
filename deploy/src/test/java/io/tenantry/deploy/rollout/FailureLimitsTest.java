package io.tenantry.deploy.rollout;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The decision after each wave: go on, or halt, and why. */
class FailureLimitsTest {

  @Test
  void withoutEitherFlagOneFailedTenantHalts() {
    FailureLimits limits = FailureLimits.fromFlags(null, null);

    assertThat(limits).isEqualTo(new FailureLimits(1, null));
    assertThat(limits.afterWave(0, wave(1, 10, 0))).isEqualTo(new FailureLimits.Verdict.GoOn());
    assertThat(limits.afterWave(1, wave(1, 10, 1)))
        .isEqualTo(new FailureLimits.Verdict.Halt("1 failed tenant(s) (--max-failures 1)"));
  }

  @Test
  void withOnlyTheRatioThereIsNoCountBound() {
    FailureLimits limits = FailureLimits.fromFlags(null, 0.2);

    assertThat(limits.maxFailures()).isNull();
    // One tenant of ten in each of many waves: 10% a wave, however many in all.
    assertThat(limits.afterWave(25, wave(25, 10, 1))).isInstanceOf(FailureLimits.Verdict.GoOn.class);
  }

  @Test
  void aWaveAtTheRatioGoesOnAndAWaveAboveItHalts() {
    FailureLimits limits = FailureLimits.fromFlags(null, 0.2);

    assertThat(limits.afterWave(2, wave(3, 10, 2))).isInstanceOf(FailureLimits.Verdict.GoOn.class);
    assertThat(limits.afterWave(3, wave(3, 10, 3))).isEqualTo(new FailureLimits.Verdict.Halt(
        "3 of 10 tenant(s) of wave 3 failed (more than --max-failure-ratio 0.2)"));
    // A small last wave is a share of itself: 1 of 2 is more than 0.2.
    assertThat(limits.afterWave(1, wave(4, 2, 1))).isInstanceOf(FailureLimits.Verdict.Halt.class);
  }

  @Test
  void theRatioIsComparedExactlyNotInBinaryFloatingPoint() {
    // 0.29 * 100 is 28.999999999999996 in doubles: 29 failed of 100 would wrongly halt.
    assertThat(FailureLimits.fromFlags(null, 0.29).afterWave(29, wave(1, 100, 29)))
        .isInstanceOf(FailureLimits.Verdict.GoOn.class);
    assertThat(FailureLimits.fromFlags(null, 0.29).afterWave(30, wave(1, 100, 30)))
        .isInstanceOf(FailureLimits.Verdict.Halt.class);
  }

  @Test
  void aRatioOfOneNeverHaltsByItself() {
    assertThat(FailureLimits.fromFlags(null, 1.0).afterWave(10, wave(1, 10, 10)))
        .isInstanceOf(FailureLimits.Verdict.GoOn.class);
  }

  @Test
  void withBothFlagsEitherBoundHaltsAndTheReasonNamesEachPassed() {
    FailureLimits limits = FailureLimits.fromFlags(5, 0.5);

    assertThat(limits.afterWave(4, wave(3, 10, 2))).isInstanceOf(FailureLimits.Verdict.GoOn.class);
    // The count: failures of the waves so far, each wave under the ratio.
    assertThat(limits.afterWave(5, wave(4, 10, 1)))
        .isEqualTo(new FailureLimits.Verdict.Halt("5 failed tenant(s) (--max-failures 5)"));
    assertThat(limits.afterWave(3, wave(2, 4, 3))).isEqualTo(new FailureLimits.Verdict.Halt(
        "3 of 4 tenant(s) of wave 2 failed (more than --max-failure-ratio 0.5)"));
    assertThat(limits.afterWave(6, wave(2, 10, 6))).isEqualTo(new FailureLimits.Verdict.Halt(
        "6 failed tenant(s) (--max-failures 5) and 6 of 10 tenant(s) of wave 2 failed (more than --max-failure-ratio 0.5)"));
  }

  @Test
  void theLimitsAreDescribedAsTheFlagsAUserTypes() {
    assertThat(FailureLimits.fromFlags(null, null).describe()).isEqualTo("--max-failures 1");
    assertThat(FailureLimits.fromFlags(null, 0.25).describe()).isEqualTo("--max-failure-ratio 0.25");
    assertThat(FailureLimits.fromFlags(3, 1.0).describe()).isEqualTo("--max-failures 3, --max-failure-ratio 1");
    assertThat(FailureLimits.fromFlags(null, 0.0001).describe()).isEqualTo("--max-failure-ratio 0.0001");
  }

  @ParameterizedTest
  @ValueSource(doubles = {0.0, -0.2, 1.0001, 5, Double.NaN, Double.POSITIVE_INFINITY})
  void aRatioOutsideZeroToOneIsRefusedNamingTheFlag(double ratio) {
    assertThatThrownBy(() -> FailureLimits.fromFlags(null, ratio)).isInstanceOfSatisfying(RolloutInputException.class,
        e -> {
          assertThat(e.field()).isEqualTo("--max-failure-ratio");
          assertThat(e.getMessage()).startsWith("--max-failure-ratio: must be greater than 0 and at most 1");
        });
  }

  @Test
  void aCountBelowOneIsRefusedNamingTheFlag() {
    assertThatThrownBy(() -> FailureLimits.fromFlags(0, 0.2)).isInstanceOf(RolloutInputException.class)
        .hasMessage("--max-failures: must be at least 1, got 0");
  }

  /** Wave {@code index} of {@code size} tenants, the first {@code failed} of them failed, the rest succeeded. */
  private static Wave wave(int index, int size, int failed) {
    List<TenantProgress> tenants = new ArrayList<>();
    for (int i = 0; i < size; i++) {
      TenantProgress applied = TenantProgress.pending("t" + index + "-" + i).applied("1.0.0", 2, null);
      tenants.add(i < failed ? applied.failed("Degraded: not rolled out") : applied.succeeded());
    }
    return new Wave(index, "eu", tenants);
  }
}
