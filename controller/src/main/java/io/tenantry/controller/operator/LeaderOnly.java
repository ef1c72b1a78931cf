package io.tenantry.controller.operator;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpHandler;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.function.BooleanSupplier;

/**
 * Serves a route on the leading replica only; the others answer 503 with {@code Retry-After}.
 * Allocation needs it: one request id must get one tenant, and two replicas serving the same id
 * within their caches' lag could each bind a spare. The leader is the one process that binds; a
 * caller that reached another replica (the Service follows the leader's pod label with a lag)
 * retries, with the same request id, and reaches the leader.
 */
final class LeaderOnly implements HttpHandler {

  private static final byte[] NOT_LEADER = "{\"error\":\"this replica is not the leader; retry with the same requestId\"}"
      .getBytes(StandardCharsets.UTF_8);

  private final BooleanSupplier leading;
  private final HttpHandler handler;
  private final int retryAfterSeconds;

  LeaderOnly(BooleanSupplier leading, HttpHandler handler, int retryAfterSeconds) {
    this.leading = leading;
    this.handler = handler;
    this.retryAfterSeconds = retryAfterSeconds;
  }

  @Override
  public void handle(HttpExchange exchange) throws IOException {
    if (leading.getAsBoolean()) {
      handler.handle(exchange);
      return;
    }
    try (exchange) {
      exchange.getResponseHeaders().set("Content-Type", "application/json");
      exchange.getResponseHeaders().set("Retry-After", Integer.toString(retryAfterSeconds));
      exchange.sendResponseHeaders(503, NOT_LEADER.length);
      try (OutputStream out = exchange.getResponseBody()) {
        out.write(NOT_LEADER);
      }
    }
  }
}
