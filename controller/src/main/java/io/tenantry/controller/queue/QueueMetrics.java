package io.tenantry.controller.queue;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Lock;
import java.util.function.DoubleSupplier;

/**
 * The metrics of one {@link WorkQueue}, with client-go's names, units and label ({@code name}),
 * as exposed by Prometheus: {@code workqueue_depth}, {@code workqueue_adds_total},
 * {@code workqueue_queue_duration_seconds}, {@code workqueue_work_duration_seconds},
 * {@code workqueue_unfinished_work_seconds} and {@code workqueue_longest_running_processor_seconds}
 * ({@code workqueue_retries_total} belongs to {@link RateLimitingQueue}).
 *
 * <p>The recording methods are called with the queue's lock held; the gauges take that lock when
 * read, so a scrape sees a consistent state. Without a registry nothing is tracked.
 */
final class QueueMetrics<T> {

  /** client-go's histogram buckets for both durations: 10ns to 10s, by factors of 10. */
  private static final Duration[] BUCKETS = {
    Duration.ofNanos(10), Duration.ofNanos(100), Duration.ofNanos(1_000), Duration.ofNanos(10_000),
    Duration.ofNanos(100_000), Duration.ofMillis(1), Duration.ofMillis(10), Duration.ofMillis(100),
    Duration.ofSeconds(1), Duration.ofSeconds(10),
  };

  private final boolean enabled;
  private final Ticker ticker;
  private final Lock lock;

  /** When each dirty item was added (the first add since it was last handed out). */
  private final Map<T, Long> addTimes = new HashMap<>();
  /** When each item being processed was handed out. */
  private final Map<T, Long> processingStartTimes = new HashMap<>();
  private long depth;

  private final Counter adds;
  private final Timer queueDuration;
  private final Timer workDuration;

  QueueMetrics(String name, MeterRegistry registry, Ticker ticker, Lock lock) {
    this.enabled = registry != null;
    this.ticker = ticker;
    this.lock = lock;
    if (!enabled) {
      adds = null;
      queueDuration = null;
      workDuration = null;
      return;
    }
    Tags tags = Tags.of("name", name);
    Gauge.builder("workqueue.depth", this, m -> m.read(() -> m.depth))
        .description("Current depth of workqueue").tags(tags).register(registry);
    adds = Counter.builder("workqueue.adds")
        .description("Total number of adds handled by workqueue").tags(tags).register(registry);
    queueDuration = Timer.builder("workqueue.queue.duration")
        .description("How long in seconds an item stays in workqueue before being requested")
        .serviceLevelObjectives(BUCKETS).tags(tags).register(registry);
    workDuration = Timer.builder("workqueue.work.duration")
        .description("How long in seconds processing an item from workqueue takes")
        .serviceLevelObjectives(BUCKETS).tags(tags).register(registry);
    Gauge.builder("workqueue.unfinished.work", this, m -> m.read(m::unfinishedWorkSeconds))
        .description("How many seconds of work has been done that is in progress and hasn't been "
            + "observed by work_duration. Large values indicate stuck threads.")
        .baseUnit("seconds").tags(tags).register(registry);
    Gauge.builder("workqueue.longest.running.processor", this, m -> m.read(m::longestRunningSeconds))
        .description("How many seconds has the longest running processor for workqueue been running.")
        .baseUnit("seconds").tags(tags).register(registry);
  }

  /** An item became dirty. */
  void added(T item) {
    if (!enabled) {
      return;
    }
    adds.increment();
    depth++;
    addTimes.putIfAbsent(item, ticker.nanoTime());
  }

  /** An item was handed out to a worker. */
  void got(T item) {
    if (!enabled) {
      return;
    }
    long now = ticker.nanoTime();
    depth--;
    processingStartTimes.put(item, now);
    Long addedAt = addTimes.remove(item);
    if (addedAt != null) {
      queueDuration.record(now - addedAt, TimeUnit.NANOSECONDS);
    }
  }

  /** A worker finished an item. */
  void done(T item) {
    if (!enabled) {
      return;
    }
    Long startedAt = processingStartTimes.remove(item);
    if (startedAt != null) {
      workDuration.record(ticker.nanoTime() - startedAt, TimeUnit.NANOSECONDS);
    }
  }

  // client-go refreshes these two gauges every 500ms from a goroutine; computing them when read
  // gives the same values without a thread.
  private double unfinishedWorkSeconds() {
    long now = ticker.nanoTime();
    long total = 0;
    for (long startedAt : processingStartTimes.values()) {
      total += now - startedAt;
    }
    return total / 1e9;
  }

  private double longestRunningSeconds() {
    long now = ticker.nanoTime();
    long longest = 0;
    for (long startedAt : processingStartTimes.values()) {
      longest = Math.max(longest, now - startedAt);
    }
    return longest / 1e9;
  }

  private double read(DoubleSupplier value) {
    lock.lock();
    try {
      return value.getAsDouble();
    } finally {
      lock.unlock();
    }
  }
}
