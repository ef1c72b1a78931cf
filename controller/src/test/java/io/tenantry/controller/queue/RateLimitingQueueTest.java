package io.tenantry.controller.queue;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class RateLimitingQueueTest {

  private final ManualTicker ticker = new ManualTicker();
  private final RateLimitingQueue<String> queue = new RateLimitingQueue<>("test",
      new ItemExponentialFailureRateLimiter<>(Duration.ofMillis(100), Duration.ofSeconds(1)), null, ticker,
      Duration.ofMillis(1));

  @AfterEach
  void stop() {
    queue.shutDown();
  }

  @Test
  void addRateLimitedDelaysByTheLimiterAndCountsRequeues() throws Exception {
    queue.addRateLimited("a");
    assertThat(queue.numRequeues("a")).isEqualTo(1);
    ticker.advance(Duration.ofMillis(99));
    Thread.sleep(50);
    assertThat(queue.len()).isZero();
    ticker.advance(Duration.ofMillis(1));
    awaitLen(1);
    assertThat(queue.get()).isEqualTo("a");

    queue.addRateLimited("a"); // failed again: 200ms, requeued after done
    queue.done("a");
    ticker.advance(Duration.ofMillis(199));
    Thread.sleep(50);
    assertThat(queue.len()).isZero();
    ticker.advance(Duration.ofMillis(1));
    awaitLen(1);
    assertThat(queue.numRequeues("a")).isEqualTo(2);
  }

  @Test
  void forgetResetsTheDelay() throws Exception {
    queue.addRateLimited("a");
    queue.addRateLimited("a");
    ticker.advance(Duration.ofMillis(100));
    awaitLen(1);
    queue.get();
    queue.forget("a");
    queue.done("a");
    assertThat(queue.numRequeues("a")).isZero();

    queue.addRateLimited("a");
    ticker.advance(Duration.ofMillis(100));
    awaitLen(1);
  }

  @Test
  void addRateLimitedIsIgnoredAfterShutDown() {
    queue.shutDown();

    queue.addRateLimited("a");

    assertThat(queue.numRequeues("a")).isZero();
    assertThat(queue.len()).isZero();
  }

  private void awaitLen(int len) {
    await().atMost(Duration.ofSeconds(5)).pollInterval(Duration.ofMillis(1)).until(queue::len, n -> n == len);
  }
}
