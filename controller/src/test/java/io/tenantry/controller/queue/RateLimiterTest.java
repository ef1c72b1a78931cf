package io.tenantry.controller.queue;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

class RateLimiterTest {

  private final ManualTicker ticker = new ManualTicker();

  @Test
  void exponentialBackoffDoublesFromTheBaseDelayPerItem() {
    RateLimiter<String> limiter = new ItemExponentialFailureRateLimiter<>();

    assertThat(limiter.when("a")).isEqualTo(Duration.ofMillis(5));
    assertThat(limiter.when("a")).isEqualTo(Duration.ofMillis(10));
    assertThat(limiter.when("a")).isEqualTo(Duration.ofMillis(20));
    assertThat(limiter.when("a")).isEqualTo(Duration.ofMillis(40));
    assertThat(limiter.when("b")).as("other items keep their own count").isEqualTo(Duration.ofMillis(5));
    assertThat(limiter.when("a")).isEqualTo(Duration.ofMillis(80));
  }

  @Test
  void exponentialBackoffIsCappedAtTheMaxDelayWithoutOverflowing() {
    RateLimiter<String> limiter = new ItemExponentialFailureRateLimiter<>();
    Duration last = Duration.ZERO;
    for (int i = 0; i < 18; i++) {
      last = limiter.when("a");
    }
    assertThat(last).as("5ms * 2^17 = 655.36s").isEqualTo(Duration.ofMillis(655_360));
    assertThat(limiter.when("a")).as("5ms * 2^18 > 1000s").isEqualTo(Duration.ofSeconds(1000));

    for (int i = 0; i < 5000; i++) { // 2^5000 overflows long and double
      assertThat(limiter.when("a")).isEqualTo(Duration.ofSeconds(1000));
    }
  }

  @Test
  void forgetResetsTheBackoffAndNumRequeuesCountsWhenCalls() {
    RateLimiter<String> limiter = new ItemExponentialFailureRateLimiter<>(Duration.ofMillis(1), Duration.ofSeconds(1));
    assertThat(limiter.numRequeues("a")).isZero();
    limiter.when("a");
    limiter.when("a");
    limiter.when("a");
    limiter.when("b");
    assertThat(limiter.numRequeues("a")).isEqualTo(3);
    assertThat(limiter.numRequeues("b")).isEqualTo(1);

    limiter.forget("a");

    assertThat(limiter.numRequeues("a")).isZero();
    assertThat(limiter.numRequeues("b")).isEqualTo(1);
    assertThat(limiter.when("a")).isEqualTo(Duration.ofMillis(1));
  }

  @Test
  void tokenBucketAllowsTheBurstThenSpacesByQps() {
    RateLimiter<String> limiter = new BucketRateLimiter<>(10, 3, ticker);

    assertThat(limiter.when("a")).isZero();
    assertThat(limiter.when("b")).isZero();
    assertThat(limiter.when("a")).isZero();
    assertThat(limiter.when("c")).isEqualTo(Duration.ofMillis(100));
    assertThat(limiter.when("d")).isEqualTo(Duration.ofMillis(200));

    ticker.advance(Duration.ofMillis(100)); // one token refilled, already owed to "c"
    assertThat(limiter.when("e")).isEqualTo(Duration.ofMillis(200));

    ticker.advance(Duration.ofSeconds(10)); // refills to the burst, not beyond
    assertThat(limiter.when("f")).isZero();
    assertThat(limiter.when("f")).isZero();
    assertThat(limiter.when("f")).isZero();
    assertThat(limiter.when("f")).isEqualTo(Duration.ofMillis(100));
    assertThat(limiter.numRequeues("f")).isZero();
  }

  @Test
  void maxOfTakesTheLongestDelayAndLargestCountAndForgetsEverywhere() {
    RateLimiter<String> exponential = new ItemExponentialFailureRateLimiter<>(Duration.ofMillis(5), Duration.ofSeconds(1000));
    RateLimiter<String> counting = new FixedCountingLimiter(Duration.ofMillis(7));
    RateLimiter<String> limiter = new MaxOfRateLimiter<>(exponential, counting);

    assertThat(limiter.when("a")).as("max(5ms, 7ms)").isEqualTo(Duration.ofMillis(7));
    assertThat(limiter.when("a")).as("max(10ms, 7ms)").isEqualTo(Duration.ofMillis(10));
    counting.when("a");
    assertThat(limiter.numRequeues("a")).as("max(2, 3)").isEqualTo(3);

    limiter.forget("a");

    assertThat(exponential.numRequeues("a")).isZero();
    assertThat(counting.numRequeues("a")).isZero();
    assertThat(limiter.when("a")).isEqualTo(Duration.ofMillis(7));
  }

  @Test
  void defaultControllerRateLimiterCombinesBackoffAndBucket() {
    RateLimiter<String> limiter = RateLimiter.defaultControllerRateLimiter(ticker);

    assertThat(limiter.when("a")).isEqualTo(Duration.ofMillis(5));
    assertThat(limiter.when("a")).isEqualTo(Duration.ofMillis(10));
    for (int i = 0; i < 98; i++) {
      assertThat(limiter.when("key-" + i)).isEqualTo(Duration.ofMillis(5));
    }
    // The burst of 100 is spent: the bucket now dominates a fresh item's 5ms.
    assertThat(limiter.when("b")).isEqualTo(Duration.ofMillis(100));
    assertThat(limiter.numRequeues("a")).isEqualTo(2);
  }

  /** A limiter with a constant delay that counts calls per item, to observe MaxOf's delegation. */
  private static final class FixedCountingLimiter implements RateLimiter<String> {
    private final Duration delay;
    private final Map<String, Integer> counts = new HashMap<>();

    FixedCountingLimiter(Duration delay) {
      this.delay = delay;
    }

    @Override
    public Duration when(String item) {
      counts.merge(item, 1, Integer::sum);
      return delay;
    }

    @Override
    public void forget(String item) {
      counts.remove(item);
    }

    @Override
    public int numRequeues(String item) {
      return counts.getOrDefault(item, 0);
    }
  }
}
