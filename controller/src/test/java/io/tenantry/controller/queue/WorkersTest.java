package io.tenantry.controller.queue;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class WorkersTest {

  private final RateLimitingQueue<String> queue = new RateLimitingQueue<>("tenants",
      new ItemExponentialFailureRateLimiter<>(Duration.ofMillis(5), Duration.ofSeconds(1)), null);
  private final CountDownLatch release = new CountDownLatch(1);
  private final CountDownLatch boundSynced = new CountDownLatch(1);
  private final ConcurrentHashMap<String, String> syncedBy = new ConcurrentHashMap<>();
  private final ConcurrentLinkedQueue<String> order = new ConcurrentLinkedQueue<>();

  private final Workers workers = new Workers("tenants", queue, key -> {
    order.add(key);
    syncedBy.put(key, Thread.currentThread().getName());
    if (key.startsWith("spare")) {
      await(release); // a long sync of a new spare
    } else {
      boundSynced.countDown();
    }
    return SyncResult.done();
  }, (key, e) -> { }, new SimpleMeterRegistry());

  @AfterEach
  void stop() throws InterruptedException {
    release.countDown();
    queue.shutDown();
    workers.join();
  }

  @Test
  void aTenantAddedAheadIsSyncedByAReservedWorkerWhileEveryOtherWorkerIsBusy() throws Exception {
    workers.start(1, 1);
    busyWithSpareOneOfTwo();

    queue.addFirst("bound");

    assertThat(boundSynced.await(5, TimeUnit.SECONDS)).as("synced while spare-1 still syncs").isTrue();
    assertThat(syncedBy).containsEntry("bound", "worker-ahead-0").doesNotContainKey("spare-2");
  }

  @Test
  void withoutReservedWorkersATenantAddedAheadWaitsForAWorkerButGoesFirst() throws Exception {
    workers.start(1, 0);
    busyWithSpareOneOfTwo();
    queue.addFirst("bound");

    assertThat(boundSynced.await(200, TimeUnit.MILLISECONDS)).as("the one worker is busy").isFalse();
    release.countDown();

    assertThat(boundSynced.await(5, TimeUnit.SECONDS)).isTrue();
    assertThat(syncedBy).containsEntry("bound", "worker-0");
    assertThat(order).startsWith("spare-1", "bound");
  }

  /** Two new spares queued; the first one's long sync holds the one general worker. */
  private void busyWithSpareOneOfTwo() throws InterruptedException {
    queue.add("spare-1");
    queue.add("spare-2");
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
    while (!syncedBy.containsKey("spare-1")) {
      assertThat(System.nanoTime()).as("spare-1 handed out").isLessThan(deadline);
      Thread.sleep(5);
    }
  }

  private static void await(CountDownLatch latch) {
    try {
      latch.await();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
