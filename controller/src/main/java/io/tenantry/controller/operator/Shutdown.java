package io.tenantry.controller.operator;

import static net.logstash.logback.argument.StructuredArguments.kv;

import java.time.Duration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Stopping within a budget, step by step, whatever the steps wait on (an API server that does not
 * answer makes a client retry for tens of seconds). Each step runs on a daemon thread of its own and
 * is waited for at most its own limit and what is left of the budget; a step still running then is
 * interrupted and left behind (logged), and the next one starts. So the last step ends within the
 * budget, and a process that exits after it is not killed by its grace period.
 *
 * <p>Not thread-safe: one thread runs the steps in order.
 */
public final class Shutdown {

  /** The operator's budget from SIGTERM: well within the chart's terminationGracePeriodSeconds (30 s). */
  public static final Duration BUDGET = Duration.ofSeconds(9);
  private static final Logger LOG = LoggerFactory.getLogger(Shutdown.class);

  private final long deadline;

  public Shutdown(Duration budget) {
    this.deadline = System.nanoTime() + budget.toNanos();
  }

  /**
   * Runs {@code step} for at most {@code limit} (less when the budget has less left).
   *
   * @return whether it finished in time (its failures are logged, not thrown)
   */
  public boolean step(String name, Duration limit, Runnable step) {
    long wait = Math.min(limit.toNanos(), deadline - System.nanoTime());
    if (wait <= 0) {
      LOG.warn("shutdown step skipped: no time left {}", kv("step", name));
      return false;
    }
    Thread thread = new Thread(() -> {
      try {
        step.run();
      } catch (RuntimeException e) {
        LOG.warn("shutdown step failed {} {}", kv("step", name), kv("error", e.toString()));
      }
    }, "shutdown-" + name);
    thread.setDaemon(true);
    thread.start();
    try {
      thread.join(Math.max(1, wait / 1_000_000));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    if (thread.isAlive()) {
      thread.interrupt();
      LOG.warn("shutdown step given up {} {}", kv("step", name), kv("afterMillis", wait / 1_000_000));
      return false;
    }
    return true;
  }
}
