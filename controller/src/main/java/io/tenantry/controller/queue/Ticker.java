package io.tenantry.controller.queue;

/**
 * A monotonic time source in nanoseconds, like {@link System#nanoTime()}: only differences between
 * two readings are meaningful. Injected into the queues and rate limiters so tests can control time.
 */
@FunctionalInterface
public interface Ticker {

  /** The current reading, in nanoseconds from an arbitrary origin. */
  long nanoTime();

  /** The ticker backed by {@link System#nanoTime()}. */
  static Ticker system() {
    return System::nanoTime;
  }
}
