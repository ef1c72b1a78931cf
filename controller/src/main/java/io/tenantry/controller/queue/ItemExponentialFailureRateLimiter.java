package io.tenantry.controller.queue;

import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;

/**
 * Per-item exponential backoff, as client-go's {@code ItemExponentialFailureRateLimiter}: the n-th
 * {@link #when} for an item since it was last {@linkplain #forget forgotten} returns
 * {@code baseDelay * 2^(n-1)}, capped at {@code maxDelay}. The computation cannot overflow, however
 * many failures an item has. Items are tracked independently; {@code forget} resets one.
 *
 * @param <T> the item type
 */
public final class ItemExponentialFailureRateLimiter<T> implements RateLimiter<T> {

  private final Map<T, Integer> failures = new HashMap<>();
  private final long baseDelayNanos;
  private final Duration maxDelay;
  private final double maxDelayNanos;

  /** 5ms doubling up to 1000s: the per-item part of the default controller rate limiter. */
  public ItemExponentialFailureRateLimiter() {
    this(Duration.ofMillis(5), Duration.ofSeconds(1000));
  }

  public ItemExponentialFailureRateLimiter(Duration baseDelay, Duration maxDelay) {
    if (baseDelay.isNegative() || maxDelay.compareTo(baseDelay) < 0) {
      throw new IllegalArgumentException("need 0 <= baseDelay <= maxDelay, got " + baseDelay + ", " + maxDelay);
    }
    this.baseDelayNanos = baseDelay.toNanos();
    this.maxDelay = maxDelay;
    this.maxDelayNanos = maxDelay.getSeconds() * 1e9 + maxDelay.getNano();
  }

  @Override
  public synchronized Duration when(T item) {
    Objects.requireNonNull(item, "item");
    int exponent = failures.getOrDefault(item, 0);
    failures.put(item, exponent == Integer.MAX_VALUE ? exponent : exponent + 1);
    // In double, 2^exponent becomes Infinity instead of wrapping; anything at or above the cap is the cap.
    double backoff = baseDelayNanos * Math.pow(2, exponent);
    if (backoff >= maxDelayNanos || backoff >= Long.MAX_VALUE) {
      return maxDelay;
    }
    return Duration.ofNanos((long) backoff);
  }

  @Override
  public synchronized void forget(T item) {
    failures.remove(item);
  }

  @Override
  public synchronized int numRequeues(T item) {
    return failures.getOrDefault(item, 0);
  }
}
