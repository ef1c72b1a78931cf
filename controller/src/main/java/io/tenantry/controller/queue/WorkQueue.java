package io.tenantry.controller.queue;

import io.micrometer.core.instrument.MeterRegistry;
import java.util.ArrayDeque;
import java.util.HashSet;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * A work queue with the semantics of client-go's {@code workqueue.Type}.
 *
 * <p>Guarantees:
 * <ul>
 *   <li>Items are handed out in the order they were first added (FIFO), but for those added with
 *       {@link #addFirst}, which go ahead of every other item waiting, in the order they were asked
 *       ahead; {@link #getAhead} hands out only those (workers reserved for them).</li>
 *   <li>Adding an item that is already waiting is a no-op: repeated adds collapse into one.</li>
 *   <li>An item is never handed to two workers at once: an item added while it is being processed
 *       is not handed out again until {@link #done} is called for it, and is then queued exactly
 *       once, however many times it was added meanwhile.</li>
 *   <li>After {@link #shutDown} new adds are ignored, but items already queued are still handed
 *       out; {@link #get} returns {@code null} only once the queue is shut down <em>and</em> empty
 *       (client-go's {@code Get} returning {@code shutdown == true}).</li>
 * </ul>
 *
 * <p>Every {@link #get} that returns an item must be followed by {@link #done} for that item.
 * Items are compared with {@code equals}; {@code null} items are rejected. All methods are
 * thread-safe.
 *
 * <p>Given a registry, the queue publishes client-go's metrics, labelled {@code name=<name>}
 * (so a name must be unique within a registry): {@code workqueue_depth} (items waiting to be
 * processed, including those added again while being processed), {@code workqueue_adds_total},
 * {@code workqueue_queue_duration_seconds} (add to get), {@code workqueue_work_duration_seconds}
 * (get to done), {@code workqueue_unfinished_work_seconds} and
 * {@code workqueue_longest_running_processor_seconds} (the total and the longest time the items now
 * being processed have been processing, computed when read).
 *
 * @param <T> the item type, typically a {@code namespace/name} key
 */
public class WorkQueue<T> {

  private final ReentrantLock lock = new ReentrantLock();
  /** Getters wait here for an item or for shutdown. */
  private final Condition itemQueued = lock.newCondition();
  /**
   * {@link #shutDownWithDrain} waits here. A condition of its own so that {@code done}
   * can wake every drainer without waking getters, and an add cannot wake a drainer instead of a getter.
   */
  private final Condition processingIdle = lock.newCondition();

  /** Reserved getters ({@link #getAhead}) wait here for an item added ahead, or for shutdown. */
  private final Condition aheadQueued = lock.newCondition();

  /** The order of work. Every queued item is in {@code dirty} and not in {@code processing}. */
  private final ArrayDeque<T> queue = new ArrayDeque<>();
  /** Items added with {@link #addFirst}, handed out before {@code queue}; kept as {@code queue} is. */
  private final ArrayDeque<T> ahead = new ArrayDeque<>();
  /** Items that need processing: queued ones, and processing ones that were added again. */
  private final Set<T> dirty = new HashSet<>();
  /** Items handed out by {@code get} and not yet {@code done}. */
  private final Set<T> processing = new HashSet<>();
  /** Processing items added again with {@link #addFirst}: {@code done} queues them at the front. */
  private final Set<T> first = new HashSet<>();

  private boolean shuttingDown;
  private boolean drain;

  final QueueMetrics<T> metrics;

  /** An unnamed queue without metrics, on the system ticker. */
  public WorkQueue() {
    this("", null, Ticker.system());
  }

  /**
   * @param name     the queue's name, the {@code name} label of its metrics
   * @param registry where to register the {@code workqueue_*} metrics; {@code null} for none
   * @param ticker   the time source for the duration metrics
   */
  public WorkQueue(String name, MeterRegistry registry, Ticker ticker) {
    this.metrics = new QueueMetrics<>(Objects.requireNonNull(name, "name"), registry,
        Objects.requireNonNull(ticker, "ticker"), lock);
  }

  /** Marks {@code item} as needing processing. Ignored after shutdown or if already waiting. */
  public final void add(T item) {
    Objects.requireNonNull(item, "item");
    lock.lock();
    try {
      if (shuttingDown || !dirty.add(item)) {
        return;
      }
      metrics.added(item);
      if (processing.contains(item)) {
        return; // done() queues it, so that no two workers ever hold it at once
      }
      queue.addLast(item);
      itemQueued.signal();
    } finally {
      lock.unlock();
    }
  }

  /**
   * Marks {@code item} as needing processing before every item added plainly: someone waits for it
   * (a customer for the first sync of the tenant just bound to them). An item already waiting
   * plainly moves ahead; one being processed is queued ahead by {@link #done}. Otherwise as
   * {@link #add}: ignored after shutdown, never handed to two workers at once.
   */
  public final void addFirst(T item) {
    Objects.requireNonNull(item, "item");
    lock.lock();
    try {
      if (shuttingDown) {
        return;
      }
      if (dirty.add(item)) {
        metrics.added(item);
      } else if (!processing.contains(item) && !queue.remove(item)) {
        return; // waiting ahead already: keeps its place
      } // else waiting plainly: moved ahead (a scan, but a signup's tenant is one among its burst)
      if (processing.contains(item)) {
        first.add(item); // done() queues it ahead
        return;
      }
      queueAhead(item);
    } finally {
      lock.unlock();
    }
  }

  /**
   * Blocks until an item can be processed and hands it out; the caller must call {@link #done}
   * with it when finished.
   *
   * @return the next item, or {@code null} once the queue is shut down and empty, which tells
   *     the worker to stop
   * @throws InterruptedException if the calling thread is interrupted while waiting
   */
  public final T get() throws InterruptedException {
    lock.lockInterruptibly();
    try {
      while (queue.isEmpty() && ahead.isEmpty() && !shuttingDown) {
        itemQueued.await();
      }
      if (!ahead.isEmpty()) {
        return handOut(ahead.removeFirst());
      }
      return queue.isEmpty() ? null : handOut(queue.removeFirst()); // null: shut down and nothing left
    } finally {
      lock.unlock();
    }
  }

  /**
   * As {@link #get}, but hands out only items added with {@link #addFirst}: for workers kept for
   * them, so that they never wait behind syncs of plain items.
   *
   * @return the next item added ahead, or {@code null} once the queue is shut down and has none
   * @throws InterruptedException if the calling thread is interrupted while waiting
   */
  public final T getAhead() throws InterruptedException {
    lock.lockInterruptibly();
    try {
      while (ahead.isEmpty() && !shuttingDown) {
        aheadQueued.await();
      }
      return ahead.isEmpty() ? null : handOut(ahead.removeFirst());
    } finally {
      lock.unlock();
    }
  }

  private T handOut(T item) {
    metrics.got(item);
    processing.add(item);
    dirty.remove(item);
    return item;
  }

  /** Queues an item ahead and wakes a getter of each kind: whichever comes first takes it. */
  private void queueAhead(T item) {
    ahead.addLast(item);
    itemQueued.signal();
    aheadQueued.signal();
  }

  /**
   * Marks {@code item} as processed. If it was added again while being processed, it is queued
   * again now, once. Calling it for an item that is not being processed does nothing (client-go
   * would queue a dirty item a second time, letting two workers hold it).
   */
  public final void done(T item) {
    Objects.requireNonNull(item, "item");
    lock.lock();
    try {
      if (!processing.remove(item)) {
        return;
      }
      metrics.done(item);
      boolean ahead = first.remove(item);
      if (dirty.contains(item)) {
        // Also after shutdown, as in client-go: it was added before.
        if (ahead) {
          queueAhead(item);
        } else {
          queue.addLast(item);
          itemQueued.signal();
        }
      }
      if (processing.isEmpty()) {
        processingIdle.signalAll();
      }
    } finally {
      lock.unlock();
    }
  }

  /** The number of queued items, not counting those being processed. For information only. */
  public final int len() {
    lock.lock();
    try {
      return queue.size() + ahead.size();
    } finally {
      lock.unlock();
    }
  }

  /**
   * Ignores all later adds and wakes every waiting {@link #get}. Queued items are still handed out;
   * {@code get} returns {@code null} once none are left. Also ends a pending
   * {@link #shutDownWithDrain} without waiting further. May be called more than once.
   */
  public void shutDown() {
    lock.lock();
    try {
      drain = false;
      shuttingDown = true;
      itemQueued.signalAll();
      aheadQueued.signalAll();
      processingIdle.signalAll();
    } finally {
      lock.unlock();
    }
  }

  /**
   * Shuts down like {@link #shutDown}, then waits until every item handed out has been
   * {@link #done done}, as client-go's {@code ShutDownWithDrain}. Workers must keep calling
   * {@code done}, or this blocks until {@link #shutDown} is called. Like client-go, it returns as
   * soon as nothing is being processed, even if queued items are still to be handed out.
   *
   * @throws InterruptedException if the calling thread is interrupted while waiting
   */
  public void shutDownWithDrain() throws InterruptedException {
    lock.lockInterruptibly();
    try {
      drain = true;
      shuttingDown = true;
      itemQueued.signalAll();
      aheadQueued.signalAll();
      while (!processing.isEmpty() && drain) {
        processingIdle.await();
      }
    } finally {
      lock.unlock();
    }
  }

  /** Whether {@link #shutDown} or {@link #shutDownWithDrain} has been called. */
  public final boolean isShuttingDown() {
    lock.lock();
    try {
      return shuttingDown;
    } finally {
      lock.unlock();
    }
  }
}
