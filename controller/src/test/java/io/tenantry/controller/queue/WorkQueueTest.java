package io.tenantry.controller.queue;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class WorkQueueTest {

  /** How long a blocked call is watched to check that it stays blocked. */
  private static final Duration STAYS_BLOCKED = Duration.ofMillis(100);

  private final WorkQueue<String> queue = new WorkQueue<>();
  private final ExecutorService threads = Executors.newCachedThreadPool();

  @AfterEach
  void stop() {
    queue.shutDown();
    threads.shutdownNow();
  }

  @Test
  void handsOutItemsInTheOrderTheyWereAdded() throws Exception {
    queue.add("a");
    queue.add("b");
    queue.add("c");

    assertThat(queue.get()).isEqualTo("a");
    assertThat(queue.get()).isEqualTo("b");
    assertThat(queue.get()).isEqualTo("c");
  }

  @Test
  void anItemAddedFirstGoesAheadOfEveryItemWaitingAndAWaitingOneMovesAhead() throws Exception {
    queue.add("spare-1");
    queue.add("spare-2");
    queue.add("bound");
    queue.addFirst("bound");
    queue.addFirst("signup");

    assertThat(queue.len()).as("no item twice").isEqualTo(4);
    assertThat(queue.get()).as("ahead ones in the order they were asked ahead").isEqualTo("bound");
    assertThat(queue.get()).isEqualTo("signup");
    assertThat(queue.get()).isEqualTo("spare-1");
    assertThat(queue.get()).isEqualTo("spare-2");
  }

  @Test
  void anItemAddedFirstWhileProcessingIsQueuedAtTheFrontOnceDoneAndNeverHandedOutTwice() throws Exception {
    queue.add("bound");
    assertThat(queue.get()).isEqualTo("bound");
    queue.add("spare-1");
    queue.addFirst("bound");
    assertThat(queue.len()).as("held until done").isEqualTo(1);

    queue.done("bound");

    assertThat(queue.get()).isEqualTo("bound");
    assertThat(queue.get()).isEqualTo("spare-1");
    queue.done("bound");
    queue.add("bound");
    queue.add("spare-2");
    assertThat(queue.get()).as("a later plain add is plain again").isEqualTo("bound");
  }

  @Test
  void getAheadHandsOutOnlyItemsAddedAheadAndWaitsForOne() throws Exception {
    queue.add("spare-1");
    queue.addFirst("bound-1");
    queue.addFirst("bound-1"); // already ahead: keeps its place, once

    assertThat(queue.getAhead()).isEqualTo("bound-1");
    CompletableFuture<String> reserved = CompletableFuture.supplyAsync(() -> call(queue::getAhead), threads);
    assertStaysBlocked(reserved);
    queue.addFirst("bound-1");
    assertStaysBlocked(reserved); // being processed: ahead again only once done
    queue.addFirst("bound-2");

    assertThat(reserved.get(5, TimeUnit.SECONDS)).isEqualTo("bound-2");
    queue.done("bound-1");
    assertThat(queue.getAhead()).isEqualTo("bound-1");
    assertThat(queue.get()).as("plain items wait for plain getters").isEqualTo("spare-1");
  }

  @Test
  void shutDownEndsAGetAheadWithNothingAheadWhilePlainItemsStillWait() throws Exception {
    queue.add("spare-1");
    CompletableFuture<String> reserved = CompletableFuture.supplyAsync(() -> call(queue::getAhead), threads);
    assertStaysBlocked(reserved);

    queue.shutDown();

    assertThat(reserved.get(5, TimeUnit.SECONDS)).isNull();
    assertThat(queue.get()).isEqualTo("spare-1");
  }

  @Test
  void repeatedAddsWhileQueuedCollapseIntoOne() throws Exception {
    queue.add("a");
    queue.add("b");
    queue.add("a");
    queue.add("a");

    assertThat(queue.len()).isEqualTo(2);
    assertThat(queue.get()).isEqualTo("a");
    assertThat(queue.get()).isEqualTo("b");
    assertThat(queue.len()).isZero();
  }

  @Test
  void itemAddedWhileProcessingIsHandedOutAgainOnlyAfterDoneAndOnce() throws Exception {
    queue.add("a");
    assertThat(queue.get()).isEqualTo("a");

    queue.add("a");
    queue.add("a");
    assertThat(queue.len()).as("not queued while a worker holds it").isZero();
    CompletableFuture<String> secondWorker = getAsync();
    assertStaysBlocked(secondWorker);

    queue.done("a");

    assertThat(secondWorker.get(5, TimeUnit.SECONDS)).isEqualTo("a");
    assertThat(queue.len()).as("queued once for all the adds").isZero();
    queue.done("a");
    assertThat(queue.len()).as("nothing left after the re-run").isZero();
  }

  @Test
  void doneWithoutNewAddDoesNotRequeue() throws Exception {
    queue.add("a");
    queue.get();
    queue.done("a");
    queue.done("a"); // not processing any more: ignored

    assertThat(queue.len()).isZero();
  }

  @Test
  void shutDownUnblocksGettersAndIgnoresNewAdds() throws Exception {
    CompletableFuture<String> first = getAsync();
    CompletableFuture<String> second = getAsync();
    assertStaysBlocked(first);

    queue.shutDown();

    assertThat(first.get(5, TimeUnit.SECONDS)).isNull();
    assertThat(second.get(5, TimeUnit.SECONDS)).isNull();
    assertThat(queue.isShuttingDown()).isTrue();
    queue.add("a");
    assertThat(queue.len()).isZero();
    assertThat(queue.get()).isNull();
  }

  @Test
  void shutDownStillHandsOutQueuedItemsLikeClientGo() throws Exception {
    queue.add("a");
    queue.add("b");

    queue.shutDown();

    assertThat(queue.get()).isEqualTo("a");
    assertThat(queue.get()).isEqualTo("b");
    assertThat(queue.get()).isNull();
  }

  @Test
  void shutDownWithDrainWaitsForItemsBeingProcessed() throws Exception {
    queue.add("a");
    queue.add("b");
    queue.get();
    queue.get();

    CompletableFuture<Void> drain = CompletableFuture.runAsync(() -> run(queue::shutDownWithDrain), threads);
    assertStaysBlocked(drain);
    assertThat(queue.isShuttingDown()).isTrue();
    queue.add("c");
    assertThat(queue.len()).as("adds ignored while draining").isZero();

    queue.done("a");
    assertStaysBlocked(drain);
    queue.done("b");

    drain.get(5, TimeUnit.SECONDS);
  }

  @Test
  void shutDownEndsAPendingDrain() throws Exception {
    queue.add("a");
    queue.get();
    CompletableFuture<Void> drain = CompletableFuture.runAsync(() -> run(queue::shutDownWithDrain), threads);
    assertStaysBlocked(drain);

    queue.shutDown();

    drain.get(5, TimeUnit.SECONDS);
  }

  private CompletableFuture<String> getAsync() {
    return CompletableFuture.supplyAsync(() -> {
      try {
        return queue.get();
      } catch (InterruptedException e) {
        throw new IllegalStateException(e);
      }
    }, threads);
  }

  private static void assertStaysBlocked(CompletableFuture<?> call) throws InterruptedException {
    Thread.sleep(STAYS_BLOCKED.toMillis());
    assertThat(call).as("still blocked").isNotDone();
  }

  private interface BlockingGet {
    String get() throws InterruptedException;
  }

  private static String call(BlockingGet get) {
    try {
      return get.get();
    } catch (InterruptedException e) {
      throw new IllegalStateException(e);
    }
  }

  private interface Blocking {
    void run() throws InterruptedException;
  }

  private static void run(Blocking blocking) {
    try {
      blocking.run();
    } catch (InterruptedException e) {
      throw new IllegalStateException(e);
    }
  }
}
