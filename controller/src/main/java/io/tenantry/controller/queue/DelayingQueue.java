package io.tenantry.controller.queue;

import io.micrometer.core.instrument.MeterRegistry;
import java.time.Duration;
import java.util.Comparator;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import java.util.PriorityQueue;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * A {@link WorkQueue} that can also add an item after a delay, as client-go's delaying queue.
 *
 * <p>Guarantees of {@link #addAfter}: the item is not added before its delay has passed (by the
 * queue's {@link Ticker}); an item waiting more than once is added once, at the earliest of its
 * ready times, so a later {@code addAfter} never postpones it and an earlier one brings it forward;
 * when it becomes ready it goes through {@link #add}, with all of its deduplication.
 *
 * <p>One daemon thread per queue ({@code workqueue-delay-<name>}) holds the waiting items in a
 * priority queue by ready time, with a map from item to entry, like client-go's
 * {@code waitingLoop}. {@link #shutDown} and {@link #shutDownWithDrain} stop it and drop the items
 * still waiting.
 *
 * @param <T> the item type
 */
public class DelayingQueue<T> extends WorkQueue<T> {

  /** How long the waiting thread sleeps at most before re-reading the ticker (client-go's maxWait). */
  static final Duration MAX_WAIT = Duration.ofSeconds(10);
  /** Longer delays are cut to this (~73 years), so that ticker differences cannot overflow. */
  private static final long MAX_DELAY_NANOS = Long.MAX_VALUE / 4;

  private final Ticker ticker;
  private final long maxWaitNanos;

  private final ReentrantLock waitingLock = new ReentrantLock();
  /** Signalled when the earliest ready time changes or the queue stops. */
  private final Condition waitingChanged = waitingLock.newCondition();
  private final PriorityQueue<Waiting<T>> waiting = new PriorityQueue<>(Waiting.BY_READY_TIME);
  private final Map<T, Waiting<T>> waitingByItem = new HashMap<>();
  private long nextSequence;
  private boolean stopped;

  private final Thread waitingThread;

  /**
   * @param name     the queue's name: metric label and thread name
   * @param registry where to register the metrics; {@code null} for none
   * @param ticker   the time source for delays and metrics
   */
  public DelayingQueue(String name, MeterRegistry registry, Ticker ticker) {
    this(name, registry, ticker, MAX_WAIT);
  }

  /** {@code maxWait} bounds each sleep of the waiting thread; tests with a manual ticker make it short. */
  DelayingQueue(String name, MeterRegistry registry, Ticker ticker, Duration maxWait) {
    super(name, registry, ticker);
    this.ticker = ticker;
    this.maxWaitNanos = maxWait.toNanos();
    // Started last: the thread uses only the fields above and the final add().
    this.waitingThread = new Thread(this::waitingLoop, "workqueue-delay-" + name);
    waitingThread.setDaemon(true);
    waitingThread.start();
  }

  /**
   * Adds {@code item} once {@code delay} has passed; a delay of zero or less adds it now.
   * Ignored after shutdown.
   */
  public final void addAfter(T item, Duration delay) {
    Objects.requireNonNull(item, "item");
    Objects.requireNonNull(delay, "delay");
    if (isShuttingDown()) {
      return;
    }
    if (delay.isZero() || delay.isNegative()) {
      add(item);
      return;
    }
    long delayNanos = delay.compareTo(Duration.ofNanos(MAX_DELAY_NANOS)) > 0 ? MAX_DELAY_NANOS : delay.toNanos();
    long readyAt = ticker.nanoTime() + delayNanos;
    waitingLock.lock();
    try {
      if (stopped) {
        return;
      }
      Waiting<T> entry = waitingByItem.get(item);
      if (entry == null) {
        entry = new Waiting<>(item, readyAt, nextSequence++);
        waiting.add(entry);
        waitingByItem.put(item, entry);
      } else if (readyAt - entry.readyAt < 0) {
        waiting.remove(entry); // re-inserted to restore the heap order, like heap.Fix
        entry.readyAt = readyAt;
        waiting.add(entry);
      } else {
        return; // already waiting to be added sooner: the earliest time wins
      }
      if (waiting.peek() == entry) {
        waitingChanged.signal(); // the thread must wake earlier than it planned
      }
    } finally {
      waitingLock.unlock();
    }
  }

  /** How many items wait to be added within {@code horizon}: work already planned (benchmarks wait for it). */
  public final int dueWithin(Duration horizon) {
    long limit = ticker.nanoTime() + horizon.toNanos();
    waitingLock.lock();
    try {
      return (int) waiting.stream().filter(w -> w.readyAt - limit <= 0).count();
    } finally {
      waitingLock.unlock();
    }
  }

  @Override
  public void shutDown() {
    super.shutDown();
    stopWaiting();
  }

  @Override
  public void shutDownWithDrain() throws InterruptedException {
    stopWaiting(); // first: the drain may block for long, and waiting items would be ignored anyway
    super.shutDownWithDrain();
  }

  /** Whether the waiting thread is still running; it ends soon after shutdown. */
  final boolean waitingThreadAlive() {
    return waitingThread.isAlive();
  }

  private void stopWaiting() {
    waitingLock.lock();
    try {
      stopped = true;
      waiting.clear();
      waitingByItem.clear();
      waitingChanged.signal();
    } finally {
      waitingLock.unlock();
    }
  }

  private void waitingLoop() {
    waitingLock.lock();
    try {
      while (!stopped) {
        long now = ticker.nanoTime();
        Waiting<T> head;
        while ((head = waiting.peek()) != null && head.readyAt - now <= 0) {
          waiting.poll();
          waitingByItem.remove(head.item);
          add(head.item);
        }
        long sleep = head == null ? maxWaitNanos : Math.min(head.readyAt - now, maxWaitNanos);
        waitingChanged.awaitNanos(sleep);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt(); // nobody but the JVM interrupts this thread: just end
    } finally {
      waitingLock.unlock();
    }
  }

  /** An item waiting for its ready time; the sequence keeps equal ready times in call order. */
  private static final class Waiting<T> {
    static final Comparator<Waiting<?>> BY_READY_TIME = (a, b) -> {
      long diff = a.readyAt - b.readyAt; // nanoTime readings compare by difference
      return diff != 0 ? Long.signum(diff) : Long.compare(a.sequence, b.sequence);
    };

    final T item;
    final long sequence;
    long readyAt;

    Waiting(T item, long readyAt, long sequence) {
      this.item = item;
      this.readyAt = readyAt;
      this.sequence = sequence;
    }
  }
}
