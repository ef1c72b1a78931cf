package io.tenantry.controller.queue;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class DelayingQueueTest {

  /** How long (real time) a check waits to see that nothing is added; the waiting thread polls every 1ms. */
  private static final long NOTHING_ADDED_MILLIS = 50;

  private final ManualTicker ticker = new ManualTicker();
  // The waiting thread re-reads the manual ticker every millisecond, so advancing it takes effect.
  private final DelayingQueue<String> queue = new DelayingQueue<>("test", null, ticker, Duration.ofMillis(1));

  @AfterEach
  void stop() {
    queue.shutDown();
  }

  @Test
  void zeroOrNegativeDelayAddsNow() {
    queue.addAfter("a", Duration.ZERO);
    queue.addAfter("b", Duration.ofSeconds(-1));

    assertThat(queue.len()).isEqualTo(2);
  }

  @Test
  void itemsWaitingAreCountedByWhenTheyAreDue() {
    queue.addAfter("soon", Duration.ofSeconds(5));
    queue.addAfter("later", Duration.ofMinutes(2));

    assertThat(queue.dueWithin(Duration.ofSeconds(15))).isEqualTo(1);
    assertThat(queue.dueWithin(Duration.ofMinutes(3))).isEqualTo(2);
    assertThat(queue.len()).as("neither added yet").isZero();
  }

  @Test
  void itemIsAddedWhenItsDelayHasPassedAndNotBefore() throws Exception {
    queue.addAfter("a", Duration.ofMillis(100));
    assertNothingAdded();

    ticker.advance(Duration.ofMillis(99));
    assertNothingAdded();

    ticker.advance(Duration.ofMillis(1));
    awaitLen(1);
    assertThat(queue.get()).isEqualTo("a");
  }

  @Test
  void laterAddAfterDoesNotPostponeAndIsNotAddedAgain() throws Exception {
    queue.addAfter("a", Duration.ofMillis(100));
    queue.addAfter("a", Duration.ofMillis(500));

    ticker.advance(Duration.ofMillis(100));
    awaitLen(1);
    assertThat(queue.get()).isEqualTo("a");
    queue.done("a");

    ticker.advance(Duration.ofMillis(400));
    assertNothingAdded();
  }

  @Test
  void earlierAddAfterBringsTheItemForward() throws Exception {
    queue.addAfter("a", Duration.ofMillis(500));
    queue.addAfter("b", Duration.ofMillis(300));
    queue.addAfter("a", Duration.ofMillis(100));

    ticker.advance(Duration.ofMillis(100));
    awaitLen(1);
    assertThat(queue.get()).isEqualTo("a");
    queue.done("a");

    ticker.advance(Duration.ofMillis(200));
    awaitLen(1);
    assertThat(queue.get()).isEqualTo("b");
    queue.done("b");

    ticker.advance(Duration.ofMillis(200));
    assertNothingAdded();
  }

  @Test
  void readyItemsAreAddedInReadyTimeOrder() throws Exception {
    queue.addAfter("c", Duration.ofMillis(30));
    queue.addAfter("a", Duration.ofMillis(10));
    queue.addAfter("b", Duration.ofMillis(20));

    ticker.advance(Duration.ofMillis(30));
    awaitLen(3);

    assertThat(queue.get()).isEqualTo("a");
    assertThat(queue.get()).isEqualTo("b");
    assertThat(queue.get()).isEqualTo("c");
  }

  @Test
  void shutDownStopsTheWaitingThreadAndDropsWaitingItems() {
    queue.addAfter("a", Duration.ofMillis(100));

    queue.shutDown();
    queue.addAfter("b", Duration.ZERO);
    queue.addAfter("c", Duration.ofMillis(100));
    ticker.advance(Duration.ofSeconds(1));

    await().atMost(Duration.ofSeconds(5)).until(() -> !queue.waitingThreadAlive());
    assertThat(queue.len()).isZero();
  }

  @Test
  void shutDownWithDrainAlsoStopsTheWaitingThread() throws Exception {
    queue.shutDownWithDrain();

    await().atMost(Duration.ofSeconds(5)).until(() -> !queue.waitingThreadAlive());
  }

  @Test
  void onTheSystemTickerAShorterDelayWakesTheWaitingThreadEarly() throws Exception {
    // Default 10s sleep bound: only the wake-up on a new earliest entry can deliver these in time.
    DelayingQueue<String> real = new DelayingQueue<>("real", null, Ticker.system());
    try {
      real.addAfter("a", Duration.ofSeconds(30));
      real.addAfter("b", Duration.ofSeconds(20));
      long start = System.nanoTime();
      real.addAfter("a", Duration.ofMillis(50));
      real.addAfter("b", Duration.ofMillis(80));

      assertThat(real.get()).isEqualTo("a");
      assertThat(real.get()).isEqualTo("b");
      long elapsed = System.nanoTime() - start;
      assertThat(Duration.ofNanos(elapsed)).isBetween(Duration.ofMillis(80), Duration.ofSeconds(5));
    } finally {
      real.shutDown();
    }
  }

  private void assertNothingAdded() throws InterruptedException {
    Thread.sleep(NOTHING_ADDED_MILLIS);
    assertThat(queue.len()).isZero();
  }

  private void awaitLen(int len) {
    await().atMost(Duration.ofSeconds(5)).pollInterval(Duration.ofMillis(1)).until(queue::len, n -> n == len);
  }
}
