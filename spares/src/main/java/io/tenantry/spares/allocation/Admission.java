package io.tenantry.spares.allocation;

import java.util.ArrayDeque;
import java.util.Queue;
import java.util.concurrent.Executor;

/**
 * How many of the allocation API's requests run on a thread at once: at most {@code maxRunning};
 * up to {@code maxQueued} more wait, holding no thread, and run in arrival order as running ones
 * finish (on the executor they came with); beyond that they are refused at once. The API limits
 * itself rather than sit behind its listener's QoS, which counts a request until its answer is sent:
 * an answer waiting for its tenant to serve holds no thread, and must not hold a place either.
 * A queued request has no deadline of its own: it waits for a running one to end, and those are
 * bounded by their clients' timeouts (Kubernetes, Datastore) and the listener's read timeout.
 */
final class Admission {

  private record Queued(Runnable task, Executor executor) {
  }

  private final int maxRunning;
  private final int maxQueued;
  /** Guarded by {@code this}. */
  private final Queue<Queued> queued = new ArrayDeque<>();
  /** Guarded by {@code this}. */
  private int running;

  Admission(int maxRunning, int maxQueued) {
    if (maxRunning < 1 || maxQueued < 0) {
      throw new IllegalArgumentException("maxRunning must be at least 1 and maxQueued not negative");
    }
    this.maxRunning = maxRunning;
    this.maxQueued = maxQueued;
  }

  /**
   * Runs {@code task} now on this thread, or later on {@code executor} once a running one finishes;
   * false, and nothing run, when {@code maxQueued} tasks wait already.
   */
  boolean submit(Runnable task, Executor executor) {
    synchronized (this) {
      if (running >= maxRunning) {
        return queued.size() < maxQueued && queued.add(new Queued(task, executor));
      }
      running++;
    }
    runThenNext(task);
    return true;
  }

  private void runThenNext(Runnable task) {
    try {
      task.run();
    } finally {
      Queued next;
      synchronized (this) {
        next = queued.poll();
        if (next == null) {
          running--;
        }
      }
      if (next != null) { // its place passes on: dispatched, so that a long queue never deepens this stack
        next.executor().execute(() -> runThenNext(next.task()));
      }
    }
  }
}
