package io.tenantry.controller.server;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Clients (by address) that presented a wrong or no bearer token, in a table of bounded size: a
 * client with {@code limit} failures within {@code window} of its first is throttled until that
 * window ends. When the table is full, the client seen least recently is forgotten, so a flood of
 * addresses costs at most {@code capacity} entries; a forgotten client starts again from none.
 *
 * <p>Thread-safe: every method holds the table's lock, for a map operation and a few comparisons.
 */
final class FailedClients {

  static final int LIMIT = 10;
  static final Duration WINDOW = Duration.ofMinutes(1);
  static final int CAPACITY = 4096;

  private final int limit;
  private final long windowNanos;
  private final Map<String, Failures> table;

  /** One client's failures in its current window. */
  private static final class Failures {
    private final long windowStart;
    private int count;

    Failures(long windowStart) {
      this.windowStart = windowStart;
    }
  }

  FailedClients(int limit, Duration window, int capacity) {
    this.limit = limit;
    this.windowNanos = window.toNanos();
    this.table = new LinkedHashMap<>(64, 0.75f, true) {
      @Override
      protected boolean removeEldestEntry(Map.Entry<String, Failures> eldest) {
        return size() > capacity;
      }
    };
  }

  /** Counts one failure of {@code client} at {@code now} (nanoTime). */
  synchronized void failed(String client, long now) {
    Failures failures = table.get(client);
    if (failures == null || now - failures.windowStart >= windowNanos) {
      failures = new Failures(now);
      table.put(client, failures);
    }
    failures.count++;
  }

  /**
   * How long {@code client} is throttled from {@code now}: zero when it is not (fewer than
   * {@code limit} failures in its window, or the window is over).
   */
  synchronized Duration throttledFor(String client, long now) {
    Failures failures = table.get(client);
    if (failures == null || failures.count < limit) {
      return Duration.ZERO;
    }
    long left = failures.windowStart + windowNanos - now;
    if (left <= 0) {
      table.remove(client);
      return Duration.ZERO;
    }
    return Duration.ofNanos(left);
  }

  synchronized int size() {
    return table.size();
  }
}
