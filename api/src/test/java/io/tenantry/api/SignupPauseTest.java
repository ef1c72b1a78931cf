package io.tenantry.api;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.junit.jupiter.api.Test;

/** Held work waits for a pause of a second in the signups, and never longer than ten seconds in all. */
class SignupPauseTest {

  @Test
  void heldWorkWaitsUntilNoSignupCameForASecond() {
    assertThat(SignupPause.holdLeft(Duration.ofMillis(300), Duration.ofSeconds(2))).isEqualTo(Duration.ofMillis(700));
    assertThat(SignupPause.holdLeft(Duration.ofSeconds(1), Duration.ofSeconds(2))).isZero();
    assertThat(SignupPause.holdLeft(Duration.ofSeconds(5), Duration.ofSeconds(5))).isZero();
  }

  @Test
  void noWorkWaitsMoreThanTenSecondsWhileSignupsKeepArriving() {
    assertThat(SignupPause.holdLeft(Duration.ZERO, Duration.ofMillis(9_800))).isEqualTo(Duration.ofMillis(200));
    assertThat(SignupPause.holdLeft(Duration.ZERO, Duration.ofSeconds(10))).isZero();
    assertThat(SignupPause.holdLeft(Duration.ZERO, Duration.ofMinutes(3))).isZero();
  }

  @Test
  void aSignupWithinASecondOfTheOneBeforeIsPartOfItsBurst() {
    assertThat(SignupPause.inBurst(Duration.ofMillis(999))).isTrue();
    assertThat(SignupPause.inBurst(Duration.ofSeconds(1))).isFalse();
  }
}
