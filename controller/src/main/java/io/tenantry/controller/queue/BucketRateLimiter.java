package io.tenantry.controller.queue;

import java.time.Duration;

/**
 * An overall token bucket, as client-go's {@code BucketRateLimiter} over {@code rate.Limiter}:
 * the bucket holds at most {@code burst} tokens, starts full and refills at {@code qps} tokens per
 * second. Each {@link #when} reserves one token, whatever the item, and returns how long until that
 * token is available: zero while the burst lasts, then one {@code 1/qps} step more for each further
 * reservation made before the bucket refills. Does not track items: {@link #numRequeues} is 0 and
 * {@link #forget} does nothing.
 *
 * @param <T> the item type
 */
public final class BucketRateLimiter<T> implements RateLimiter<T> {

  private final double qps;
  private final int burst;
  private final Ticker ticker;

  /** Available tokens; negative when reservations are queued for future tokens. */
  private double tokens;
  private long last;

  /** 10 qps, burst 100: the overall part of the default controller rate limiter. */
  public BucketRateLimiter() {
    this(10, 100, Ticker.system());
  }

  public BucketRateLimiter(double qps, int burst, Ticker ticker) {
    if (!(qps > 0) || Double.isInfinite(qps) || burst < 1) {
      throw new IllegalArgumentException("need qps > 0 and burst >= 1, got " + qps + ", " + burst);
    }
    this.qps = qps;
    this.burst = burst;
    this.ticker = ticker;
    this.tokens = burst;
    this.last = ticker.nanoTime();
  }

  @Override
  public synchronized Duration when(T item) {
    long now = ticker.nanoTime();
    tokens = Math.min(burst, tokens + Math.max(0, now - last) * qps / 1e9);
    last = now;
    tokens -= 1;
    if (tokens >= 0) {
      return Duration.ZERO;
    }
    return Duration.ofNanos(Math.round(-tokens / qps * 1e9));
  }

  @Override
  public void forget(T item) {
  }

  @Override
  public int numRequeues(T item) {
    return 0;
  }
}
