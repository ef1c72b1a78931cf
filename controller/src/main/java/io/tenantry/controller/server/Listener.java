package io.tenantry.controller.server;

import static net.logstash.logback.argument.StructuredArguments.kv;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.http2.server.HTTP2CServerConnectionFactory;
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
import org.eclipse.jetty.server.handler.QoSHandler;
import org.eclipse.jetty.util.Callback;
import org.eclipse.jetty.util.thread.QueuedThreadPool;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One Jetty server on one port, with its own threads, within {@link HttpEndpoints.Limits}:
 * <ul>
 *   <li>Connections: at most {@code maxConnections} open ({@link NetworkConnectionLimit}); at the cap
 *       Jetty stops accepting, and shortens the idle timeout of the open ones to {@link #IDLE_AT_CAP}.
 *       A connection waiting for bytes holds no thread (Jetty's selectors), so slow clients cannot
 *       starve the handlers, only the connection cap.</li>
 *   <li>Handlers: at most {@code threads} at once and {@code queue} more waiting ({@link QoSHandler},
 *       which suspends a waiting request without a thread); beyond that, 503 with {@code Retry-After}
 *       and {@code Connection: close} at once. The thread pool is bounded, its job queue too.</li>
 *   <li>Time: the request headers within {@code readTimeout} of their first byte ({@link HeaderDeadline}),
 *       else the connection is closed; the body too ({@link BodyDeadline}), else 408;
 *       no connection silent, and no write stalled, longer than the shorter of the two timeouts
 *       (Jetty's idle timeout). Headers at most {@link #MAX_HEADER_BYTES}, else 431.</li>
 * </ul>
 * Jetty's model differs from our former whole-request deadline at the connection cap: a client over
 * it is not answered 503 but waits to be accepted, while the idle ones are closed sooner.
 */
final class Listener {

  static final int MAX_HEADER_BYTES = 16 * 1024;
  static final Duration IDLE_AT_CAP = Duration.ofSeconds(1);
  static final String RETRY_AFTER_SECONDS = "1";
  private static final Logger LOG = LoggerFactory.getLogger(Listener.class);
  /** Selector and acceptor threads, and a margin for answering refusals, beyond the handlers. */
  private static final int SPARE_THREADS = 6;

  private final String name;
  private final Server server;
  private final ServerConnector connector;
  private final HeaderDeadline headers;

  /**
   * @param gate checks tokens before the queue of handlers; null: none
   * @param handler what serves the requests let in
   */
  Listener(String name, InetSocketAddress address, HttpEndpoints.Limits limits, Tls tls, Handler.Wrapper gate, Handler handler,
      Refusals refusals, MeterRegistry registry) {
    this.name = name;
    int maxThreads = limits.threads() + SPARE_THREADS;
    // Jetty's queue of tasks stays unbounded (a bounded one can drop its own tasks): the connection cap
    // and the QoS limits bound what reaches it.
    QueuedThreadPool threads = new QueuedThreadPool(maxThreads, Math.min(maxThreads, 4));
    threads.setName("http-" + name);
    threads.setDaemon(true);
    server = new Server(threads);
    server.setStopTimeout(HttpEndpoints.STOP_GRACE.toMillis());
    connector = new ServerConnector(server, 1, 1, factories(configuration(limits), tls));
    connector.setHost(address.getAddress() == null ? null : address.getAddress().getHostAddress());
    connector.setPort(address.getPort());
    connector.setIdleTimeout(Math.min(limits.readTimeout().toMillis(), limits.writeTimeout().toMillis()));
    connector.setShutdownIdleTimeout(HttpEndpoints.STOP_GRACE.toMillis());
    server.addConnector(connector);
    NetworkConnectionLimit cap = new NetworkConnectionLimit(limits.maxConnections(), connector);
    cap.setEndPointIdleTimeout(IDLE_AT_CAP.toMillis());
    server.addBean(cap);
    Handler busy = new Busy(new BodyDeadline(handler, limits.readTimeout(),
        () -> refusals.count(Refusals.Reason.TIMEOUT)), limits, refusals);
    if (gate != null) {
      gate.setHandler(busy);
    }
    server.setHandler(gate == null ? busy : gate);
    server.setErrorHandler(quietErrors());
    headers = new HeaderDeadline(connector, limits.readTimeout(), () -> refusals.count(Refusals.Reason.CUT));
    Gauge.builder("tenantry.http.connections", cap, NetworkConnectionLimit::getNetworkConnectionCount)
        .description("Connections open on an HTTP listener (at most its maxConnections)").tag("listener", name)
        .register(registry);
  }

  private static HttpConfiguration configuration(HttpEndpoints.Limits limits) {
    HttpConfiguration http = new HttpConfiguration();
    http.setSendServerVersion(false);
    http.setSendDateHeader(true);
    http.setRequestHeaderSize(MAX_HEADER_BYTES);
    http.setIdleTimeout(Math.min(limits.readTimeout().toMillis(), limits.writeTimeout().toMillis()));
    return http;
  }

  private static ConnectionFactory[] factories(HttpConfiguration http, Tls tls) {
    if (tls == null) { // HTTP/1.1, and HTTP/2 for clients that ask for it (prior knowledge or Upgrade: h2c)
      return new ConnectionFactory[] {new HttpConnectionFactory(http), new HTTP2CServerConnectionFactory(http)};
    }
    return tls.connectionFactories(http);
  }

  /** Jetty's error answers, without stacks or messages that could carry what a client sent. */
  private static ErrorHandler quietErrors() {
    ErrorHandler errors = new ErrorHandler();
    errors.setShowStacks(false);
    errors.setShowMessageInTitle(false);
    return errors;
  }

  void start() {
    try {
      server.start();
    } catch (Exception e) {
      throw new IllegalStateException("the " + name + " listener could not start on port " + connector.getPort()
          + ": " + e.getMessage(), e);
    }
    sweepHeaders();
  }

  /** Runs {@link HeaderDeadline} every {@link HeaderDeadline#SWEEP} while the server runs. */
  private void sweepHeaders() {
    server.getScheduler().schedule(() -> {
      if (server.isRunning()) {
        headers.run();
        sweepHeaders();
      }
    }, HeaderDeadline.SWEEP.toMillis(), TimeUnit.MILLISECONDS);
  }

  int port() {
    return connector.getLocalPort();
  }

  /**
   * Stops taking connections, lets requests in progress finish within {@code grace}, then closes
   * what is left; returns within about {@code grace} whatever the handlers do (their threads are daemons).
   */
  void stop(Duration grace) {
    server.setStopTimeout(grace.toMillis());
    try {
      server.stop();
    } catch (Exception e) {
      LOG.warn("http listener stopped with an error {} {}", kv("listener", name),
          kv("error", e.toString()));
    }
  }

  /** Jetty's QoS: waits for a handler without a thread; refuses with 503, {@code Retry-After} and {@code Connection: close}. */
  private static final class Busy extends QoSHandler {

    private final Refusals refusals;

    Busy(Handler handler, HttpEndpoints.Limits limits, Refusals refusals) {
      super(handler);
      this.refusals = refusals;
      setMaxRequestCount(limits.threads());
      setMaxSuspendedRequestCount(limits.queue());
      setMaxSuspend(limits.readTimeout().plus(limits.writeTimeout()));
    }

    @Override
    protected void reject(Request request, Response response, Callback callback, int status) {
      refusals.count(Refusals.Reason.BUSY);
      response.getHeaders().put(HttpHeader.RETRY_AFTER, RETRY_AFTER_SECONDS);
      response.getHeaders().put(HttpHeader.CONNECTION, "close");
      Response.writeError(request, response, callback, 503, "server busy; retry later");
    }
  }
}
