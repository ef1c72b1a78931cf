package io.tenantry.controller.server;

import java.io.IOException;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * The time limits of requests in progress: reading a request (its headers and body, from its first
 * byte) and writing its answer (from the status line on). The JDK server reads and writes with
 * blocking {@link java.nio.channels.SocketChannel} calls on the request's thread, and such a call
 * ends only when bytes move or the channel is closed; closing it is what interrupting the thread
 * does ({@link java.nio.channels.ClosedByInterruptException}). So a sweeper interrupts the thread
 * of every request blocked on its socket past its limit, and only while it is blocked there (each
 * blocking call is wrapped in a section): nothing else a request's thread does is interrupted.
 *
 * <p>A client still sending when the read limit passes gets {@code 408} on its next read (the
 * check before every read); one blocked longer than {@link #GRACE} past it (sending nothing) is
 * cut off: nothing can be answered on a closed channel.
 */
final class Deadlines implements AutoCloseable {

  /** How long a read blocked at its limit may still receive a byte (and the client a 408) before the connection is cut. */
  static final Duration GRACE = Duration.ofMillis(500);
  private static final long SWEEP_MILLIS = 50;

  private final Set<Guard> active = ConcurrentHashMap.newKeySet();
  private final ScheduledExecutorService sweeper = Executors.newSingleThreadScheduledExecutor(r -> {
    Thread t = new Thread(r, "http-deadlines");
    t.setDaemon(true);
    return t;
  });

  Deadlines() {
    sweeper.scheduleWithFixedDelay(this::sweep, SWEEP_MILLIS, SWEEP_MILLIS, TimeUnit.MILLISECONDS);
  }

  /**
   * Guards the request the current thread starts serving, which began (its first byte arrived) at
   * {@code startedNanos}; the thread is in its read section until {@link Guard#exit()}.
   *
   * @param onCut called when the sweeper cuts the request off
   */
  Guard begin(long startedNanos, Duration read, Duration write, Runnable onCut) {
    Guard guard = new Guard(Thread.currentThread(), startedNanos + read.toNanos(), write.toNanos(), onCut);
    active.add(guard);
    return guard;
  }

  private void sweep() {
    long now = System.nanoTime();
    for (Guard guard : active) {
      guard.cutIfDue(now);
    }
  }

  @Override
  public void close() {
    sweeper.shutdownNow();
  }

  /** A request read past its limit: answered 408 when the connection is still usable. */
  static final class RequestTimeoutException extends IOException {
    private static final long serialVersionUID = 1L;

    RequestTimeoutException() {
      super("request not read within its time limit");
    }
  }

  /** One request's limits, on the one thread that serves it. */
  final class Guard implements AutoCloseable {

    private enum Section { NONE, READING, WRITING }

    private final Thread thread;
    private final long readDeadline;
    private final long writeLimit;
    private final Runnable onCut;
    private long writeDeadline;
    private boolean writing;
    private Section section = Section.READING; // the server reads the request line and headers first
    private boolean interrupted;
    private boolean cut;

    private Guard(Thread thread, long readDeadline, long writeLimit, Runnable onCut) {
      this.thread = thread;
      this.readDeadline = readDeadline;
      this.writeLimit = writeLimit;
      this.onCut = onCut;
    }

    /** Enters a blocking read of the request; refused once the read limit has passed. */
    void reading() throws RequestTimeoutException {
      synchronized (this) {
        if (System.nanoTime() - readDeadline > 0) {
          throw new RequestTimeoutException();
        }
        section = Section.READING;
      }
    }

    /** Enters a blocking read that must not be refused (closing the body, which drains it). */
    synchronized void draining() {
      section = Section.READING;
    }

    /**
     * Enters a blocking write of the answer (or the close that ends the exchange); the write limit
     * runs from the first one. Past it, the sweeper cuts the connection.
     */
    synchronized void writing() {
      if (!writing) {
        writing = true;
        writeDeadline = System.nanoTime() + writeLimit;
      }
      section = Section.WRITING;
    }

    /** Leaves the blocking call; clears this guard's interrupt, which has done its work (the channel is closed). */
    void exit() {
      boolean clear;
      synchronized (this) {
        section = Section.NONE;
        clear = interrupted;
        interrupted = false;
      }
      if (clear) {
        Thread.interrupted();
      }
    }

    private void cutIfDue(long now) {
      synchronized (this) {
        boolean due = section == Section.READING && now - readDeadline - GRACE.toNanos() > 0
            || section == Section.WRITING && now - writeDeadline > 0;
        if (!due || interrupted) {
          return;
        }
        interrupted = true;
        thread.interrupt(); // Under the lock: exit() cannot clear the state before the interrupt is delivered.
        if (cut) {
          return;
        }
        cut = true;
      }
      onCut.run();
    }

    @Override
    public void close() {
      active.remove(this);
      exit();
    }
  }
}
