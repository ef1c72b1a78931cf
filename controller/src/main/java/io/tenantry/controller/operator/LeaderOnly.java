package io.tenantry.controller.operator;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.function.BooleanSupplier;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;

/**
 * Serves a route on the leading replica only; the others answer 503 with {@code Retry-After}.
 * Allocation needs it: one request id must get one tenant, and two replicas serving the same id
 * within their caches' lag could each bind a spare. The leader is the one process that binds; a
 * caller that reached another replica (the Service follows the leader's pod label with a lag)
 * retries, with the same request id, and reaches the leader.
 */
final class LeaderOnly extends Handler.Wrapper {

  private static final byte[] NOT_LEADER = "{\"error\":\"this replica is not the leader; retry with the same requestId\"}"
      .getBytes(StandardCharsets.UTF_8);

  private final BooleanSupplier leading;
  private final int retryAfterSeconds;

  LeaderOnly(BooleanSupplier leading, Handler handler, int retryAfterSeconds) {
    super(handler);
    this.leading = leading;
    this.retryAfterSeconds = retryAfterSeconds;
  }

  @Override
  public boolean handle(Request request, Response response, Callback callback) throws Exception {
    if (leading.getAsBoolean()) {
      return super.handle(request, response, callback);
    }
    response.setStatus(503);
    response.getHeaders().put(HttpHeader.CONTENT_TYPE, "application/json");
    response.getHeaders().put(HttpHeader.RETRY_AFTER, Integer.toString(retryAfterSeconds));
    response.write(true, ByteBuffer.wrap(NOT_LEADER), callback);
    return true;
  }
}
