package io.tenantry.controller.queue;

import java.time.Duration;
import java.util.List;

/**
 * Combines rate limiters, as client-go's {@code MaxOfRateLimiter}: {@link #when} asks every limiter
 * (so each counts the retry) and returns the longest delay; {@link #numRequeues} is the largest
 * count; {@link #forget} forgets the item in every limiter. With a token bucket among them, the
 * burst can appear exceeded when some items were delayed longer by another limiter.
 *
 * @param <T> the item type
 */
public final class MaxOfRateLimiter<T> implements RateLimiter<T> {

  private final List<RateLimiter<T>> limiters;

  @SafeVarargs
  public MaxOfRateLimiter(RateLimiter<T>... limiters) {
    this.limiters = List.of(limiters);
  }

  @Override
  public Duration when(T item) {
    Duration longest = Duration.ZERO;
    for (RateLimiter<T> limiter : limiters) {
      Duration delay = limiter.when(item);
      if (delay.compareTo(longest) > 0) {
        longest = delay;
      }
    }
    return longest;
  }

  @Override
  public void forget(T item) {
    for (RateLimiter<T> limiter : limiters) {
      limiter.forget(item);
    }
  }

  @Override
  public int numRequeues(T item) {
    int most = 0;
    for (RateLimiter<T> limiter : limiters) {
      most = Math.max(most, limiter.numRequeues(item));
    }
    return most;
  }
}
