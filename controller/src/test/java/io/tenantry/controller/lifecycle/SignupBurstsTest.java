package io.tenantry.controller.lifecycle;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** The first syncs of tenants bound in a burst wait for the signups to pause, within bounds; a lone one does not. */
class SignupBurstsTest {

  private final AtomicLong now = new AtomicLong(Long.MAX_VALUE - Duration.ofDays(1).toNanos());
  private final SignupBursts bursts = new SignupBursts(now::get);

  private void advance(Duration duration) {
    now.addAndGet(duration.toNanos());
  }

  @Test
  void aLoneSignupIsSyncedAtOnceAndTheNextOnesOfABurstWaitForAPause() {
    assertThat(bursts.hold("t1")).isZero();
    advance(Duration.ofMillis(30));
    assertThat(bursts.hold("t2")).isEqualTo(Duration.ofSeconds(1));
    advance(Duration.ofMillis(30));
    assertThat(bursts.hold("t3")).isEqualTo(Duration.ofSeconds(1));
    assertThat(bursts.hold("t2")).as("still arriving").isEqualTo(Duration.ofSeconds(1));

    advance(Duration.ofSeconds(1));
    assertThat(bursts.hold("t2")).isZero();
    assertThat(bursts.hold("t3")).isZero();
    advance(Duration.ofSeconds(5));
    assertThat(bursts.hold("t4")).as("after a pause, alone again").isZero();
  }

  @Test
  void noTenantWaitsLongerThanTheMaximumWhileSignupsKeepArriving() {
    bursts.hold("t0");
    advance(Duration.ofMillis(10));
    assertThat(bursts.hold("t1")).isPositive();
    for (int i = 2; i < 1000; i++) {
      advance(Duration.ofMillis(10));
      bursts.hold("t" + i);
    }
    assertThat(bursts.hold("t1")).as("held 9.98 s").isEqualTo(Duration.ofMillis(20));
    advance(Duration.ofMillis(20));
    assertThat(bursts.hold("t1")).isZero();
    assertThat(bursts.hold("t999")).isEqualTo(Duration.ofSeconds(1).minusMillis(20));
  }
}
