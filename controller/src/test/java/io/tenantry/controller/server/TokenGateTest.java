package io.tenantry.controller.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.tenantry.controller.server.TokenGate.FailedClients;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import org.eclipse.jetty.io.Content;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** A route served with a bearer token: refused from the headers, before any byte of the body is read. */
class TokenGateTest {

  private static final InetAddress LOOPBACK = InetAddress.getLoopbackAddress();
  private static final String TOKEN = "gate-token";

  private final PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
  private final AtomicInteger handled = new AtomicInteger();
  private HttpEndpoints http;

  @BeforeEach
  void start() {
    http = new HttpEndpoints(new InetSocketAddress(LOOPBACK, 0), new InetSocketAddress(LOOPBACK, 0),
        new HttpEndpoints.Limits(4, 4, 16, Duration.ofSeconds(10), Duration.ofSeconds(10)), null, () -> true, () -> true, registry);
    http.serve("/v1/allocations", new Handler.Abstract() {
      @Override
      public boolean handle(Request request, Response response, Callback callback) throws Exception {
        handled.incrementAndGet();
        int length = Content.Source.asByteBuffer(request).remaining();
        Content.Sink.write(response, true, Integer.toString(length), callback);
        return true;
      }
    }, TOKEN);
    http.start();
  }

  @AfterEach
  void stop() {
    http.close();
  }

  @Test
  void theHeadersOfA60KibRequestWithAWrongTokenAndOneBodyByteGet401AtOnce() throws Exception {
    try (Socket socket = new Socket(LOOPBACK, http.port())) {
      socket.setSoTimeout(2000);
      socket.getOutputStream().write(("POST /v1/allocations HTTP/1.1\r\nHost: tenantry\r\nAuthorization: Bearer wrong\r\n"
          + "Content-Type: application/json\r\nContent-Length: " + 60 * 1024 + "\r\n\r\n{").getBytes(StandardCharsets.US_ASCII));
      long started = System.nanoTime();
      String answer = readToEnd(socket.getInputStream());

      assertThat(answer).startsWith("HTTP/1.1 401 ").containsIgnoringCase("www-authenticate: Bearer")
          .containsIgnoringCase("connection: close").contains("\"field\":\"Authorization\"");
      assertThat((System.nanoTime() - started) / 1_000_000).as("answered without waiting for the body").isLessThan(1000);
    }
    assertThat(handled).as("the handler never ran").hasValue(0);
    assertThat(rejected("unauthenticated")).isEqualTo(1);
  }

  @Test
  void aMissingTokenIs401AndTheRightOneIsServed() throws Exception {
    assertThat(call(null, "{}")).startsWith("HTTP/1.1 401 ").contains("missing bearer token");
    assertThat(call("Bearer " + TOKEN, "{}")).startsWith("HTTP/1.1 200 ").endsWith("\r\n\r\n2");
    assertThat(call("bearer " + TOKEN, "{}")).as("the scheme in any case").startsWith("HTTP/1.1 200 ");
    assertThat(handled).hasValue(2);
  }

  @Test
  void repeatedFailuresFromOneClientGet429WithRetryAfterWithoutTheBodyBeingRead() throws Exception {
    for (int i = 0; i < FailedClients.LIMIT; i++) {
      assertThat(call("Bearer wrong-" + i, "{}")).startsWith("HTTP/1.1 401 ");
    }
    String throttled = call("Bearer " + TOKEN, "{}");
    assertThat(throttled).startsWith("HTTP/1.1 429 ").containsIgnoringCase("retry-after: ");
    int retryAfter = Integer.parseInt(throttled.replaceAll("(?s).*(?i:retry-after): (\\d+).*", "$1"));
    assertThat(retryAfter).isBetween(1, (int) FailedClients.WINDOW.toSeconds());
    assertThat(handled).hasValue(0);
    assertThat(rejected("throttled")).isEqualTo(1);
    assertThat(registry.scrape()).contains("tenantry_http_rejected_total{listener=\"api\",reason=\"unauthenticated\"} 10.0");
  }

  @Test
  void theTableForgetsTheLeastRecentClientWhenFullAndAWindowEnds() {
    FailedClients table = new FailedClients(2, Duration.ofSeconds(10), 2);
    long now = 0;
    table.failed("a", now);
    table.failed("a", now);
    assertThat(table.throttledFor("a", now + 1)).isEqualTo(Duration.ofNanos(Duration.ofSeconds(10).toNanos() - 1));
    table.failed("b", now);
    table.failed("c", now);
    assertThat(table.size()).isEqualTo(2);
    assertThat(table.throttledFor("a", now)).as("forgotten: the least recently seen of three").isZero();
    table.failed("b", now);
    assertThat(table.throttledFor("b", Duration.ofSeconds(10).toNanos())).as("its window is over").isZero();
  }

  private double rejected(String reason) {
    return registry.get("tenantry.http.rejected").tag("listener", "api").tag("reason", reason).counter().count();
  }

  private String call(String authorization, String body) throws IOException {
    try (Socket socket = new Socket(LOOPBACK, http.port())) {
      socket.setSoTimeout(5000);
      socket.getOutputStream().write(("POST /v1/allocations HTTP/1.1\r\nHost: tenantry\r\nConnection: close\r\n"
          + (authorization == null ? "" : "Authorization: " + authorization + "\r\n")
          + "Content-Length: " + body.length() + "\r\n\r\n" + body).getBytes(StandardCharsets.US_ASCII));
      return readToEnd(socket.getInputStream());
    }
  }

  private static String readToEnd(InputStream in) throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    byte[] buffer = new byte[4096];
    for (int n; (n = in.read(buffer)) >= 0; ) {
      out.write(buffer, 0, n);
    }
    return out.toString(StandardCharsets.ISO_8859_1);
  }
}
