package io.tenantry.controller.queue;

import static net.logstash.logback.argument.StructuredArguments.kv;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BiConsumer;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The worker pool of the controller loop, as in sample-controller: each worker takes a key,
 * syncs it, and either forgets its failures (success) or re-adds it rate-limited (failure), then
 * marks it done. The queue guarantees a key is never synced by two workers at once.
 */
public final class Workers {

  private static final Logger LOG = LoggerFactory.getLogger(Workers.class);

  private final RateLimitingQueue<String> queue;
  private final Function<String, SyncResult> sync;
  private final BiConsumer<String, Exception> onFailure;
  private final List<Thread> threads = new ArrayList<>();
  private final AtomicInteger inProgress = new AtomicInteger();
  private final Timer succeeded;
  private final Timer failed;

  /**
   * @param name what the workers sync ("tenants", "sparepools"); tags their metrics
   * @param sync syncs one key and says what next; throwing means "retry with backoff"
   * @param onFailure records a failure (condition, event) before the retry is scheduled
   */
  public Workers(String name, RateLimitingQueue<String> queue, Function<String, SyncResult> sync,
      BiConsumer<String, Exception> onFailure, MeterRegistry registry) {
    this.queue = queue;
    this.sync = sync;
    this.onFailure = onFailure;
    this.succeeded = Timer.builder("tenantry.sync").tags("queue", name, "result", "success").description("Syncs").register(registry);
    this.failed = Timer.builder("tenantry.sync").tags("queue", name, "result", "failure").description("Syncs").register(registry);
    Gauge.builder("tenantry.syncs.in.progress", inProgress, AtomicInteger::get).tag("queue", name)
        .description("Syncs running now").register(registry);
  }

  /** Syncs running right now. */
  public int inProgress() {
    return inProgress.get();
  }

  public void start(int count) {
    start(count, 0);
  }

  /**
   * Starts {@code count} workers that take any key, and {@code reserved} more that take only keys
   * added ahead ({@link WorkQueue#addFirst}): someone waits for those, and a burst of them must not
   * wait for a worker busy with other syncs.
   */
  public void start(int count, int reserved) {
    for (int i = 0; i < count + reserved; i++) {
      boolean anyKey = i < count;
      Thread thread = new Thread(() -> run(anyKey), anyKey ? "worker-" + i : "worker-ahead-" + (i - count));
      threads.add(thread);
      thread.start();
    }
  }

  /** Waits for every worker to finish once the queue has shut down. */
  public void join() throws InterruptedException {
    for (Thread thread : threads) {
      thread.join();
    }
  }

  private void run(boolean anyKey) {
    while (true) {
      String key;
      try {
        key = anyKey ? queue.get() : queue.getAhead();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      }
      if (key == null) {
        return; // Shut down and drained.
      }
      inProgress.incrementAndGet();
      long started = System.nanoTime();
      try {
        SyncResult result = sync.apply(key);
        succeeded.record(System.nanoTime() - started, TimeUnit.NANOSECONDS);
        if (result.backoff()) {
          queue.addRateLimited(key);
        } else {
          queue.forget(key);
          if (result.requeueAfter() != null) {
            queue.addAfter(key, result.requeueAfter());
          }
        }
      } catch (Exception e) {
        failed.record(System.nanoTime() - started, TimeUnit.NANOSECONDS);
        onFailure.accept(key, e);
        queue.addRateLimited(key);
        LOG.debug("requeued with backoff {} {}", kv("tenant", key), kv("requeues", queue.numRequeues(key)));
      } finally {
        queue.done(key);
        inProgress.decrementAndGet();
      }
    }
  }
}
