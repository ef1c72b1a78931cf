package io.tenantry.controller.server;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.eclipse.jetty.http.HttpHeader;
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
 *
 * <p>The token is compared in constant time and never logged.
 */
final class TokenGate extends Handler.Wrapper {

  /** Protected path prefixes and their tokens (UTF-8). */
  private final Map<String, byte[]> tokens = new ConcurrentHashMap<>();
  private final FailedClients failed;
  private final Refusals refusals;

  TokenGate(FailedClients failed, Refusals refusals) {
    this.failed = failed;
    this.refusals = refusals;
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
    byte[] token = tokenOf(Request.getPathInContext(request));
    if (token == null) {
      return super.handle(request, response, callback);
    }
    String client = Request.getRemoteAddr(request);
    long now = System.nanoTime();
    Duration throttled = failed.throttledFor(client, now);
    if (!throttled.isZero()) {
      refusals.count(Refusals.Reason.THROTTLED);
      response.getHeaders().put(HttpHeader.RETRY_AFTER, Long.toString(Math.max(1, (throttled.toMillis() + 999) / 1000)));
      refuse(response, callback, 429, "too many requests with a wrong token; retry later");
      return true;
    }
    String problem = problem(request.getHeaders().get(HttpHeader.AUTHORIZATION), token);
    if (problem == null) {
      return super.handle(request, response, callback);
    }
    failed.failed(client, now);
    refusals.count(Refusals.Reason.UNAUTHENTICATED);
    response.getHeaders().put(HttpHeader.WWW_AUTHENTICATE, "Bearer");
    refuse(response, callback, 401, problem);
    return true;
  }

  private byte[] tokenOf(String path) {
    for (Map.Entry<String, byte[]> entry : tokens.entrySet()) {
      String prefix = entry.getKey();
      if (path.equals(prefix) || path.startsWith(prefix) && path.charAt(prefix.length()) == '/') {
        return entry.getValue();
      }
    }
    return null;
  }

  /** What is wrong with the {@code Authorization} header; null: it carries the token. */
  private static String problem(String header, byte[] token) {
    if (header == null || !header.regionMatches(true, 0, "Bearer ", 0, 7)) {
      return "missing bearer token: send Authorization: Bearer <token>";
    }
    byte[] presented = header.substring(7).strip().getBytes(StandardCharsets.UTF_8);
    return MessageDigest.isEqual(presented, token) ? null : "invalid bearer token"; // constant time
  }

  /** Answers {@code status} with the allocation API's error body, and closes the connection. */
  private static void refuse(Response response, Callback callback, int status, String message) {
    response.setStatus(status);
    response.getHeaders().put(HttpHeader.CONTENT_TYPE, "application/json");
    response.getHeaders().put(HttpHeader.CONNECTION, "close");
    String body = "{\"error\":\"" + message + "\",\"field\":\"Authorization\"}";
    response.write(true, ByteBuffer.wrap(body.getBytes(StandardCharsets.UTF_8)), callback);
  }
}
