package io.tenantry.controller.server;

import io.micrometer.core.instrument.Counter;
import java.time.Duration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.eclipse.jetty.http.HttpException;
import org.eclipse.jetty.io.Connection;
import org.eclipse.jetty.io.Content;
import org.eclipse.jetty.io.EndPoint;
import org.eclipse.jetty.io.ssl.SslConnection;
import org.eclipse.jetty.server.AbstractConnector;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.server.internal.HttpConnection;
import org.eclipse.jetty.util.Callback;

/**
 * The whole-request deadline against slow clients (slowloris): a request's headers and body must
 * arrive within the read limit of its first byte. Jetty bounds a connection by its idle time and
 * headers by their size, and its core server bounds a body not at all ({@code minRequestDataRate}
 * is honoured by its servlet layers alone): a client sending a byte just within each idle timeout
 * would hold a connection, or a handler, for hours.
 * <ul>
 *   <li>Headers: a sweep on the server's scheduler, every {@link #SWEEP}, notes when it first sees an
 *       HTTP/1.1 connection part-way through a request's headers and closes it (no answer is possible)
 *       once that is longer ago than the limit. The parser's state is read without the connection's
 *       lock: a stale read delays a close by one sweep, never closes a connection whose headers are in.
 *       HTTP/2 streams are bounded by their idle timeout.</li>
 *   <li>Body: a read past the limit fails with 408, and a handler waiting for body bytes is woken at
 *       the limit to see it; Jetty answers 408 and closes the connection (the rest is never read).</li>
 * </ul>
 */
final class RequestDeadline extends Handler.Wrapper {

  static final Duration SWEEP = Duration.ofMillis(100);

  private final AbstractConnector connector;
  private final long limitNanos;
  private final Counter late; // requests whose body was late (408)
  private final Counter cut; // connections closed for late headers
  /** Connections seen part-way through their headers, and since when (nanoTime); the sweep's alone. */
  private final Map<EndPoint, Long> readingHeaders = new HashMap<>();

  RequestDeadline(Handler handler, AbstractConnector connector, Duration limit, Counter late, Counter cut) {
    super(handler);
    this.connector = connector;
    this.limitNanos = limit.toNanos();
    this.late = late;
    this.cut = cut;
  }

  @Override
  protected void doStart() throws Exception {
    super.doStart();
    sweepLater();
  }

  private void sweepLater() {
    connector.getScheduler().schedule(() -> {
      if (isRunning()) {
        sweep();
        sweepLater();
      }
    }, SWEEP.toMillis(), TimeUnit.MILLISECONDS);
  }

  /** Closes the connections that have been receiving one request's headers for longer than the limit. */
  private void sweep() {
    long now = System.nanoTime();
    var open = connector.getConnectedEndPoints();
    readingHeaders.keySet().retainAll(new HashSet<>(open));
    for (EndPoint endPoint : open) {
      if (!readingHeaders(endPoint.getConnection())) {
        readingHeaders.remove(endPoint);
      } else if (now - readingHeaders.computeIfAbsent(endPoint, e -> now) > limitNanos) {
        readingHeaders.remove(endPoint);
        endPoint.close();
        cut.increment();
      }
    }
  }

  /** Whether an HTTP/1.1 connection has received part of a request's headers (not none, not all). */
  private static boolean readingHeaders(Connection connection) {
    if (connection instanceof SslConnection tls) {
      connection = tls.getSslEndPoint().getConnection();
    }
    return connection instanceof HttpConnection http && !http.getParser().isStart() && http.getParser().inHeaderState();
  }

  @Override
  public boolean handle(Request request, Response response, Callback callback) throws Exception {
    long deadline = request.getBeginNanoTime() + limitNanos;
    return super.handle(new Request.Wrapper(request) {
      private boolean counted;

      @Override
      public Content.Chunk read() {
        if (System.nanoTime() - deadline < 0) {
          return super.read();
        }
        if (!counted) {
          counted = true;
          late.increment();
        }
        return Content.Chunk.from(new HttpException.RuntimeException(408, "request body not received in time"), true);
      }

      /** Calls {@code onContent} once: when bytes arrive or at the deadline, whichever comes first. */
      @Override
      public void demand(Runnable onContent) {
        AtomicBoolean once = new AtomicBoolean();
        Runnable first = () -> {
          if (once.compareAndSet(false, true)) {
            onContent.run();
          }
        };
        getComponents().getScheduler().schedule(first, Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
        super.demand(first);
      }
    }, response, callback);
  }
}
