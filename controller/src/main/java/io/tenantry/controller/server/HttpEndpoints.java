package io.tenantry.controller.server;

import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.http.pathmap.ServletPathSpec;
import org.eclipse.jetty.io.Content;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.server.handler.PathMappingsHandler;
import org.eclipse.jetty.util.Callback;

/**
 * The operator's HTTP endpoints, on two Jetty servers with threads of their own. The probe listener
 * serves {@code /healthz} (the process is alive and not stuck), {@code /readyz} (caches synced,
 * workers running: this instance leads) and {@code /metrics} (Prometheus text format): no load on
 * the other port can fail a health check. The API listener serves what the wiring code adds (the
 * allocation API), within {@link Limits}; {@link Listener} says how Jetty enforces each.
 *
 * <p>Guarantees: a route added with a bearer token is never handed a request without it, and no
 * byte of such a request's body is read before the token is checked ({@link TokenGate}); a
 * listener holds at most {@code maxConnections} connections and runs at most {@code threads}
 * handlers; {@link #close()} returns within {@link #STOP_GRACE} plus a little.
 */
public final class HttpEndpoints implements AutoCloseable {

  /** How long requests in progress may finish when the endpoints close; past it their connections are closed. */
  public static final Duration STOP_GRACE = Duration.ofSeconds(2);

  /**
   * The limits of a listener.
   *
   * @param threads requests handled at once
   * @param queue requests that may wait for a handler; more are answered 503 with Retry-After
   * @param maxConnections connections open at once; more wait to be accepted (in the kernel's
   *     backlog) until one closes, and meanwhile idle connections are closed sooner
   * @param readTimeout time to receive a request, headers and body, from its first byte: headers
   *     late, the connection is closed (no answer is possible); the body late, 408. Also the longest
   *     a connection may stay silent
   * @param writeTimeout the longest an answer's write may make no progress; past it, the connection is closed
   */
  public record Limits(int threads, int queue, int maxConnections, Duration readTimeout, Duration writeTimeout) {
  }

  private final Listener probes;
  private final Listener api;
  private final PathMappingsHandler routes = new PathMappingsHandler();
  private final TokenGate gate;

  /**
   * @param api where the API listener binds ({@code httpPort})
   * @param probes where the probe listener binds ({@code probePort})
   * @param limits the API listener's limits; the probe listener has the same time limits, 2 threads
   * @param tls the API listener's certificate and key; null: plain HTTP
   */
  public HttpEndpoints(InetSocketAddress api, InetSocketAddress probes, Limits limits, Tls tls, BooleanSupplier healthy,
      BooleanSupplier ready, PrometheusMeterRegistry registry) {
    Limits probeLimits = new Limits(2, 8, 16, limits.readTimeout(), limits.writeTimeout());
    Refusals refused = new Refusals(registry, "api");
    this.gate = new TokenGate(new FailedClients(FailedClients.LIMIT, FailedClients.WINDOW, FailedClients.CAPACITY),
        refused);
    this.api = new Listener("api", api, limits, tls, gate, routes, refused, registry);
    PathMappingsHandler probeRoutes = new PathMappingsHandler();
    probeRoutes.addMapping(new ServletPathSpec("/healthz"), probe(healthy));
    probeRoutes.addMapping(new ServletPathSpec("/readyz"), probe(ready));
    probeRoutes.addMapping(new ServletPathSpec("/metrics"), text(() -> registry.scrape(),
        "text/plain; version=0.0.4; charset=utf-8"));
    this.probes = new Listener("probe", probes, probeLimits, null, null, probeRoutes, new Refusals(registry, "probe"), registry);
  }

  /** Plain HTTP on the API listener. */
  public HttpEndpoints(InetSocketAddress api, InetSocketAddress probes, Limits limits, BooleanSupplier healthy,
      BooleanSupplier ready, PrometheusMeterRegistry registry) {
    this(api, probes, limits, null, healthy, ready, registry);
  }

  /** Serves another route on the API listener: {@code path} and everything below it; call before {@link #start()}. */
  public void serve(String path, Handler handler) {
    routes.addMapping(new ServletPathSpec(path + "/*"), handler);
  }

  /**
   * Serves a route that only callers presenting {@code Authorization: Bearer <token>} reach; the
   * others are answered 401 (or 429, after repeated failures) from their headers alone.
   */
  public void serve(String path, Handler handler, String token) {
    gate.protect(path, token);
    serve(path, handler);
  }

  /** Starts both listeners; a port that cannot be bound fails here. */
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

  private static Handler probe(BooleanSupplier check) {
    return new Handler.Abstract.NonBlocking() {
      @Override
      public boolean handle(Request request, Response response, Callback callback) {
        boolean ok = check.getAsBoolean();
        response.setStatus(ok ? 200 : 503);
        response.getHeaders().put(HttpHeader.CONTENT_TYPE, "text/plain; charset=utf-8");
        Content.Sink.write(response, true, ok ? "ok\n" : "not ready\n", callback);
        return true;
      }
    };
  }

  private static Handler text(Supplier<String> body, String type) {
    return new Handler.Abstract() {
      @Override
      public boolean handle(Request request, Response response, Callback callback) {
        response.getHeaders().put(HttpHeader.CONTENT_TYPE, type);
        response.write(true, ByteBuffer.wrap(body.get().getBytes(StandardCharsets.UTF_8)), callback);
        return true;
      }
    };
  }

  /** Stops the API listener first (requests in progress get {@link #STOP_GRACE}), then the probes. */
  @Override
  public void close() {
    try {
      api.stop(STOP_GRACE);
    } finally {
      probes.stop(STOP_GRACE);
    }
  }
}
