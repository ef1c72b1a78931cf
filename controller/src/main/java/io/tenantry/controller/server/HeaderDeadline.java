package io.tenantry.controller.server;

import java.time.Duration;
import java.util.Collection;
import java.util.HashSet;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.eclipse.jetty.io.Connection;
import org.eclipse.jetty.io.EndPoint;
import org.eclipse.jetty.io.ssl.SslConnection;
import org.eclipse.jetty.server.AbstractConnector;
import org.eclipse.jetty.server.internal.HttpConnection;

/**
 * Closes HTTP/1.1 connections whose request headers have not all arrived within the read limit of
 * their first byte. Jetty bounds headers by size and a connection by its idle time, not a request
 * by its total time: a client trickling one header byte a second would hold a connection (not a
 * thread) until the size limit. A sweep on the server's scheduler (every {@link #SWEEP}) notes
 * when it first sees a connection part-way through its headers and closes it once that is longer
 * ago than the limit. The parser's state is read from the sweep's thread without the connection's
 * lock: a stale read delays a close by one sweep, never closes a connection whose headers are in.
 * HTTP/2 streams are bounded by their own idle timeout.
 */
final class HeaderDeadline implements Runnable {

  static final Duration SWEEP = Duration.ofMillis(100);

  private final AbstractConnector connector;
  private final long limitNanos;
  private final Runnable onCut;
  /** Connections seen part-way through their headers, and since when (nanoTime); only the sweep's thread writes it. */
  private final Map<EndPoint, Long> since = new ConcurrentHashMap<>();

  HeaderDeadline(AbstractConnector connector, Duration limit, Runnable onCut) {
    this.connector = connector;
    this.limitNanos = limit.toNanos();
    this.onCut = onCut;
  }

  @Override
  public void run() {
    long now = System.nanoTime();
    Collection<EndPoint> open = connector.getConnectedEndPoints();
    since.keySet().retainAll(new HashSet<>(open));
    for (EndPoint endPoint : open) {
      if (!readingHeaders(endPoint.getConnection())) {
        since.remove(endPoint);
        continue;
      }
      long first = since.computeIfAbsent(endPoint, e -> now);
      if (now - first > limitNanos) {
        since.remove(endPoint);
        endPoint.close();
        onCut.run();
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
}
