package io.tenantry.controller.queue;

import java.time.Duration;

/**
 * Decides how long an item waits before it is retried, as client-go's {@code workqueue.RateLimiter}.
 * Implementations are thread-safe.
 *
 * @param <T> the item type
 */
public interface RateLimiter<T> {

  /** How long {@code item} should wait before its next retry; counts the retry. Never negative. */
  Duration when(T item);

  /** Stops tracking {@code item}, after success or giving up; its next {@link #when} starts over. */
  void forget(T item);

  /** How many times {@link #when} was called for {@code item} since it was last forgotten. */
  int numRequeues(T item);

  /**
   * client-go's {@code DefaultControllerRateLimiter}: the larger of a per-item exponential backoff
   * (5ms doubling up to 1000s) and an overall token bucket (10 qps, burst 100), on the system ticker.
   */
  static <T> RateLimiter<T> defaultControllerRateLimiter() {
    return defaultControllerRateLimiter(Ticker.system());
  }

  /** {@link #defaultControllerRateLimiter()} with the token bucket on {@code ticker}. */
  static <T> RateLimiter<T> defaultControllerRateLimiter(Ticker ticker) {
    return new MaxOfRateLimiter<>(
        new ItemExponentialFailureRateLimiter<>(Duration.ofMillis(5), Duration.ofSeconds(1000)),
        new BucketRateLimiter<>(10, 100, ticker));
  }
}
