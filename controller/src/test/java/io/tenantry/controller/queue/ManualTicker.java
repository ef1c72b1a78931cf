package io.tenantry.controller.queue;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;

/** A ticker that moves only when told to; starts at an arbitrary large reading, as nanoTime may. */
final class ManualTicker implements Ticker {

  private final AtomicLong now = new AtomicLong(Long.MAX_VALUE - Duration.ofDays(1).toNanos());

  @Override
  public long nanoTime() {
    return now.get();
  }

  void advance(Duration duration) {
    now.addAndGet(duration.toNanos());
  }
}
