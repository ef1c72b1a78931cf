package io.tenantry.spares.allocation;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.google.cloud.datastore.DatastoreException;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.tenantry.spares.allocation.AllocationOutcome.Allocated;
import io.tenantry.spares.allocation.AllocationOutcome.NoSpare;
import io.tenantry.spares.allocation.AllocationOutcome.SubdomainRefused;
import io.tenantry.spares.allocation.AllocationOutcome.SubdomainTaken;
import io.tenantry.spares.allocation.AllocationOutcome.UnknownPool;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.tenantry.spares.fleet.Allocation;
import io.tenantry.spares.fleet.Cluster;
import io.tenantry.spares.fleet.InMemoryFleetRecords;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.net.InetAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpRequest.BodyPublisher;
import java.net.http.HttpRequest.BodyPublishers;
import java.net.http.HttpResponse;
import java.net.http.HttpResponse.BodyHandlers;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.stream.Stream;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@link AllocationApi} served by a Jetty server on a free loopback port, in front of a stub
 * {@link Allocations}: each case is "this HTTP request → this status, field and headers", and a
 * refused request never reaches the allocator.
 */
class AllocationApiTest {

  private static final String TOKEN = "s3cret-token";
  private static final int MAX_BODY = 256;
  private static final int MAX_WAITING = 2;
  /** One thread, one more request queued: the waits hold neither. */
  private static final AllocationApi.Limits LIMITS = new AllocationApi.Limits(1, 1, MAX_WAITING);
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String VALID = "{\"requestId\":\"signup-1\",\"organization\":\"Initech\",\"email\":\"ops@initech.example\"}";
  private static final Allocation ALLOCATION = new Allocation("signup-1", "Initech", "ops@initech.example", "default-x7k2p",
      "uid-default-x7k2p", "local", "tenant-default-x7k2p", Instant.parse("2026-03-01T10:00:00.123456Z"), null);
  private static final String URL = "https://default-x7k2p.tenants.example/";

  private final List<AllocationRequest> received = new CopyOnWriteArrayList<>();
  private final List<Duration> waits = new CopyOnWriteArrayList<>();
  private volatile boolean serving;
  /** Counted down by each answer that starts waiting; the waits end when {@link #servingArrives} opens (at once unless a test closes it). */
  private volatile CountDownLatch waiting = new CountDownLatch(0);
  private volatile CountDownLatch servingArrives = new CountDownLatch(0);
  private volatile Function<AllocationRequest, AllocationOutcome> answer = r -> new Allocated(ALLOCATION, URL, false);
  private final HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
      .connectTimeout(Duration.ofSeconds(5)).build();
  private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
  private final ExecutorService waiters = Executors.newCachedThreadPool();
  private Server server;
  private URI base;

  @BeforeEach
  void serve() throws Exception {
    Allocations stub = new Allocations() {
      @Override
      public AllocationOutcome allocate(AllocationRequest request) {
        received.add(request);
        return answer.apply(request);
      }

      @Override
      public Optional<Allocated> lookup(String requestId) {
        return requestId.equals(ALLOCATION.requestId()) ? Optional.of(new Allocated(ALLOCATION, URL, true)) : Optional.empty();
      }

      @Override
      public CompletableFuture<Boolean> whenServing(Allocation allocation, Duration wait) {
        waits.add(wait);
        if (wait.isZero()) {
          return CompletableFuture.completedFuture(serving);
        }
        waiting.countDown();
        return CompletableFuture.supplyAsync(() -> {
          await(servingArrives);
          return serving;
        }, waiters);
      }
    };
    server = new Server();
    ServerConnector connector = new ServerConnector(server);
    connector.setHost(InetAddress.getLoopbackAddress().getHostAddress());
    server.addConnector(connector);
    server.setHandler(new AllocationApi(stub, TOKEN, MAX_BODY, "default", LIMITS, registry));
    server.start();
    base = URI.create("http://127.0.0.1:" + connector.getLocalPort());
  }

  @AfterEach
  void stop() throws Exception {
    servingArrives.countDown();
    server.stop();
    waiters.shutdownNow();
  }

  /** An HTTP request as a case describes it; a null header is left out. */
  private record Call(String method, String path, String authorization, String contentType, BodyPublisher body) {

    static Call post(String body) {
      return new Call("POST", AllocationApi.PATH, "Bearer " + TOKEN, "application/json", bytes(body));
    }

    Call method(String method) {
      return new Call(method, path, authorization, contentType, method.equals("GET") ? BodyPublishers.noBody() : body);
    }

    Call path(String path) {
      return new Call(method, path, authorization, contentType, body);
    }

    Call authorization(String authorization) {
      return new Call(method, path, authorization, contentType, body);
    }

    Call contentType(String contentType) {
      return new Call(method, path, authorization, contentType, body);
    }

    /** The same body sent chunked, without Content-Length. */
    Call chunked(String body) {
      byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
      return new Call(method, path, authorization, contentType, BodyPublishers.ofInputStream(() -> new ByteArrayInputStream(bytes)));
    }
  }

  private static BodyPublisher bytes(String body) {
    return BodyPublishers.ofByteArray(body.getBytes(StandardCharsets.UTF_8));
  }

  private HttpResponse<String> send(Call call) throws Exception {
    return client.send(request(call), BodyHandlers.ofString());
  }

  private HttpRequest request(Call call) {
    HttpRequest.Builder request = HttpRequest.newBuilder(base.resolve(call.path())).timeout(Duration.ofSeconds(5))
        .method(call.method(), call.body());
    if (call.authorization() != null) {
      request.header("Authorization", call.authorization());
    }
    if (call.contentType() != null) {
      request.header("Content-Type", call.contentType());
    }
    return request.build();
  }

  private static void await(CountDownLatch latch) {
    try {
      latch.await(10, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** A valid request whose body is exactly {@code size} bytes long. */
  private static String validOfSize(int size) {
    String shell = "{\"requestId\":\"signup-1\",\"organization\":\"\",\"email\":\"ops@initech.example\"}";
    return shell.replace("\"organization\":\"\"", "\"organization\":\"" + "I".repeat(size - shell.length()) + "\"");
  }

  static Stream<Arguments> refused() {
    String big = validOfSize(MAX_BODY + 1);
    return Stream.of(
        Arguments.of("GET", Call.post(VALID).method("GET"), 405, "method", Map.of("Allow", "POST")),
        Arguments.of("PUT", Call.post(VALID).method("PUT"), 405, "method", Map.of("Allow", "POST")),
        Arguments.of("GET without a token: the method is refused first", Call.post(VALID).method("GET").authorization(null),
            405, "method", Map.of()),
        Arguments.of("a path that only begins like the API's", Call.post(VALID).path(AllocationApi.PATH + "x"), 404, "path",
            Map.of()),
        Arguments.of("a status without a request id", Call.post(VALID).method("GET").path(AllocationApi.PATH + "/"), 404, "path",
            Map.of()),
        Arguments.of("POST to a status", Call.post(VALID).path(AllocationApi.PATH + "/signup-1"), 405, "method",
            Map.of("Allow", "GET")),
        Arguments.of("a status without a token", Call.post(VALID).method("GET").path(AllocationApi.PATH + "/signup-1")
            .authorization(null), 401, "Authorization", Map.of()),
        Arguments.of("a status of an unknown request id", Call.post(VALID).method("GET").path(AllocationApi.PATH + "/signup-2"),
            404, "requestId", Map.of()),
        Arguments.of("a wait without a unit", Call.post(VALID).path(AllocationApi.PATH + "?wait=5"), 400, "wait", Map.of()),
        Arguments.of("a wait over 30 s", Call.post(VALID).path(AllocationApi.PATH + "?wait=31s"), 400, "wait", Map.of()),
        Arguments.of("no token", Call.post(VALID).authorization(null), 401, "Authorization",
            Map.of("WWW-Authenticate", "Bearer")),
        Arguments.of("another scheme", Call.post(VALID).authorization("Basic " + TOKEN), 401, "Authorization",
            Map.of("WWW-Authenticate", "Bearer")),
        Arguments.of("a wrong token", Call.post(VALID).authorization("Bearer wrong"), 401, "Authorization",
            Map.of("WWW-Authenticate", "Bearer")),
        Arguments.of("a prefix of the token", Call.post(VALID).authorization("Bearer " + TOKEN.substring(0, 5)), 401,
            "Authorization", Map.of()),
        Arguments.of("a token and more", Call.post(VALID).authorization("Bearer " + TOKEN + "x"), 401,
            "Authorization", Map.of()),
        Arguments.of("no token, not JSON either: 401 first", Call.post(VALID).authorization(null).contentType("text/plain"),
            401, "Authorization", Map.of()),
        Arguments.of("text/plain", Call.post(VALID).contentType("text/plain"), 415, "Content-Type", Map.of()),
        Arguments.of("JSON under another type", Call.post(VALID).contentType("application/x-www-form-urlencoded"), 415,
            "Content-Type", Map.of()),
        Arguments.of("a body over the limit, with Content-Length", Call.post(big), 413, "body", Map.of()),
        Arguments.of("a body over the limit, chunked", Call.post(VALID).chunked(big), 413, "body", Map.of()),
        Arguments.of("malformed JSON", Call.post("{\"requestId\":"), 400, "body", Map.of()),
        Arguments.of("not an object", Call.post("[]"), 400, "body", Map.of()),
        Arguments.of("a missing field",
            Call.post("{\"requestId\":\"signup-1\",\"organization\":\"Initech\"}"), 400, "email", Map.of()),
        Arguments.of("an unknown field",
            Call.post(VALID.replace("}", ",\"tenant\":\"mine\"}")), 400, "tenant", Map.of()),
        Arguments.of("an invalid field",
            Call.post(VALID.replace("ops@initech.example", "nobody")), 400, "email", Map.of()),
        Arguments.of("a field of the wrong type",
            Call.post(VALID.replace("\"signup-1\"", "42")), 400, "requestId", Map.of()),
        Arguments.of("an invalid pool",
            Call.post(VALID.replace("}", ",\"pool\":\"Not_A_Label\"}")), 400, "pool", Map.of()),
        Arguments.of("a subdomain that is not a DNS label",
            Call.post(VALID.replace("}", ",\"subdomain\":\"acme.shop\"}")), 400, "subdomain", Map.of()));
  }

  @ParameterizedTest(name = "{0} → {2} {3}")
  @MethodSource
  void refused(String name, Call call, int status, String field, Map<String, String> headers) throws Exception {
    HttpResponse<String> response = send(call);

    assertThat(response.statusCode()).as(response.body()).isEqualTo(status);
    assertThat(response.headers().firstValue("Content-Type")).contains("application/json");
    JsonNode body = JSON.readTree(response.body());
    assertThat(body.path("field").asText()).isEqualTo(field);
    assertThat(body.path("error").asText()).isNotBlank();
    headers.forEach((header, value) -> assertThat(response.headers().firstValue(header)).as(header).contains(value));
    assertThat(received).as("requests that reached the allocator").isEmpty();
  }

  /**
   * The body is read no further than the limit: answered 413 and the connection closed while the
   * client still sends, so the client may see the answer or, as TCP drops an answer when more bytes
   * reach a closed socket, the connection reset. Either way nothing reaches the allocator, and the
   * next request is served.
   */
  @Test
  void aBodyFarOverTheLimitIsCutOffAndAllocatesNothing() throws Exception {
    try {
      HttpResponse<String> response = send(Call.post(VALID).chunked(validOfSize(MAX_BODY + 1).repeat(200)));
      assertThat(response.statusCode()).isEqualTo(413);
      assertThat(JSON.readTree(response.body()).path("field").asText()).isEqualTo("body");
    } catch (IOException cutOff) {
      assertThat(cutOff).as("the connection cut, not another failure").isNotInstanceOf(java.net.http.HttpTimeoutException.class);
    }
    assertThat(received).as("requests that reached the allocator").isEmpty();
    assertThat(send(Call.post(VALID)).statusCode()).isEqualTo(200);
  }

  @Test
  void anAllocatedTenantIsAnswered200WithItsBodyAndUrl() throws Exception {
    HttpResponse<String> response = send(Call.post(VALID));

    assertThat(response.statusCode()).isEqualTo(200);
    assertThat(response.headers().firstValue("Content-Type")).contains("application/json");
    assertThat(response.headers().firstValue("WWW-Authenticate")).isEmpty();
    assertThat(JSON.readValue(response.body(), Map.class)).isEqualTo(Map.of(
        "requestId", "signup-1", "tenant", "default-x7k2p", "namespace", "tenant-default-x7k2p", "cluster", "local",
        "organization", "Initech", "email", "ops@initech.example", "allocatedAt", "2026-03-01T10:00:00.123456Z",
        "url", URL, "serving", false, "status", "/v1/allocations/signup-1"));
    assertThat(received).containsExactly(new AllocationRequest("signup-1", "Initech", "ops@initech.example", "default", null));
    assertThat(waits).as("no wait asked: serving is looked at once").containsExactly(Duration.ZERO);
  }

  @Test
  void aWaitAskedForIsWaitedForTheTenantToServe() throws Exception {
    serving = true;

    HttpResponse<String> response = send(Call.post(VALID).path(AllocationApi.PATH + "?wait=2500ms"));

    assertThat(response.statusCode()).isEqualTo(200);
    assertThat(JSON.readTree(response.body()).get("serving").asBoolean()).isTrue();
    assertThat(waits).containsExactly(Duration.ofMillis(2500));
  }

  @Test
  void waitsHoldNoThreadAndPastTheirLimitAnswersComeAtOnce() throws Exception {
    waiting = new CountDownLatch(MAX_WAITING);
    servingArrives = new CountDownLatch(1);
    String status = AllocationApi.PATH + "/signup-1?wait=30s";
    List<CompletableFuture<HttpResponse<String>>> held = new ArrayList<>();
    for (int i = 0; i < MAX_WAITING; i++) {
      held.add(client.sendAsync(request(Call.post(VALID).method("GET").path(status)), BodyHandlers.ofString()));
    }
    assertThat(waiting.await(5, TimeUnit.SECONDS)).as("every wait the budget allows is waiting").isTrue();

    HttpResponse<String> past = send(Call.post(VALID).method("GET").path(status));
    HttpResponse<String> signup = send(Call.post(VALID).path(AllocationApi.PATH + "?wait=30s"));

    assertThat(past.statusCode()).isEqualTo(200);
    assertThat(JSON.readTree(past.body()).get("serving").asBoolean()).as("as it is now").isFalse();
    assertThat(signup.statusCode()).isEqualTo(200);
    assertThat(held).noneMatch(CompletableFuture::isDone);
    serving = true;
    servingArrives.countDown();
    for (CompletableFuture<HttpResponse<String>> answer : held) {
      assertThat(JSON.readTree(answer.get(5, TimeUnit.SECONDS).body()).get("serving").asBoolean()).isTrue();
    }
    assertThat(waits).filteredOn(Duration::isZero).as("the two past the budget looked once").hasSize(2);
  }

  @Test
  void pastItsThreadsAndQueueTheApiRefusesAtOnceWithRetryAfterAndCountsIt() throws Exception {
    CountDownLatch allocating = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    answer = r -> {
      allocating.countDown();
      await(release);
      return new Allocated(ALLOCATION, URL, false);
    };
    CompletableFuture<HttpResponse<String>> running = client.sendAsync(request(Call.post(VALID)), BodyHandlers.ofString());
    assertThat(allocating.await(5, TimeUnit.SECONDS)).as("the one thread allocates").isTrue();
    List<CompletableFuture<HttpResponse<String>>> more = List.of(
        client.sendAsync(request(Call.post(VALID)), BodyHandlers.ofString()),
        client.sendAsync(request(Call.post(VALID)), BodyHandlers.ofString()));

    HttpResponse<String> refused = (HttpResponse<String>) CompletableFuture.anyOf(more.toArray(CompletableFuture[]::new))
        .get(5, TimeUnit.SECONDS);
    assertThat(refused.statusCode()).as("one queued, the other refused while the thread is held").isEqualTo(503);
    assertThat(refused.headers().firstValue("Retry-After")).contains("1");
    assertThat(JSON.readTree(refused.body()).get("error").asText()).contains("busy");
    assertThat(registry.counter("tenantry.http.rejected", "listener", "api", "reason", "busy").count()).isEqualTo(1);

    release.countDown();
    assertThat(running.get(5, TimeUnit.SECONDS).statusCode()).isEqualTo(200);
    assertThat(more.stream().map(f -> f.join().statusCode())).as("the queued one is served once the thread is free")
        .containsExactlyInAnyOrder(200, 503);
    assertThat(received).hasSize(2);
  }

  @Test
  void theStatusOfARequestIdIsItsAnswerAgainWithWhetherItServesYet() throws Exception {
    HttpResponse<String> first = send(Call.post(VALID));
    serving = true;

    HttpResponse<String> status = send(Call.post(VALID).method("GET").path(JSON.readTree(first.body()).get("status").asText()
        + "?wait=5s"));

    assertThat(status.statusCode()).isEqualTo(200);
    JsonNode body = JSON.readTree(status.body());
    assertThat(body.get("serving").asBoolean()).isTrue();
    ((com.fasterxml.jackson.databind.node.ObjectNode) body).put("serving", false);
    assertThat(body).isEqualTo(JSON.readTree(first.body()));
    assertThat(waits).containsExactly(Duration.ZERO, Duration.ofSeconds(5));
    assertThat(received).as("a status binds nothing").hasSize(1);
  }

  @Test
  void withRoutingOffTheAnswerHasNoUrl() throws Exception {
    answer = r -> new Allocated(ALLOCATION, null, false);

    HttpResponse<String> response = send(Call.post(VALID));

    assertThat(response.statusCode()).isEqualTo(200);
    assertThat(JSON.readTree(response.body()).has("url")).isFalse();
  }

  @Test
  void theSubdomainAskedForReachesTheAllocator() throws Exception {
    send(Call.post(VALID.replace("}", ",\"subdomain\":\"initech\"}")));

    assertThat(received).extracting(AllocationRequest::subdomain).containsExactly("initech");
  }

  @Test
  void aSubdomainAnotherTenantHoldsIs409OnTheSubdomain() throws Exception {
    answer = r -> new SubdomainTaken(r.subdomain(), r.subdomain() + ".tenants.example");

    HttpResponse<String> response = send(Call.post(VALID.replace("}", ",\"subdomain\":\"initech\"}")));

    assertThat(response.statusCode()).isEqualTo(409);
    assertThat(response.headers().firstValue("Content-Type")).contains("application/json");
    JsonNode body = JSON.readTree(response.body());
    assertThat(body.path("field").asText()).isEqualTo("subdomain");
    assertThat(body.path("error").asText()).contains("initech").contains("taken");
  }

  @Test
  void aSubdomainTheOperatorCannotGiveIs400OnTheSubdomain() throws Exception {
    answer = r -> new SubdomainRefused(r.subdomain(), "routing is off: the operator has no routing.baseDomain");

    HttpResponse<String> response = send(Call.post(VALID.replace("}", ",\"subdomain\":\"initech\"}")));

    assertThat(response.statusCode()).isEqualTo(400);
    JsonNode body = JSON.readTree(response.body());
    assertThat(body.path("field").asText()).isEqualTo("subdomain");
    assertThat(body.path("error").asText()).isEqualTo("routing is off: the operator has no routing.baseDomain");
  }

  @Test
  void aReservedSubdomainIs400OnTheSubdomainAndNoSpareIsBound() throws Exception {
    InMemoryFleetRecords records = new InMemoryFleetRecords();
    records.registerCluster(new Cluster("c1", "c1-context", Map.of(), Instant.EPOCH));
    InMemorySpareSources sources = new InMemorySpareSources();
    InMemorySpareCluster c1 = sources.add(new InMemorySpareCluster("c1", "default").ready("s1", "default", Instant.EPOCH));
    try (Allocator allocator = new Allocator(records, sources, new TenantUrls("https", "tenants.example", Set.of("www", "api")),
        Clock.systemUTC(), Duration.ofSeconds(10), true, ServingProbe.NONE, new SimpleMeterRegistry())) {
      answer = allocator::allocate;

      HttpResponse<String> response = send(Call.post(VALID.replace("}", ",\"subdomain\":\"www\"}")));

      assertThat(response.statusCode()).isEqualTo(400);
      JsonNode body = JSON.readTree(response.body());
      assertThat(body.path("field").asText()).isEqualTo("subdomain");
      assertThat(body.path("error").asText())
          .isEqualTo("subdomain www is reserved (the operator's routing.reservedSubdomains); choose another subdomain");
      assertThat(c1.binds()).as("binds attempted").isZero();
      assertThat(records.hostnameHolder("www.tenants.example")).as("hostname claimed").isEmpty();
      assertThat(records.findAllocation("signup-1")).as("allocation recorded").isEmpty();

      // The same request id asking for a free subdomain then gets the spare.
      assertThat(send(Call.post(VALID.replace("}", ",\"subdomain\":\"initech\"}"))).statusCode()).isEqualTo(200);
      assertThat(c1.binds()).isEqualTo(1);
    }
  }

  @Test
  void aRetryGetsTheSameBody() throws Exception {
    String first = send(Call.post(VALID)).body();
    answer = r -> new Allocated(ALLOCATION, URL, true);

    HttpResponse<String> retry = send(Call.post(VALID));

    assertThat(retry.statusCode()).isEqualTo(200);
    assertThat(retry.body()).isEqualTo(first);
  }

  @ParameterizedTest(name = "Content-Type {0}")
  @ValueSource(strings = {"", "application/json; charset=utf-8", "Application/JSON", "APPLICATION/JSON"})
  void jsonIsAcceptedWhateverTheCaseAndWithoutAType(String contentType) throws Exception {
    HttpResponse<String> response = send(Call.post(VALID).contentType(contentType.isEmpty() ? null : contentType));

    assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
  }

  @Test
  void theTypeIsReadTheSameUnderATurkishDefaultLocale() throws Exception {
    // Lower-cased in Turkish, "APPLICATION" would become "applıcatıon" (dotless i) and be refused.
    Locale before = Locale.getDefault();
    Locale.setDefault(Locale.forLanguageTag("tr-TR"));
    try {
      HttpResponse<String> response = send(Call.post(VALID).contentType("APPLICATION/JSON"));

      assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
    } finally {
      Locale.setDefault(before);
    }
  }

  @Test
  void theSchemeIsCaseInsensitive() throws Exception {
    assertThat(send(Call.post(VALID).authorization("bearer " + TOKEN)).statusCode()).isEqualTo(200);
  }

  @Test
  void aBodyOfExactlyTheLimitIsRead() throws Exception {
    String body = validOfSize(MAX_BODY);

    assertThat(send(Call.post(body)).statusCode()).isEqualTo(200);
    assertThat(send(Call.post(VALID).chunked(body)).statusCode()).isEqualTo(200);
    assertThat(received).hasSize(2);
  }

  @Test
  void noSpareIs503WithRetryAfter() throws Exception {
    answer = r -> new NoSpare(r.pool(), Duration.ofSeconds(30), "no Ready spare in pool default; retry after 30s");

    HttpResponse<String> response = send(Call.post(VALID));

    assertThat(response.statusCode()).isEqualTo(503);
    assertThat(response.headers().firstValue("Retry-After")).contains("30");
    assertThat(JSON.readTree(response.body()).path("error").asText()).isEqualTo("no Ready spare in pool default; retry after 30s");
    assertThat(JSON.readTree(response.body()).has("field")).isFalse();
  }

  @Test
  void retryAfterIsAtLeastOneSecond() throws Exception {
    answer = r -> new NoSpare(r.pool(), Duration.ofMillis(300), "every Ready spare tried was taken");

    assertThat(send(Call.post(VALID)).headers().firstValue("Retry-After")).contains("1");
  }

  @Test
  void anUnknownPoolIs400OnThePool() throws Exception {
    answer = r -> new UnknownPool(r.pool());

    HttpResponse<String> response = send(Call.post(VALID.replace("}", ",\"pool\":\"eu\"}")));

    assertThat(response.statusCode()).isEqualTo(400);
    assertThat(JSON.readTree(response.body()).path("field").asText()).isEqualTo("pool");
    assertThat(JSON.readTree(response.body()).path("error").asText()).contains("eu");
  }

  static Stream<Arguments> failures() {
    return Stream.of(
        Arguments.of("fleet records down", new DatastoreException(14, "internal detail 1", "UNAVAILABLE"), 503, "5"),
        Arguments.of("cluster unreachable", new KubernetesClientException("internal detail 2"), 503, "5"),
        Arguments.of("a bug", new IllegalStateException("internal detail 3"), 500, null));
  }

  @ParameterizedTest(name = "{0} → {2}")
  @MethodSource
  void failures(String name, RuntimeException failure, int status, String retryAfter) throws Exception {
    answer = r -> {
      throw failure;
    };

    HttpResponse<String> response = send(Call.post(VALID));

    assertThat(response.statusCode()).isEqualTo(status);
    assertThat(response.headers().firstValue("Retry-After").orElse(null)).isEqualTo(retryAfter);
    assertThat(response.body()).doesNotContain(failure.getMessage());
  }

  @Test
  void anEmptyTokenIsRefusedAtConstruction() {
    assertThatThrownBy(() -> new AllocationApi(new Allocator(new InMemoryFleetRecords(), new InMemorySpareSources(),
        TenantUrls.OFF, Clock.systemUTC(), Duration.ofSeconds(1), true, ServingProbe.NONE, new SimpleMeterRegistry()), " ", MAX_BODY, "default", LIMITS, registry))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
