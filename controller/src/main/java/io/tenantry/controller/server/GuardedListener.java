package io.tenantry.controller.server;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpHandler;
import com.sun.net.httpserver.HttpServer;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.Semaphore;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * One JDK {@link HttpServer} on one port, with {@link HttpEndpoints.Limits}:
 * <ul>
 *   <li>Requests in progress (being read, waiting, handled or answered; each holds its connection
 *       and one thread) are capped at {@code maxConnections}. The server hands a connection to the
 *       executor when a request's first bytes arrive, and then reads the request line and headers
 *       on that thread; a request over the cap is still read and answered 503 with
 *       {@code Retry-After} and {@code Connection: close}, on one of a few spare threads, and when
 *       those are taken too the server closes the connection at once. Idle keep-alive connections,
 *       and connections that never send a byte, hold no thread: the JDK closes them after
 *       {@code sun.net.httpserver.idleInterval} (30 s).</li>
 *   <li>At most {@code threads} requests are handled at once and {@code queue} more wait their
 *       turn; beyond that a request is answered 503 with {@code Retry-After} at once.</li>
 *   <li>A request must be read, headers and body, within {@code readTimeout} of its first byte,
 *       its answer written within {@code writeTimeout} ({@link Deadlines}). The body (up to
 *       {@link #BODY_BUFFER_BYTES}) is read before the request waits for a handler, so a slow sender
 *       never holds one.</li>
 * </ul>
 */
final class GuardedListener implements AutoCloseable {

  static final int BODY_BUFFER_BYTES = 64 * 1024;
  static final String RETRY_AFTER_SECONDS = "1";

  private final HttpEndpoints.Limits limits;
  private final Deadlines deadlines;
  private final HttpServer server;
  private final ThreadPoolExecutor threads;
  private final AtomicInteger inProgress = new AtomicInteger();
  private final Semaphore handlers;
  private final AtomicInteger waiting = new AtomicInteger();
  private final ThreadLocal<Request> current = new ThreadLocal<>();
  private final Counter overConnections;
  private final Counter busy;
  private final Counter timedOut;
  private final Counter cut;

  /** The request the current thread serves: its guard, and whether it came over the connection cap. */
  private record Request(Deadlines.Guard guard, boolean overCap) {
  }

  GuardedListener(String name, InetSocketAddress address, HttpEndpoints.Limits limits, Deadlines deadlines,
      MeterRegistry registry) throws IOException {
    this.limits = limits;
    this.deadlines = deadlines;
    this.handlers = new Semaphore(limits.threads(), true);
    int spare = Math.max(4, limits.maxConnections() / 8); // threads answering 503 to requests over the cap
    AtomicInteger sequence = new AtomicInteger();
    this.threads = new ThreadPoolExecutor(0, limits.maxConnections() + spare, 30, TimeUnit.SECONDS, new SynchronousQueue<>(), r -> {
      Thread t = new Thread(r, "http-" + name + "-" + sequence.incrementAndGet());
      t.setDaemon(true);
      return t;
    });
    overConnections = rejected(registry, name, "connections");
    busy = rejected(registry, name, "busy");
    timedOut = rejected(registry, name, "timeout");
    cut = rejected(registry, name, "cut");
    server = HttpServer.create(address, 0);
    server.setExecutor(this::dispatch);
  }

  private static Counter rejected(MeterRegistry registry, String listener, String reason) {
    return Counter.builder("tenantry.http.rejected")
        .description("Requests refused by the HTTP server's limits: over the connection cap (503), no handler free"
            + " nor room in the queue (503), too slow to send (408), or cut off (read or write limit, connection closed)")
        .tag("listener", listener).tag("reason", reason).register(registry);
  }

  /** Called by the server's dispatcher thread when a request's first bytes arrive on a connection. */
  private void dispatch(Runnable exchange) {
    long started = System.nanoTime();
    boolean overCap = inProgress.incrementAndGet() > limits.maxConnections();
    try {
      threads.execute(() -> run(exchange, started, overCap));
    } catch (RejectedExecutionException e) {
      inProgress.decrementAndGet();
      overConnections.increment();
      throw e; // The server closes the connection.
    }
  }

  private void run(Runnable exchange, long started, boolean overCap) {
    try (Deadlines.Guard guard = deadlines.begin(started, limits.readTimeout(), limits.writeTimeout(), cut::increment)) {
      current.set(new Request(guard, overCap));
      exchange.run(); // Reads the request line and headers, then calls handle() for the context.
    } finally {
      current.remove();
      inProgress.decrementAndGet();
    }
  }

  void serve(String path, HttpHandler handler) {
    server.createContext(path, exchange -> handle(exchange, handler));
  }

  private void handle(HttpExchange raw, HttpHandler handler) throws IOException {
    Request request = current.get();
    request.guard().exit(); // The headers are read.
    GuardedExchange exchange = new GuardedExchange(raw, request.guard());
    if (request.overCap()) {
      overConnections.increment();
      refuse(exchange, 503, "too many connections; retry later");
      return;
    }
    try {
      exchange.bufferBody(BODY_BUFFER_BYTES);
    } catch (Deadlines.RequestTimeoutException e) {
      timedOut.increment();
      refuse(exchange, 408, "request not received in time");
      return;
    }
    if (!enter()) {
      busy.increment();
      refuse(exchange, 503, "server busy; retry later");
      return;
    }
    try {
      handler.handle(exchange);
    } catch (Deadlines.RequestTimeoutException e) {
      timedOut.increment();
      if (exchange.responseStarted()) {
        throw e;
      }
      refuse(exchange, 408, "request not received in time");
    } finally {
      handlers.release();
    }
  }

  /** Takes one of the {@code threads} handler slots, waiting when the queue has room; false when it has none. */
  private boolean enter() {
    try {
      if (handlers.tryAcquire(0, TimeUnit.SECONDS)) { // unlike tryAcquire(), does not overtake those waiting
        return true;
      }
      if (waiting.incrementAndGet() > limits.queue()) {
        waiting.decrementAndGet();
        return false;
      }
      try {
        handlers.acquire();
        return true;
      } finally {
        waiting.decrementAndGet();
      }
    } catch (InterruptedException e) { // the listener is closing
      Thread.currentThread().interrupt();
      return false;
    }
  }

  /** Answers {@code code} and closes the connection: whoever is refused should not keep it. */
  private static void refuse(GuardedExchange exchange, int code, String message) throws IOException {
    byte[] body = ("{\"error\":\"" + message + "\"}\n").getBytes(StandardCharsets.UTF_8);
    try (exchange) {
      if (code == 503) {
        exchange.getResponseHeaders().set("Retry-After", RETRY_AFTER_SECONDS);
      }
      exchange.getResponseHeaders().set("Content-Type", "application/json");
      exchange.getResponseHeaders().set("Connection", "close");
      exchange.sendResponseHeaders(code, body.length);
      try (OutputStream out = exchange.getResponseBody()) {
        out.write(body);
      }
    }
  }

  void start() {
    server.start();
  }

  int port() {
    return server.getAddress().getPort();
  }

  @Override
  public void close() {
    server.stop(0);
    threads.shutdownNow();
  }
}
