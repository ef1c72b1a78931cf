package io.tenantry.controller.server;

import static net.logstash.logback.argument.StructuredArguments.kv;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.http.pathmap.ServletPathSpec;
import org.eclipse.jetty.io.Content;
import org.eclipse.jetty.server.ConnectionFactory;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.HttpConfiguration;
import org.eclipse.jetty.server.HttpConnectionFactory;
import org.eclipse.jetty.server.NetworkConnectionLimit;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.server.handler.ErrorHandler;
import org.eclipse.jetty.server.handler.PathMappingsHandler;
import org.eclipse.jetty.server.handler.QoSHandler;
import org.eclipse.jetty.util.Callback;
import org.eclipse.jetty.util.thread.QueuedThreadPool;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The operator's HTTP endpoints, on two Jetty servers with threads of their own. The probe listener
 * serves {@code /healthz} (the process is alive and not stuck), {@code /readyz} (caches synced,
 * workers running: this instance leads) and {@code /metrics} (Prometheus text format): no load on
 * the API port can fail a health check. The API listener serves what the wiring code adds (the
 * allocation API). Each listener, within its {@link Limits}:
 * <ul>
 *   <li>holds at most {@code maxConnections} connections ({@link NetworkConnectionLimit}): at the cap
 *       Jetty stops accepting (clients wait in the kernel's backlog) and closes connections idle for
 *       {@link #IDLE_AT_CAP}. A connection waiting for bytes holds no thread.</li>
 *   <li>runs at most {@code threads} handlers, and lets {@code queue} more wait without a thread
 *       ({@link QoSHandler}); beyond that, 503 with {@code Retry-After: 1} and {@code Connection: close}.
 *       A route that limits itself ({@link #serveSelfLimited}) is outside that count, and has as many
 *       threads again of its own: the QoS counts a request until its answer is sent, also while it
 *       holds no thread.</li>
 *   <li>gives a request {@code readTimeout} from its first byte for its headers and body
 *       ({@link RequestDeadline}); no connection may stay silent, nor a write stall, longer than the
 *       shorter timeout (Jetty's idle timeout); headers over {@link #MAX_HEADER_BYTES} get 431.</li>
 * </ul>
 * A route served with a token is refused from its headers, before the queue ({@link TokenGate}).
 * Refusals are counted in {@code tenantry_http_rejected_total} by listener and reason.
 * {@link #close()} returns within {@link #STOP_GRACE} plus a little, whatever the handlers do.
 */
public final class HttpEndpoints implements AutoCloseable {

  /** How long requests in progress may finish when the endpoints close; past it their connections are closed. */
  public static final Duration STOP_GRACE = Duration.ofSeconds(2);
  static final int MAX_HEADER_BYTES = 16 * 1024;
  static final Duration IDLE_AT_CAP = Duration.ofSeconds(1);
  private static final Logger LOG = LoggerFactory.getLogger(HttpEndpoints.class);
  /** Selector and acceptor threads, and a margin for answering refusals, beyond the handlers. */
  private static final int SPARE_THREADS = 6;
  private static final String PLAIN = "text/plain; charset=utf-8";

  /**
   * The limits of a listener.
   *
   * @param threads requests handled at once
   * @param queue requests that may wait for a handler; more are answered 503 with Retry-After
   * @param maxConnections connections open at once; more wait to be accepted until one closes
   * @param readTimeout time to receive a request, headers and body, from its first byte (headers
   *     late: the connection is closed; the body late: 408); also the longest a connection may stay silent
   * @param writeTimeout the longest an answer's write may make no progress; past it, the connection is closed
   */
  public record Limits(int threads, int queue, int maxConnections, Duration readTimeout, Duration writeTimeout) {
  }

  private final Server probes;
  private final Server api;
  private final PathMappingsHandler routes = new PathMappingsHandler();
  private final TokenGate gate;
  /** The paths of routes that limit themselves: the API listener's QoS lets their requests through. */
  private final Set<String> selfLimited = ConcurrentHashMap.newKeySet();

  /**
   * @param api where the API listener binds ({@code httpPort})
   * @param probes where the probe listener binds ({@code probePort})
   * @param limits the API listener's limits; the probe listener has the same time limits, 2 threads
   * @param tls the API listener's certificate and key; null: plain HTTP/1.1 (no h2c: Jetty 12.1 gave the
   *     handler an empty body for a POST that upgraded to h2c, as the JDK's HttpClient does by default)
   */
  public HttpEndpoints(InetSocketAddress api, InetSocketAddress probes, Limits limits, Tls tls, BooleanSupplier healthy,
      BooleanSupplier ready, PrometheusMeterRegistry registry) {
    this.gate = new TokenGate(rejected(registry, "api", "unauthenticated"), rejected(registry, "api", "throttled"));
    this.api = server("api", api, limits, tls, routes, selfLimited, registry);
    this.api.insertHandler(gate);
    PathMappingsHandler probeRoutes = new PathMappingsHandler();
    probeRoutes.addMapping(new ServletPathSpec("/healthz"), text(PLAIN, () -> healthy.getAsBoolean() ? "ok\n" : null));
    probeRoutes.addMapping(new ServletPathSpec("/readyz"), text(PLAIN, () -> ready.getAsBoolean() ? "ok\n" : null));
    probeRoutes.addMapping(new ServletPathSpec("/metrics"), text("text/plain; version=0.0.4; charset=utf-8", registry::scrape));
    this.probes = server("probe", probes, new Limits(2, 8, 16, limits.readTimeout(), limits.writeTimeout()), null, probeRoutes,
        Set.of(), registry);
  }

  /** Serves another route on the API listener: {@code path} and everything below it, also once started. */
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

  /**
   * Serves a route behind the token, as {@link #serve(String, Handler, String)}, outside the listener's
   * QoS: {@code handler} must itself run at most {@link Limits#threads} requests on threads at once
   * and refuse what it cannot queue (the allocation API, whose answers wait for serving without a thread).
   */
  public void serveSelfLimited(String path, Handler handler, String token) {
    selfLimited.add(path);
    serve(path, handler, token);
  }

  /** Starts both listeners; a port that cannot be bound fails here. */
  public void start() {
    start(probes);
    start(api);
  }

  /** The API listener's port. */
  public int port() {
    return connector(api).getLocalPort();
  }

  /** The probe listener's port: {@code /healthz}, {@code /readyz}, {@code /metrics}. */
  public int probePort() {
    return connector(probes).getLocalPort();
  }

  /**
   * Stops the API listener, then the probes: each stops taking connections, lets requests in
   * progress finish within {@link #STOP_GRACE}, then closes what is left (handler threads are daemons).
   */
  @Override
  public void close() {
    try {
      stop(api);
    } finally {
      stop(probes);
    }
  }

  /** A server on {@code address}: its bounded thread pool, one connector, the connection cap, {@code routes} within the limits. */
  private static Server server(String name, InetSocketAddress address, Limits limits, Tls tls, Handler routes,
      Set<String> selfLimited, MeterRegistry registry) {
    // The QoS's handlers, and as many for the routes that limit themselves.
    int maxThreads = 2 * limits.threads() + SPARE_THREADS;
    // Jetty's queue of tasks stays unbounded (a bounded one can drop Jetty's own tasks): the connection cap
    // and the QoS limits bound what reaches it.
    QueuedThreadPool threads = new QueuedThreadPool(maxThreads, Math.min(maxThreads, 4));
    threads.setName("http-" + name);
    threads.setDaemon(true);
    Server server = new Server(threads);
    server.setStopTimeout(STOP_GRACE.toMillis());
    HttpConfiguration http = new HttpConfiguration();
    http.setSendServerVersion(false);
    http.setRequestHeaderSize(MAX_HEADER_BYTES);
    ServerConnector connector = new ServerConnector(server, 1, 1, tls != null ? tls.connectionFactories(http)
        : new ConnectionFactory[] {new HttpConnectionFactory(http)});
    connector.setHost(address.getAddress() == null ? null : address.getAddress().getHostAddress());
    connector.setPort(address.getPort());
    // HTTP/1.1 connections and HTTP/2 streams alike
    connector.setIdleTimeout(Math.min(limits.readTimeout().toMillis(), limits.writeTimeout().toMillis()));
    connector.setShutdownIdleTimeout(STOP_GRACE.toMillis());
    server.addConnector(connector);
    NetworkConnectionLimit cap = new NetworkConnectionLimit(limits.maxConnections(), connector);
    cap.setEndPointIdleTimeout(IDLE_AT_CAP.toMillis());
    server.addBean(cap);
    Gauge.builder("tenantry.http.connections", cap, NetworkConnectionLimit::getNetworkConnectionCount)
        .description("Connections open on an HTTP listener (at most its maxConnections)").tag("listener", name)
        .register(registry);
    ErrorHandler errors = new ErrorHandler(); // no stacks (Jetty's default), nor messages that could echo a client
    errors.setShowMessageInTitle(false);
    server.setErrorHandler(errors);
    server.setHandler(limited(connector, limits, routes, selfLimited, registry, name));
    return server;
  }

  /**
   * {@code handler} behind Jetty's QoS (waits for a handler without a thread; refuses with 503,
   * {@code Retry-After} and {@code Connection: close}) and the request deadline.
   */
  private static Handler limited(ServerConnector connector, Limits limits, Handler handler, Set<String> selfLimited,
      MeterRegistry registry, String name) {
    Counter busy = rejected(registry, name, "busy");
    QoSHandler qos = new QoSHandler(new RequestDeadline(handler, connector, limits.readTimeout(),
        rejected(registry, name, "timeout"), rejected(registry, name, "cut"))) {
      @Override
      protected void reject(Request request, Response response, Callback callback, int status) {
        busy.increment();
        response.getHeaders().put(HttpHeader.RETRY_AFTER, "1");
        response.getHeaders().put(HttpHeader.CONNECTION, "close");
        Response.writeError(request, response, callback, 503, "server busy; retry later");
      }
    };
    qos.exclude(request -> {
      String path = request.getHttpURI().getCanonicalPath();
      return path != null && selfLimited.stream().anyMatch(p -> path.equals(p) || path.startsWith(p + "/"));
    });
    qos.setMaxRequestCount(limits.threads());
    qos.setMaxSuspendedRequestCount(limits.queue());
    qos.setMaxSuspend(limits.readTimeout().plus(limits.writeTimeout()));
    return qos;
  }

  /** The count of requests {@code listener} refused for {@code reason}: {@code tenantry_http_rejected_total}. */
  private static Counter rejected(MeterRegistry registry, String listener, String reason) {
    return Counter.builder("tenantry.http.rejected")
        .description("Requests refused by an HTTP listener: no handler free (busy, 503), body too slow (timeout, 408),"
            + " headers too slow (cut, closed), no or a wrong bearer token (unauthenticated, 401), too many wrong tokens"
            + " from one client (throttled, 429)")
        .tag("listener", listener).tag("reason", reason).register(registry);
  }

  /** A route answering {@code body}'s text with 200, or 503 {@code not ready} when it is null. */
  private static Handler text(String type, Supplier<String> body) {
    return new Handler.Abstract() {
      @Override
      public boolean handle(Request request, Response response, Callback callback) {
        String text = body.get();
        response.setStatus(text == null ? 503 : 200);
        response.getHeaders().put(HttpHeader.CONTENT_TYPE, type);
        Content.Sink.write(response, true, text == null ? "not ready\n" : text, callback);
        return true;
      }
    };
  }

  private static ServerConnector connector(Server server) {
    return (ServerConnector) server.getConnectors()[0];
  }

  private static void start(Server server) {
    try {
      server.start();
    } catch (Exception e) {
      throw new IllegalStateException("an HTTP listener could not start on port " + connector(server).getPort()
          + ": " + e.getMessage(), e);
    }
  }

  private static void stop(Server server) {
    try {
      server.stop();
    } catch (Exception e) {
      LOG.warn("http listener stopped with an error {} {}", kv("port", connector(server).getPort()), kv("error", e.toString()));
    }
  }
}
