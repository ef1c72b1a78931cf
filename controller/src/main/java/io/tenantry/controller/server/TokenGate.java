package io.tenantry.controller.server;

import io.micrometer.core.instrument.Counter;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.io.Content;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;

/**
 * Checks the bearer token of requests to protected routes from their headers alone, before any
 * handler runs and before any byte of the body is read: a request without the token is answered
 * 401 at once, and a client whose tokens failed too often ({@link FailedClients}) 429 with
 * {@code Retry-After}. Both close the connection, so the unread body is never drained. Runs before
 * the listener's queue of handlers: a flood of bad tokens never waits for, nor takes, a handler.
 * The token is compared in constant time and never logged.
 */
final class TokenGate extends Handler.Wrapper {

  /** Protected path prefixes and their tokens (UTF-8). */
  private final Map<String, byte[]> tokens = new ConcurrentHashMap<>();
  private final FailedClients failed = new FailedClients(FailedClients.LIMIT, FailedClients.WINDOW, FailedClients.CAPACITY);
  private final Counter unauthenticated;
  private final Counter throttled;

  TokenGate(Counter unauthenticated, Counter throttled) {
    this.unauthenticated = unauthenticated;
    this.throttled = throttled;
  }

  /** Requests to {@code path} and below must carry {@code Authorization: Bearer <token>}. */
  void protect(String path, String token) {
    if (token == null || token.isBlank()) {
      throw new IllegalArgumentException("the token of " + path + " must not be empty");
    }
    tokens.put(path, token.strip().getBytes(StandardCharsets.UTF_8));
  }

  @Override
  public boolean handle(Request request, Response response, Callback callback) throws Exception {
    String path = request.getHttpURI().getCanonicalPath();
    byte[] token = tokens.entrySet().stream()
        .filter(e -> path.equals(e.getKey()) || path.startsWith(e.getKey() + "/")).map(Map.Entry::getValue)
        .findFirst().orElse(null);
    if (token == null) {
      return super.handle(request, response, callback);
    }
    String client = Request.getRemoteAddr(request);
    long now = System.nanoTime();
    Duration wait = failed.throttledFor(client, now);
    if (!wait.isZero()) {
      throttled.increment();
      response.getHeaders().put(HttpHeader.RETRY_AFTER, Long.toString(Math.max(1, (wait.toMillis() + 999) / 1000)));
      return refuse(response, callback, 429, "too many requests with a wrong token; retry later");
    }
    String header = request.getHeaders().get(HttpHeader.AUTHORIZATION);
    if (header == null || !header.regionMatches(true, 0, "Bearer ", 0, 7)) {
      failed.failed(client, now);
      return refuse(response, callback, 401, "missing bearer token: send Authorization: Bearer <token>");
    }
    if (!MessageDigest.isEqual(header.substring(7).strip().getBytes(StandardCharsets.UTF_8), token)) { // constant time
      failed.failed(client, now);
      return refuse(response, callback, 401, "invalid bearer token");
    }
    return super.handle(request, response, callback);
  }

  /** Answers {@code status} with the allocation API's error body, and closes the connection. */
  private boolean refuse(Response response, Callback callback, int status, String message) {
    if (status == 401) {
      unauthenticated.increment();
      response.getHeaders().put(HttpHeader.WWW_AUTHENTICATE, "Bearer");
    }
    response.setStatus(status);
    response.getHeaders().put(HttpHeader.CONTENT_TYPE, "application/json");
    response.getHeaders().put(HttpHeader.CONNECTION, "close");
    Content.Sink.write(response, true, "{\"error\":\"" + message + "\",\"field\":\"Authorization\"}", callback);
    return true;
  }

  /**
   * Clients (by address) that presented a wrong or no token, in a table of bounded size: a client
   * with {@code limit} failures within {@code window} of its first is throttled until that window
   * ends. When the table is full, the client seen least recently is forgotten (and starts again from
   * none), so a flood of addresses costs at most {@code capacity} entries. Thread-safe.
   */
  static final class FailedClients {

    static final int LIMIT = 10;
    static final Duration WINDOW = Duration.ofMinutes(1);
    static final int CAPACITY = 4096;

    private final int limit;
    private final long windowNanos;
    /** By client: when its window started (nanoTime), and its failures in it. */
    private final Map<String, long[]> table;

    FailedClients(int limit, Duration window, int capacity) {
      this.limit = limit;
      this.windowNanos = window.toNanos();
      this.table = new LinkedHashMap<>(64, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, long[]> eldest) {
          return size() > capacity;
        }
      };
    }

    /** Counts one failure of {@code client} at {@code now} (nanoTime). */
    synchronized void failed(String client, long now) {
      long[] failures = table.get(client);
      if (failures == null || now - failures[0] >= windowNanos) {
        failures = new long[] {now, 0};
        table.put(client, failures);
      }
      failures[1]++;
    }

    /** How long {@code client} is throttled from {@code now}: zero unless it failed {@code limit} times in a window not yet over. */
    synchronized Duration throttledFor(String client, long now) {
      long[] failures = table.get(client);
      if (failures == null || failures[1] < limit) {
        return Duration.ZERO;
      }
      long left = failures[0] + windowNanos - now;
      if (left > 0) {
        return Duration.ofNanos(left);
      }
      table.remove(client);
      return Duration.ZERO;
    }

    synchronized int size() {
      return table.size();
    }
  }
}
