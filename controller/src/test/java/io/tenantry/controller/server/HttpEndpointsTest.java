package io.tenantry.controller.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.eclipse.jetty.io.Content;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.util.Callback;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The operator's two listeners and the API listener's limits, on 127.0.0.1 with raw sockets (so
 * that a client can be as slow, or as silent, as an attacker's).
 */
class HttpEndpointsTest {

  private static final InetAddress LOOPBACK = InetAddress.getLoopbackAddress();
  private static final String PARTIAL = "POST /v1/echo HTTP/1.1\r\nHost: tenantry\r\n";

  private final PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
  private final List<Socket> sockets = new ArrayList<>();
  private final ScheduledExecutorService trickle = Executors.newSingleThreadScheduledExecutor();
  private final ExecutorService callers = Executors.newCachedThreadPool();
  private volatile boolean ready = true;
  private HttpEndpoints http;

  @AfterEach
  void tearDown() {
    trickle.shutdownNow();
    callers.shutdownNow();
    sockets.forEach(HttpEndpointsTest::closeQuietly);
    if (http != null) {
      http.close();
    }
  }

  @Test
  void probesAndMetricsAreServedOnTheirOwnPortAndTheApiOnItsOwn() throws Exception {
    start(new HttpEndpoints.Limits(4, 4, 16, Duration.ofSeconds(5), Duration.ofSeconds(5)));

    assertThat(get(http.probePort(), "/healthz").status).isEqualTo(200);
    assertThat(get(http.probePort(), "/readyz").status).isEqualTo(200);
    ready = false;
    assertThat(get(http.probePort(), "/readyz").status).isEqualTo(503);
    assertThat(get(http.probePort(), "/metrics").body).contains("tenantry_http_rejected_total");
    assertThat(get(http.port(), "/healthz").status).as("no probes on the API port").isEqualTo(404);
    assertThat(get(http.probePort(), "/v1/echo").status).as("no API on the probe port").isEqualTo(404);
    assertThat(post(http.port(), "/v1/echo", "hello").body).isEqualTo("5");
    assertThat(call(http.port(), "GET /v1/echo HTTP/1.1\r\nHost: tenantry\r\nX-Padding: " + "x".repeat(HttpEndpoints.MAX_HEADER_BYTES)
        + "\r\nConnection: close\r\n\r\n").status).as("headers over the limit").isEqualTo(431);
  }

  @Test
  void aRouteAddedWhileServingAnswersItsPathAndBelowAndSeesThePath() throws Exception {
    start(new HttpEndpoints.Limits(4, 4, 16, Duration.ofSeconds(5), Duration.ofSeconds(5)));
    // As the allocation API is added to a running operator (the test harness does), with its statuses below its path.
    http.serve("/v1/late", blocking((request, out) ->
        out.write(request.getHttpURI().getCanonicalPath().getBytes(StandardCharsets.UTF_8))));

    assertThat(get(http.port(), "/v1/late").body).isEqualTo("/v1/late");
    assertThat(get(http.port(), "/v1/late/signup-1").body).isEqualTo("/v1/late/signup-1");
    assertThat(get(http.port(), "/v1/latex").status).as("a path that only begins like it").isEqualTo(404);
    assertThat(post(http.port(), "/v1/echo", "hello").body).as("the routes before it").isEqualTo("5");
    assertThat(get(http.port(), "/v2").status).isEqualTo(404);
  }

  @Test
  void readyzAnswersWithinASecondWhile64SlowClientsHoldTheApiPort() throws Exception {
    Duration readLimit = Duration.ofSeconds(3);
    start(new HttpEndpoints.Limits(4, 4, 16, readLimit, Duration.ofSeconds(3)));
    long started = System.nanoTime();
    List<Socket> trickling = new ArrayList<>();
    for (int i = 0; i < 64; i++) {
      Socket client = connect(http.port());
      if (i % 2 == 1) { // Half send a request line and trickle headers; half send nothing at all.
        client.getOutputStream().write(PARTIAL.getBytes(StandardCharsets.US_ASCII));
        trickling.add(client);
      }
    }
    trickle.scheduleAtFixedRate(() -> trickling.forEach(s -> send(s, "x")), 100, 100, TimeUnit.MILLISECONDS);
    Thread.sleep(300); // every trickler's first bytes are in

    // Jetty's model: past the connection cap a client waits to be accepted (it is neither refused nor
    // served) until the slow ones are cut: the silent at the shortened idle timeout, the tricklers at
    // the read limit of their first byte.
    // Up to four waves of 16 slow connections go first: ~10 s here, more on a loaded machine.
    Future<Response> during = callers.submit(() -> call(http.port(), "POST /v1/echo HTTP/1.1\r\nHost: tenantry\r\n"
        + "Connection: close\r\nContent-Length: 5\r\n\r\nhello", 30_000));

    long slowest = 0;
    for (int i = 0; i < 20; i++) {
      Response readyz = get(http.probePort(), "/readyz");
      assertThat(readyz.status).isEqualTo(200);
      slowest = Math.max(slowest, readyz.millis);
      Thread.sleep(50);
    }
    System.out.printf("/readyz under 64 slow API clients: slowest of 20 answers %d ms%n", slowest);
    assertThat(slowest).isLessThan(1000);
    assertThat(get(http.probePort(), "/metrics").status).isEqualTo(200);

    long lastCut = 0;
    for (Socket client : trickling) {
      assertThat(readToEnd(client, 20_000).status).as("cut off, no answer").isEqualTo(-1);
      lastCut = Math.max(lastCut, elapsedMillis(started));
    }
    assertThat(lastCut).as("those the server was reading were held to the read limit, not less").isGreaterThanOrEqualTo(readLimit.toMillis());
    // Each is counted as cut, unless the idle timeout closed it first: that takes a pause of the test's
    // JVM over IDLE_AT_CAP (seen on a loaded CI machine), and an idle close counts under no reason.
    assertThat(rejected("cut", 32)).as("the tricklers, by the header deadline; all refusals: %s", refusals()).isBetween(1.0, 32.0);
    assertThat(during.get(40, TimeUnit.SECONDS).status).as("served once the slow clients are cut").isEqualTo(200);
    assertThat(post(http.port(), "/v1/echo", "hello").status).as("served again").isEqualTo(200);
  }

  @Test
  void aClientTooSlowToSendItsRequestIsCutOffAtTheReadLimit() throws Exception {
    start(new HttpEndpoints.Limits(4, 4, 16, Duration.ofSeconds(1), Duration.ofSeconds(1)));

    Socket silent = connect(http.port());
    send(silent, PARTIAL);
    Socket trickler = connect(http.port());
    send(trickler, "POST /v1/echo HTTP/1.1\r\nHost: tenantry\r\nContent-Length: 1000\r\n\r\n");
    trickle.scheduleAtFixedRate(() -> send(trickler, "x"), 100, 100, TimeUnit.MILLISECONDS);
    long started = System.nanoTime();

    Response silentEnd = readToEnd(silent, 5000);
    assertThat(silentEnd.status).as("headers never finished: closed, no answer possible").isEqualTo(-1);
    assertThat(elapsedMillis(started)).isBetween(900L, 2500L);
    // Each body byte comes well within the idle timeout: the request's deadline, not idleness, ends it.
    Response trickled = readToEnd(trickler, 5000);
    assertThat(trickled.status).as("its body is not in within the read limit of its first byte").isEqualTo(408);
    assertThat(elapsedMillis(started)).isLessThan(2500);
    assertThat(trickled.headers).containsEntry("connection", "close");
    assertThat(rejected("timeout", 1)).isEqualTo(1);

    assertThat(post(http.port(), "/v1/echo", "hello").body).isEqualTo("5");
  }

  @Test
  void aFullListenerAnswers503WithRetryAfterInsteadOfQueueingForever() throws Exception {
    create(new HttpEndpoints.Limits(1, 1, 5, Duration.ofSeconds(5), Duration.ofSeconds(5)));
    CountDownLatch entered = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    http.serve("/v1/block", blocking((request, out) -> {
      entered.countDown();
      await(release);
      out.write("done".getBytes(StandardCharsets.UTF_8));
    }));
    http.start();

    Future<Response> handled = callers.submit(() -> post(http.port(), "/v1/block", "1"));
    assertThat(entered.await(5, TimeUnit.SECONDS)).isTrue();
    // Two slow clients, silent since their first bytes: the oldest connections.
    connect(http.port()).getOutputStream().write(PARTIAL.getBytes(StandardCharsets.US_ASCII));
    connect(http.port()).getOutputStream().write(PARTIAL.getBytes(StandardCharsets.US_ASCII));
    Thread.sleep(1500);
    Future<Response> queued = callers.submit(() -> post(http.port(), "/v1/block", "2"));
    Thread.sleep(300); // the second request waits in the queue of one

    Response busy = post(http.port(), "/v1/echo", "3");
    assertRefused(busy, "busy", 1);
    connect(http.port()).getOutputStream().write(PARTIAL.getBytes(StandardCharsets.US_ASCII));
    Thread.sleep(300); // five connections open: the cap

    // Jetty's model: over the cap a connection is not accepted until one closes; the cap shortens the
    // idle timeout of those open (IDLE_AT_CAP), so the two silent for longer go first, this one is let
    // in, and refused as busy; the queued request is not cut.
    Response overCap = post(http.port(), "/v1/echo", "4");
    assertRefused(overCap, "busy", 2);

    release.countDown();
    assertThat(handled.get(5, TimeUnit.SECONDS).status).isEqualTo(200);
    assertThat(queued.get(5, TimeUnit.SECONDS).status).as("the queued request is served, not refused").isEqualTo(200);
    sockets.forEach(HttpEndpointsTest::closeQuietly);
    assertThat(servedAgain()).as("served once the slow clients are gone").isEqualTo("5");
  }

  @Test
  void requestsARouteThatLimitsItselfHoldsWithoutAThreadTakeNoPlaceInTheListenersQueue() throws Exception {
    create(new HttpEndpoints.Limits(1, 0, 16, Duration.ofSeconds(5), Duration.ofSeconds(5)));
    List<Runnable> held = new CopyOnWriteArrayList<>();
    http.serveSelfLimited("/v1/hold", new Handler.Abstract() {
      @Override
      public boolean handle(Request request, org.eclipse.jetty.server.Response response, Callback callback) {
        // as an allocation waiting for its tenant to serve: answered later, from another thread
        held.add(() -> Content.Sink.write(response, true, "served", callback));
        return true;
      }
    }, "t0ken");
    http.start();

    List<Future<Response>> holding = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      holding.add(callers.submit(() -> call(http.port(), "POST /v1/hold HTTP/1.1\r\nHost: tenantry\r\n"
          + "Authorization: Bearer t0ken\r\nConnection: close\r\nContent-Length: 0\r\n\r\n")));
    }
    for (int i = 0; i < 50 && held.size() < 3; i++) {
      Thread.sleep(100);
    }
    assertThat(held).hasSize(3);

    assertThat(post(http.port(), "/v1/echo", "hello").status).as("the one thread and no queue: still served").isEqualTo(200);
    assertThat(post(http.port(), "/v1/hold", "").status).as("behind the token all the same").isEqualTo(401);
    held.forEach(Runnable::run);
    for (Future<Response> answer : holding) {
      assertThat(answer.get(5, TimeUnit.SECONDS).body).isEqualTo("served");
    }
  }

  @Test
  void anAnswerTheClientDoesNotReadIsCutOffAtTheWriteLimit() throws Exception {
    create(new HttpEndpoints.Limits(4, 4, 16, Duration.ofSeconds(5), Duration.ofSeconds(1)));
    CountDownLatch failed = new CountDownLatch(1);
    AtomicLong writingMillis = new AtomicLong(-1);
    http.serve("/v1/big", blocking((request, out) -> {
      long started = System.nanoTime();
      byte[] chunk = new byte[64 * 1024];
      try {
        for (int i = 0; i < 4096; i++) { // 256 MiB: far more than the socket buffers hold
          out.write(chunk);
        }
      } catch (IOException e) {
        writingMillis.set(elapsedMillis(started));
        failed.countDown();
        throw e;
      }
    }));
    http.start();

    Socket reader = new Socket();
    sockets.add(reader);
    reader.setReceiveBufferSize(4096);
    reader.connect(new InetSocketAddress(LOOPBACK, http.port()));
    send(reader, "GET /v1/big HTTP/1.1\r\nHost: tenantry\r\n\r\n"); // and never read

    assertThat(failed.await(10, TimeUnit.SECONDS)).as("the handler's write is cut off").isTrue();
    assertThat(writingMillis.get()).isBetween(900L, 2500L);
    assertThat(post(http.port(), "/v1/echo", "hello").body).isEqualTo("5");
  }

  @Test
  void aHandlerThatTakesLongerThanTheIdleTimeoutStillAnswers() throws Exception {
    create(new HttpEndpoints.Limits(4, 4, 16, Duration.ofSeconds(1), Duration.ofSeconds(1)));
    http.serve("/v1/slow", blocking((request, out) -> {
      Thread.sleep(2500); // as an allocation waiting (?wait=) for its tenant to serve
      out.write("late".getBytes(StandardCharsets.UTF_8));
    }));
    http.start();

    assertThat(post(http.port(), "/v1/slow", "").body).isEqualTo("late");
  }

  @Test
  void closingReturnsWithinTheGraceWhateverTheHandlersDo() throws Exception {
    create(new HttpEndpoints.Limits(4, 4, 16, Duration.ofSeconds(5), Duration.ofSeconds(5)));
    CountDownLatch entered = new CountDownLatch(1);
    http.serve("/v1/stuck", blocking((request, out) -> {
      entered.countDown();
      Thread.sleep(60_000);
    }));
    http.start();
    callers.submit(() -> post(http.port(), "/v1/stuck", "1"));
    assertThat(entered.await(5, TimeUnit.SECONDS)).isTrue();

    long started = System.nanoTime();
    http.close();
    http = null;
    assertThat(elapsedMillis(started)).isLessThan(HttpEndpoints.STOP_GRACE.toMillis() + 1000);
  }

  /** The echo of a normal request, once the server has seen the clients that held it close (at most 2 s). */
  private String servedAgain() throws IOException, InterruptedException {
    Response response = post(http.port(), "/v1/echo", "hello");
    for (int i = 0; i < 20 && response.status != 200; i++) {
      Thread.sleep(100);
      response = post(http.port(), "/v1/echo", "hello");
    }
    return response.body;
  }

  private void assertRefused(Response response, String reason, int count) throws InterruptedException {
    assertThat(response.status).isEqualTo(503);
    assertThat(response.headers).containsEntry("retry-after", "1").containsEntry("connection", "close");
    assertThat(rejected(reason, count)).isEqualTo(count);
  }

  private void start(HttpEndpoints.Limits limits) {
    create(limits);
    http.start();
  }

  /** Endpoints on 127.0.0.1 serving {@code /v1/echo} (answers the body's length), not started: more routes may follow. */
  private void create(HttpEndpoints.Limits limits) {
    http = new HttpEndpoints(new InetSocketAddress(LOOPBACK, 0), new InetSocketAddress(LOOPBACK, 0), limits, null,
        () -> true, () -> ready, registry);
    http.serve("/v1/echo", blocking((request, out) -> {
      byte[] body;
      try (InputStream in = Content.Source.asInputStream(request)) {
        body = in.readAllBytes();
      }
      out.write(Integer.toString(body.length).getBytes(StandardCharsets.UTF_8));
    }));
  }

  /** The count of requests refused for {@code reason}, once it reaches {@code expected} (counted just after the connection closes). */
  private double rejected(String reason, double expected) throws InterruptedException {
    double count = 0;
    for (int i = 0; i < 40 && count < expected; i++) {
      count = registry.get("tenantry.http.rejected").tag("listener", "api").tag("reason", reason).counter().count();
      if (count < expected) {
        Thread.sleep(50);
      }
    }
    return count;
  }

  /** Every refusal counted on the API listener, by reason: what a failed count is read against. */
  private Map<String, Double> refusals() {
    Map<String, Double> byReason = new TreeMap<>();
    registry.find("tenantry.http.rejected").tag("listener", "api").counters()
        .forEach(c -> byReason.put(c.getId().getTag("reason"), c.count()));
    return byReason;
  }

  /** What a test route does: reads the request, writes a 200 answer's body. */
  interface Blocking {
    void handle(Request request, OutputStream out) throws Exception;
  }

  /** A route that blocks its thread, as the allocation API does; an exception fails the request. */
  static Handler blocking(Blocking body) {
    return new Handler.Abstract() {
      @Override
      public boolean handle(Request request, org.eclipse.jetty.server.Response response, Callback callback)
          throws Exception {
        response.setStatus(200);
        OutputStream out = Content.Sink.asOutputStream(response);
        body.handle(request, out); // what it throws fails the request: Jetty answers (when it still can)
        out.close();
        callback.succeeded();
        return true;
      }
    };
  }

  private Response get(int port, String path) throws IOException {
    return call(port, "GET " + path + " HTTP/1.1\r\nHost: tenantry\r\nConnection: close\r\n\r\n");
  }

  private Response post(int port, String path, String body) throws IOException {
    return call(port, "POST " + path + " HTTP/1.1\r\nHost: tenantry\r\nConnection: close\r\nContent-Length: "
        + body.length() + "\r\n\r\n" + body);
  }

  private Response call(int port, String request) throws IOException {
    return call(port, request, 10_000);
  }

  private Response call(int port, String request, int readMillis) throws IOException {
    long started = System.nanoTime();
    try (Socket socket = connect(port)) {
      send(socket, request);
      Response response = readToEnd(socket, readMillis);
      return new Response(response.status, response.headers, response.body, elapsedMillis(started));
    }
  }

  private Socket connect(int port) throws IOException {
    Socket socket = new Socket(LOOPBACK, port);
    sockets.add(socket);
    return socket;
  }

  private static void send(Socket socket, String text) {
    try {
      OutputStream out = socket.getOutputStream();
      out.write(text.getBytes(StandardCharsets.US_ASCII));
      out.flush();
    } catch (IOException e) {
      // Cut off by the server: what the tests look for on the reading side.
    }
  }

  /** Reads until the server closes the connection (or resets it); fails when it is still open after {@code millis}. */
  private static Response readToEnd(Socket socket, long millis) throws IOException {
    long started = System.nanoTime();
    ByteArrayOutputStream received = new ByteArrayOutputStream();
    byte[] buffer = new byte[8192];
    InputStream in = socket.getInputStream();
    while (true) {
      long left = millis - elapsedMillis(started);
      if (left <= 0) {
        throw new AssertionError("the connection is still open after " + millis + " ms");
      }
      socket.setSoTimeout((int) left);
      int n;
      try {
        n = in.read(buffer);
      } catch (SocketTimeoutException e) {
        continue;
      } catch (IOException e) {
        n = -1; // reset: closed by the server
      }
      if (n < 0) {
        return Response.parse(received.toString(StandardCharsets.ISO_8859_1), elapsedMillis(started));
      }
      received.write(buffer, 0, n);
    }
  }

  private static long elapsedMillis(long startedNanos) {
    return (System.nanoTime() - startedNanos) / 1_000_000;
  }

  private static void await(CountDownLatch latch) {
    try {
      latch.await(10, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private static void closeQuietly(Socket socket) {
    try {
      socket.close();
    } catch (IOException e) {
      // closing anyway
    }
  }

  /** An answer: status (-1: the connection closed without one), headers (lower-case names), body, time taken. */
  private record Response(int status, Map<String, String> headers, String body, long millis) {

    static Response parse(String text, long millis) {
      int end = text.indexOf("\r\n\r\n");
      if (!text.startsWith("HTTP/1.1 ") || end < 0) {
        return new Response(-1, Map.of(), text, millis);
      }
      String[] lines = text.substring(0, end).split("\r\n");
      Map<String, String> headers = new LinkedHashMap<>();
      for (int i = 1; i < lines.length; i++) {
        int colon = lines[i].indexOf(':');
        headers.put(lines[i].substring(0, colon).trim().toLowerCase(Locale.ROOT), lines[i].substring(colon + 1).trim());
      }
      return new Response(Integer.parseInt(lines[0].substring(9, 12)), headers, text.substring(end + 4), millis);
    }
  }
}
