package io.tenantry.controller.server;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.eclipse.jetty.http.HttpException;
import org.eclipse.jetty.io.Content;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;

/**
 * Holds a request's body to the read limit, counted from the request's first byte: a read past it
 * fails with 408, and a handler waiting for body bytes is woken at the limit to see that failure.
 * Jetty's core server bounds a body only by idle time (its {@code minRequestDataRate} is honoured by
 * its servlet layers alone), so a client sending one byte a second would otherwise hold a handler
 * for as long as its body lasts. When the handler lets the failure through, Jetty answers 408 and
 * closes the connection (the rest of the body is never read).
 */
final class BodyDeadline extends Handler.Wrapper {

  private final long limitNanos;
  private final Runnable onLate;

  /** @param onLate called once per request whose body was late */
  BodyDeadline(Handler handler, Duration limit, Runnable onLate) {
    super(handler);
    this.limitNanos = limit.toNanos();
    this.onLate = onLate;
  }

  @Override
  public boolean handle(Request request, Response response, Callback callback) throws Exception {
    return super.handle(new Limited(request, request.getBeginNanoTime() + limitNanos, onLate), response, callback);
  }

  /** The request, its reads refused past {@code deadline} (nanoTime). */
  private static final class Limited extends Request.Wrapper {

    private final long deadline;
    private final Runnable onLate;
    private final AtomicBoolean late = new AtomicBoolean();

    Limited(Request request, long deadline, Runnable onLate) {
      super(request);
      this.deadline = deadline;
      this.onLate = onLate;
    }

    @Override
    public Content.Chunk read() {
      if (System.nanoTime() - deadline > 0) {
        if (late.compareAndSet(false, true)) {
          onLate.run();
        }
        return Content.Chunk.from(new HttpException.RuntimeException(408, "request body not received in time"), true);
      }
      return super.read();
    }

    /** Calls {@code onContent} when bytes arrive or at the deadline, whichever comes first, once. */
    @Override
    public void demand(Runnable onContent) {
      long left = deadline - System.nanoTime();
      AtomicBoolean once = new AtomicBoolean();
      Runnable first = () -> {
        if (once.compareAndSet(false, true)) {
          onContent.run();
        }
      };
      if (left <= 0) {
        getContext().execute(first);
        return;
      }
      getComponents().getScheduler().schedule(first, left, TimeUnit.NANOSECONDS);
      super.demand(first);
    }
  }
}
