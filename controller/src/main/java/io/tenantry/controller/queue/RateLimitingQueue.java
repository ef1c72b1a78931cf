package io.tenantry.controller.queue;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Duration;
import java.util.Objects;

/**
 * The operator's work queue: a {@link DelayingQueue} whose retries are delayed by a
 * {@link RateLimiter}, as client-go's rate-limiting queue.
 *
 * <p>A worker's loop: {@link #get}; reconcile; on success {@link #forget} (resets the item's
 * backoff), on failure {@link #addRateLimited}; in both cases {@link #done}. It has every guarantee
 * of {@link WorkQueue} and {@link DelayingQueue}.
 *
 * <p>Metrics, labelled {@code name=<queue name>}: those of {@link WorkQueue}, plus
 * {@code workqueue_retries_total}, counted by {@link #addRateLimited} only (client-go counts every
 * {@code AddAfter} call, including plain delayed adds that are not retries).
 *
 * @param <T> the item type
 */
public final class RateLimitingQueue<T> extends DelayingQueue<T> {

  private final RateLimiter<T> rateLimiter;
  private final Counter retries;

  /** A queue on the system ticker. */
  public RateLimitingQueue(String name, RateLimiter<T> rateLimiter, MeterRegistry registry) {
    this(name, rateLimiter, registry, Ticker.system());
  }

  /**
   * @param name        the queue's name: metric label and thread name
   * @param rateLimiter decides the delay of {@link #addRateLimited}, e.g.
   *                    {@link RateLimiter#defaultControllerRateLimiter()}
   * @param registry    where to register the metrics; {@code null} for none
   * @param ticker      the time source for delays and metrics
   */
  public RateLimitingQueue(String name, RateLimiter<T> rateLimiter, MeterRegistry registry, Ticker ticker) {
    this(name, rateLimiter, registry, ticker, MAX_WAIT);
  }

  RateLimitingQueue(String name, RateLimiter<T> rateLimiter, MeterRegistry registry, Ticker ticker,
      Duration maxWait) {
    super(name, registry, ticker, maxWait);
    this.rateLimiter = Objects.requireNonNull(rateLimiter, "rateLimiter");
    this.retries = registry == null ? null
        : Counter.builder("workqueue.retries").description("Total number of retries handled by workqueue")
            .tag("name", name).register(registry);
  }

  /** Adds {@code item} after the delay the rate limiter gives it now. Ignored after shutdown. */
  public void addRateLimited(T item) {
    if (isShuttingDown()) {
      return; // and not counted, neither as a retry nor by the rate limiter
    }
    if (retries != null) {
      retries.increment();
    }
    addAfter(item, rateLimiter.when(item));
  }

  /**
   * Stops the rate limiter tracking {@code item}, after success or giving up. Call {@link #done}
   * as well: this only resets the backoff.
   */
  public void forget(T item) {
    rateLimiter.forget(item);
  }

  /** How many times {@code item} was rate-limited since it was last forgotten. */
  public int numRequeues(T item) {
    return rateLimiter.numRequeues(item);
  }
}
