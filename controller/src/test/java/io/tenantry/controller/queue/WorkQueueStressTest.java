package io.tenantry.controller.queue;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import org.junit.jupiter.api.Test;

/**
 * Many producers add keys from a small key space, some ahead ({@link WorkQueue#addFirst}), while
 * many workers process them, a few of them only keys added ahead. Fails if a key is
 * ever held by two workers at once, or if an add is lost: every add of a key is followed by a
 * processing of that key that starts after it, so each key's last processed version must reach
 * its last added version.
 */
class WorkQueueStressTest {

  private static final int KEYS = 16;
  private static final int PRODUCERS = 8;
  private static final int WORKERS = 8;
  /** Of the workers, those that take only keys added ahead. */
  private static final int AHEAD_WORKERS = 2;
  private static final long PRODUCE_MILLIS = 1500;

  private final WorkQueue<String> queue = new WorkQueue<>();
  /** Bumped by a producer just before each add of the key. */
  private final AtomicLongArray addedVersion = new AtomicLongArray(KEYS);
  /** The added version each key's processing saw when it started, highest so far. */
  private final AtomicLongArray processedVersion = new AtomicLongArray(KEYS);
  private final Set<String> inFlight = ConcurrentHashMap.newKeySet();
  private final Map<String, String> overlaps = new ConcurrentHashMap<>();
  private final AtomicLong processed = new AtomicLong();
  private final AtomicInteger workerFailures = new AtomicInteger();

  @Test
  void noKeyIsProcessedTwiceAtOnceAndNoAddIsLost() throws Exception {
    List<Thread> workers = new ArrayList<>();
    for (int i = 0; i < WORKERS; i++) {
      boolean ahead = i < AHEAD_WORKERS;
      workers.add(start("worker-" + i, () -> work(ahead)));
    }
    long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(PRODUCE_MILLIS);
    List<Thread> producers = new ArrayList<>();
    for (int i = 0; i < PRODUCERS; i++) {
      producers.add(start("producer-" + i, () -> produce(deadline)));
    }

    for (Thread producer : producers) {
      producer.join();
    }
    // Workers still hand out what is queued and what is re-queued on done, then get null.
    queue.shutDown();
    for (Thread worker : workers) {
      worker.join(TimeUnit.SECONDS.toMillis(10));
      assertThat(worker.isAlive()).as(worker.getName() + " finished").isFalse();
    }

    assertThat(workerFailures).hasValue(0);
    assertThat(overlaps).as("keys handed to two workers at once").isEmpty();
    assertThat(processed.get()).as("enough work to be meaningful").isGreaterThan(1000);
    for (int key = 0; key < KEYS; key++) {
      assertThat(processedVersion.get(key)).as("last processed version of key " + key)
          .isGreaterThanOrEqualTo(addedVersion.get(key));
    }
    assertThat(queue.len()).isZero();
  }

  private void produce(long deadline) {
    ThreadLocalRandom random = ThreadLocalRandom.current();
    while (System.nanoTime() < deadline) {
      int key = random.nextInt(KEYS);
      addedVersion.incrementAndGet(key);
      if (random.nextInt(4) == 0) {
        queue.addFirst(key(key));
      } else {
        queue.add(key(key));
      }
      if (random.nextInt(8) == 0) {
        Thread.yield(); // vary the interleavings
      }
    }
  }

  private void work(boolean aheadOnly) {
    try {
      String item;
      while ((item = aheadOnly ? queue.getAhead() : queue.get()) != null) {
        int key = Integer.parseInt(item.substring(4));
        if (!inFlight.add(item)) {
          overlaps.put(item, Thread.currentThread().getName());
        }
        // Whatever was added before this point is covered by this run.
        long seen = addedVersion.get(key);
        busyWork();
        processedVersion.accumulateAndGet(key, seen, Math::max);
        processed.incrementAndGet();
        inFlight.remove(item); // before done: right after it, another worker may get the key
        queue.done(item);
      }
    } catch (InterruptedException | RuntimeException e) {
      workerFailures.incrementAndGet();
    }
  }

  private static void busyWork() {
    if (ThreadLocalRandom.current().nextInt(4) == 0) {
      Thread.yield();
    } else {
      long until = System.nanoTime() + ThreadLocalRandom.current().nextInt(20_000);
      while (System.nanoTime() < until) {
        Thread.onSpinWait();
      }
    }
  }

  private static String key(int key) {
    return "key-" + key;
  }

  private static Thread start(String name, Runnable body) {
    Thread thread = new Thread(body, name);
    thread.start();
    return thread;
  }
}
