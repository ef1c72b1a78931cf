package io.tenantry.controller.server;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpHandler;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.function.BooleanSupplier;

/**
 * The operator's HTTP endpoints, on two listeners. The probe listener serves {@code /healthz} (the
 * process is alive and not stuck), {@code /readyz} (caches synced, workers running: this instance
 * leads) and {@code /metrics} (Prometheus text format), with threads of its own: no load on the
 * other port can fail a health check. The API listener serves what the wiring code adds (the
 * allocation API), within {@link Limits}; see {@link GuardedListener} for how each is enforced.
 *
 * <p>The limits are enforced here, per listener, rather than by the JDK server's system properties
 * ({@code sun.net.httpserver.maxReqTime}, {@code maxRspTime}, {@code jdk.httpserver.maxConnections}):
 * those are read once per JVM, apply to every server in it, and only ever close the connection (no
 * 408, no 503). The JDK's own idle timeout ({@code sun.net.httpserver.idleInterval}, 30 s) still
 * closes idle keep-alive connections and connections that never send a byte, which hold no thread.
 */
public final class HttpEndpoints implements AutoCloseable {

  static {
    // Without TCP_NODELAY the JDK server's small answers wait for the client's delayed ACK: about
    // 40 ms per request on Linux (measured 45.8 ms vs 1.6 ms per keep-alive request). Read once,
    // when the first server is created.
    if (System.getProperty("sun.net.httpserver.nodelay") == null) {
      System.setProperty("sun.net.httpserver.nodelay", "true");
    }
  }

  /**
   * The limits of a listener.
   *
   * @param threads requests handled at once
   * @param queue requests that may wait for a handler; more are answered 503 with Retry-After
   * @param maxConnections requests in progress at once (each holds a connection and a thread); more are
   *     answered 503 with Retry-After, or closed
   * @param readTimeout time to read a request, headers and body, from its first byte; past it, 408 or closed
   * @param writeTimeout time to write the answer, from its status line; past it, the connection is closed
   */
  public record Limits(int threads, int queue, int maxConnections, Duration readTimeout, Duration writeTimeout) {
  }

  private final Deadlines deadlines = new Deadlines();
  private final GuardedListener probes;
  private final GuardedListener api;

  /**
   * @param api where the API listener binds ({@code httpPort})
   * @param probes where the probe listener binds ({@code probePort})
   * @param limits the API listener's limits; the probe listener has the same time limits, 2 threads
   */
  public HttpEndpoints(InetSocketAddress api, InetSocketAddress probes, Limits limits, BooleanSupplier healthy,
      BooleanSupplier ready, PrometheusMeterRegistry registry) throws IOException {
    Limits probeLimits = new Limits(2, 8, 16, limits.readTimeout(), limits.writeTimeout());
    GuardedListener probeListener = null;
    try {
      probeListener = new GuardedListener("probe", probes, probeLimits, deadlines, registry);
      this.api = new GuardedListener("api", api, limits, deadlines, registry);
    } catch (IOException | RuntimeException e) {
      if (probeListener != null) {
        probeListener.close();
      }
      deadlines.close();
      throw e;
    }
    this.probes = probeListener;
    this.probes.serve("/healthz", exchange -> probe(exchange, healthy));
    this.probes.serve("/readyz", exchange -> probe(exchange, ready));
    this.probes.serve("/metrics", exchange -> respond(exchange, 200,
        "text/plain; version=0.0.4; charset=utf-8", registry.scrape()));
  }

  /** Serves another route on the API listener (the allocation API); call before {@link #start()}. */
  public void serve(String path, HttpHandler handler) {
    api.serve(path, handler);
  }

  public void start() {
    probes.start();
    api.start();
  }

  /** The API listener's port. */
  public int port() {
    return api.port();
  }

  /** The probe listener's port: {@code /healthz}, {@code /readyz}, {@code /metrics}. */
  public int probePort() {
    return probes.port();
  }

  private static void probe(HttpExchange exchange, BooleanSupplier check) throws IOException {
    boolean ok = check.getAsBoolean();
    respond(exchange, ok ? 200 : 503, "text/plain; charset=utf-8", ok ? "ok\n" : "not ready\n");
  }

  private static void respond(HttpExchange exchange, int code, String type, String body) throws IOException {
    byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
    exchange.getResponseHeaders().set("Content-Type", type);
    exchange.sendResponseHeaders(code, bytes.length);
    try (OutputStream out = exchange.getResponseBody()) {
      out.write(bytes);
    }
  }

  @Override
  public void close() {
    try {
      api.close();
    } finally {
      probes.close();
      deadlines.close();
    }
  }
}
