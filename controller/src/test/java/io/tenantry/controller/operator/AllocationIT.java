package io.tenantry.controller.operator;

import static io.tenantry.controller.operator.OperatorHarness.uniqueName;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.tenantry.api.WellKnown;
import io.tenantry.api.v1alpha1.AppRoute;
import io.tenantry.api.v1alpha1.SparePool;
import io.tenantry.api.v1alpha1.Tenant;
import io.tenantry.api.v1alpha1.TenantState;
import io.tenantry.controller.bench.BenchSupport;
import io.tenantry.controller.config.OperatorConfig;
import io.tenantry.controller.operator.AllocationCalls.Answer;
import io.tenantry.spares.DatastoreEmulator;
import io.tenantry.spares.fleet.Allocation;
import io.tenantry.spares.fleet.DatastoreFleetRecords;
import io.tenantry.spares.fleet.FleetRecords;
import io.tenantry.spares.fleet.HostnameClaim;
import io.tenantry.testsupport.TestCluster;
import io.tenantry.testsupport.WithCluster;
import java.net.http.HttpRequest;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The allocation API on a simulated cluster with the fleet records on the Datastore emulator:
 * concurrent signups never share a tenant, request ids are idempotent, an empty pool answers 503
 * and grows, bad requests are refused by name, a claim left by a killed process is finished, and
 * of signups racing for one subdomain one gets it and its URL. The operator routes in ingress mode
 * and claims hostnames in the same fleet records, as it does in production.
 */
@WithCluster(workloads = true)
class AllocationIT {

  private static final String TOKEN = "s3cret-allocation-token";
  private static final String BASE_DOMAIN = "tenants.allocation.test";
  private static DatastoreEmulator emulator;
  private static FleetRecords records;
  private static OperatorHarness harness;
  private static AllocationCalls api;
  private static KubernetesClient client;

  @BeforeAll
  static void start(TestCluster cluster, KubernetesClient kubernetesClient) throws Exception {
    client = kubernetesClient;
    emulator = DatastoreEmulator.start();
    records = new DatastoreFleetRecords(emulator.datastore(), "allocation-it");
    // Frozen tenants (on the way to their purge at the end) are routed to a paused page there.
    client.namespaces().resource(new NamespaceBuilder().withNewMetadata().withName("tenantry-edge").endMetadata().build())
        .serverSideApply();
    OperatorConfig config = OperatorConfig.defaults()
        .with("{fleet: {clusterName: east}, routing: {mode: ingress, baseDomain: " + BASE_DOMAIN + "}}");
    harness = new OperatorHarness(cluster, config, records);
    api = harness.serveAllocations(records, TOKEN);
  }

  @AfterAll
  static void stop() {
    try {
      harness.close();
    } finally {
      emulator.close();
    }
  }

  @Test
  void sixtyFourConcurrentSignupsShareTwentySparesWithoutDuplicatesAndRetriesGetTheSameAnswer() throws Exception {
    String pool = uniqueName("burst");
    createPool(pool, 20, 5);
    awaitReadySpares(pool, 20);
    // A spare that turned Ready may still be written once more (its status): a bind at the cached
    // resourceVersion would lose to that write and answer "taken by concurrent requests".
    harness.awaitIdle();

    List<String> ids = new ArrayList<>();
    for (int i = 0; i < 64; i++) {
      ids.add("signup-" + pool + "-" + i);
    }
    List<Answer> first = concurrently(ids, pool);

    List<Answer> allocated = first.stream().filter(a -> a.status() == 200).toList();
    List<Answer> refused = first.stream().filter(a -> a.status() == 503).toList();
    assertThat(allocated).hasSize(20);
    assertThat(refused).hasSize(44).allSatisfy(a -> {
      assertThat(a.retryAfter()).isEqualTo("10");
      assertThat(a.body().path("error").asText()).contains("no Ready spare in pool " + pool);
    });
    assertThat(allocated.stream().map(Answer::tenant).distinct()).hasSize(20);
    // Every allocated tenant is bound in the cluster to its request, and recorded in Datastore.
    for (Answer answer : allocated) {
      Tenant tenant = client.resources(Tenant.class).withName(answer.tenant()).get();
      String requestId = answer.body().path("requestId").asText();
      assertThat(tenant.getSpec().getState()).isEqualTo(TenantState.Active);
      assertThat(tenant.getMetadata().getAnnotations()).containsEntry(WellKnown.ALLOCATION_REQUEST, requestId);
      assertThat(tenant.getSpec().getOrganization()).isEqualTo("Org " + requestId);
      assertThat(answer.body().path("namespace").asText()).isEqualTo("tenant-" + answer.tenant());
      assertThat(answer.body().path("cluster").asText()).isEqualTo("east");
      assertThat(answer.body().path("url").asText()).isEqualTo("https://" + answer.tenant() + "." + BASE_DOMAIN + "/");
      // Recorded in Datastore behind the answer.
      await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
        assertThat(records.findAllocation(requestId)).map(Allocation::tenant).contains(answer.tenant());
        assertThat(records.placement(answer.tenant())).contains("east");
      });
    }

    // Replays: the allocated ids get byte-for-byte the same answer; the refused ones never get one
    // of the 20 (the pool is refilling, so a replay may be served by a new spare).
    List<Answer> replay = concurrently(ids, pool);
    for (int i = 0; i < ids.size(); i++) {
      if (first.get(i).status() == 200) {
        assertThat(replay.get(i).status()).isEqualTo(200);
        assertThat(replay.get(i).allocation()).isEqualTo(first.get(i).allocation());
      } else {
        assertThat(replay.get(i).status()).isIn(200, 503);
        assertThat(allocated.stream().map(Answer::tenant)).doesNotContain(replay.get(i).tenant());
      }
    }
    assertThat(client.resources(Tenant.class).withLabel(WellKnown.SPARE_POOL, pool).list().getItems().stream()
        .filter(t -> t.getSpec().getState() == TenantState.Active).count())
        .as("tenants bound").isEqualTo(replay.stream().filter(a -> a.status() == 200).count());
  }

  @Test
  void anEmptyPoolAnswers503WithRetryAfterAndGrowsBeyondItsBuffer() {
    String pool = uniqueName("small");
    createPool(pool, 1, 2);
    awaitReadySpares(pool, 1);

    assertThat(api.allocate("first-" + pool, "Org A", "a@example.com", pool).status()).isEqualTo(200);
    Answer refused = api.allocate("second-" + pool, "Org B", "b@example.com", pool);

    assertThat(refused.status()).isEqualTo(503);
    assertThat(refused.retryAfter()).isEqualTo("10");
    SparePool stamped = client.resources(SparePool.class).withName(pool).get();
    assertThat(stamped.getMetadata().getAnnotations()).containsKey(WellKnown.SHORTAGE_AT);
    // The surge: buffer 1 + maxProvisioning 2 unallocated spares, while the shortage is recent.
    awaitReadySpares(pool, 3);
    Answer retried = api.allocate("second-" + pool, "Org B", "b@example.com", pool);
    assertThat(retried.status()).isEqualTo(200);
  }

  @Test
  void badRequestsAreRefusedNamingTheProblemAndAllocateNothing() throws Exception {
    String pool = uniqueName("strict");
    createPool(pool, 1, 1);
    awaitReadySpares(pool, 1);
    String good = "{\"requestId\":\"r-1\",\"organization\":\"Acme\",\"email\":\"ops@acme.example\",\"pool\":\"" + pool + "\"}";

    assertRefused(api.post(good, null), 401, "Authorization", "missing bearer token");
    assertRefused(api.post(good, "Bearer wrong"), 401, "Authorization", "invalid bearer token");
    assertRefused(api.post(good, "Basic " + TOKEN), 401, "Authorization", "missing bearer token");
    String bearer = "Bearer " + TOKEN;
    assertRefused(api.post("{\"requestId\": ", bearer), 400, "body", "malformed JSON");
    assertRefused(api.post("[1,2]", bearer), 400, "body", "must be a JSON object");
    assertRefused(api.post("{\"organization\":\"Acme\",\"email\":\"ops@acme.example\"}", bearer), 400, "requestId", "is required");
    assertRefused(api.post("{\"requestId\":\"r-1\",\"email\":\"ops@acme.example\"}", bearer), 400, "organization", "is required");
    assertRefused(api.post("{\"requestId\":\"r-1\",\"organization\":\"Acme\",\"email\":\"not-an-email\"}", bearer), 400, "email", "");
    assertRefused(api.post("{\"requestId\":7,\"organization\":\"Acme\",\"email\":\"ops@acme.example\"}", bearer), 400, "requestId",
        "must be a string, not number");
    assertRefused(api.post(good.replace("}", ",\"plan\":\"gold\"}"), bearer), 400, "plan", "unknown field");
    assertRefused(api.post(good.replace(pool, "no-such-pool"), bearer), 400, "pool", "no SparePool named no-such-pool");
    assertRefused(api.post(good.replace("}", ",\"subdomain\":\"Not_A_Label\"}"), bearer), 400, "subdomain", "DNS label");
    assertRefused(api.post("{\"requestId\":\"" + "x".repeat(5000) + "\"}", bearer), 413, "body", "larger than the limit of 4096 bytes");
    // Without a Content-Length (chunked), the body is read no further than the limit.
    assertRefused(api.send(HttpRequest.newBuilder(api.uri()).header("Authorization", bearer)
        .POST(HttpRequest.BodyPublishers.ofInputStream(() -> new java.io.ByteArrayInputStream(new byte[10_000]))).build()),
        413, "body", "larger than the limit");
    assertRefused(api.send(HttpRequest.newBuilder(api.uri()).header("Authorization", bearer).GET().build()), 405, "method", "use POST");
    assertRefused(api.send(HttpRequest.newBuilder(api.uri()).header("Authorization", bearer).header("Content-Type", "text/plain")
        .POST(HttpRequest.BodyPublishers.ofString(good)).build()), 415, "Content-Type", "must be application/json");

    assertThat(records.findAllocation("r-1")).isEmpty();
    assertThat(client.resources(Tenant.class).withLabel(WellKnown.SPARE_POOL, pool).list().getItems())
        .allSatisfy(t -> assertThat(t.getSpec().getState()).isEqualTo(TenantState.New));
  }

  @Test
  void anAllocationBoundButNotRecordedByAKilledProcessIsRecordedAndItsRetryGetsThatTenant() {
    String pool = uniqueName("unrecorded");
    createPool(pool, 2, 2);
    awaitReadySpares(pool, 2);
    String name = readySpares(pool).get(0).getMetadata().getName();
    // What a process killed after the bind and before the record leaves behind.
    String allocatedAt = Instant.now().truncatedTo(ChronoUnit.MICROS).toString();
    client.resources(Tenant.class).withName(name).patch(PatchContext.of(PatchType.JSON_MERGE), """
        {"metadata": {"annotations": {"%s": "killed-%s", "%s": "%s"}},
         "spec": {"state": "Active", "organization": "Initech", "email": "it@initech.example"}}
        """.formatted(WellKnown.ALLOCATION_REQUEST, pool, WellKnown.ALLOCATED_AT, allocatedAt));
    await().atMost(Duration.ofSeconds(10)).until(() -> harness.allocationParts.allocator().recordUnrecorded() == 1);

    await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(client.resources(Tenant.class).withName(name).get()
        .getMetadata().getAnnotations()).containsEntry(WellKnown.ALLOCATION_RECORDED, "true"));
    Allocation recorded = records.findAllocation("killed-" + pool).orElseThrow();
    assertThat(recorded.tenant()).isEqualTo(name);
    assertThat(recorded.organization()).isEqualTo("Initech");
    assertThat(recorded.cluster()).isEqualTo("east");
    // Recorded once: a second pass finds nothing left to record.
    await().atMost(Duration.ofSeconds(10)).until(() -> harness.allocationParts.allocator().recordUnrecorded() == 0);
    // The caller's retry gets that tenant.
    Answer retry = api.allocate("killed-" + pool, "Initech", "it@initech.example", pool);
    assertThat(retry.status()).isEqualTo(200);
    assertThat(retry.tenant()).isEqualTo(name);
    assertThat(retry.body().path("allocatedAt").asText()).isEqualTo(allocatedAt);
  }

  @Test
  void ofThirtyTwoSignupsRacingForOneSubdomainOneGetsItsUrlAndTheOthersAre409WithNothingBound() throws Exception {
    String pool = uniqueName("named");
    SparePool routed = OperatorHarness.sparePool(pool, 3, 2);
    routed.getSpec().getTemplate().getApps().get(0).getRoutes().add(new AppRoute("/"));
    client.resources(SparePool.class).resource(routed).create();
    awaitReadySpares(pool, 3);
    Map<String, List<String>> podsBefore = new HashMap<>();
    readySpares(pool).forEach(t -> podsBefore.put(t.getMetadata().getName(), podUids(t.getMetadata().getName())));
    String subdomain = uniqueName("shop");
    String url = "https://" + subdomain + "." + BASE_DOMAIN + "/";
    List<String> ids = new ArrayList<>();
    for (int i = 0; i < 32; i++) {
      ids.add("named-" + pool + "-" + i);
    }
    double routedBefore = boundRoutes("written") + boundRoutes("inPlace");
    double appliesBefore = BenchSupport.writes(client).getOrDefault("APPLY ingresses", 0.0);

    List<Answer> answers = concurrently(ids, pool, subdomain);

    List<Answer> allocated = answers.stream().filter(a -> a.status() == 200).toList();
    assertThat(allocated).hasSize(1);
    Answer winner = allocated.get(0);
    assertThat(winner.body().path("url").asText()).isEqualTo(url);
    assertThat(answers.stream().filter(a -> a.status() != 200)).hasSize(31).allSatisfy(a -> {
      assertThat(a.status()).as(a.body().toString()).isEqualTo(409);
      assertThat(a.body().path("field").asText()).isEqualTo("subdomain");
      assertThat(a.body().path("error").asText()).contains("taken");
    });
    List<Tenant> bound = client.resources(Tenant.class).withLabel(WellKnown.SPARE_POOL, pool).list().getItems().stream()
        .filter(t -> t.getSpec().getState() == TenantState.Active).toList();
    assertThat(bound).as("tenants bound").singleElement().satisfies(t -> {
      assertThat(t.getMetadata().getName()).isEqualTo(winner.tenant());
      assertThat(t.getSpec().getSubdomain()).isEqualTo(subdomain);
    });
    assertThat(records.hostnameHolder(subdomain + "." + BASE_DOMAIN)).map(HostnameClaim::tenant).contains(winner.tenant());

    // The replay, even naming another subdomain, is the first answer; the other ids still find the name taken.
    int first = answers.indexOf(winner);
    Answer replay = api.allocate(ids.get(first), "Org " + ids.get(first), ids.get(first) + "@example.com", pool, "elsewhere");
    assertThat(replay.status()).isEqualTo(200);
    assertThat(replay.allocation()).isEqualTo(winner.allocation());
    assertThat(api.allocate(ids.get((first + 1) % 32), "Org", "org@example.com", pool, subdomain).status()).isEqualTo(409);

    // Its route is written from the bind itself (or found in place, had its sync been first), for the name it won.
    await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
      assertThat(boundRoutes("written") + boundRoutes("inPlace") - routedBefore).isEqualTo(1);
      assertThat(client.network().v1().ingresses().inNamespace("tenant-" + winner.tenant()).withName("tenant").get()
          .getSpec().getRules()).extracting(rule -> rule.getHost()).containsExactly(subdomain + "." + BASE_DOMAIN);
    });
    assertThat(boundRoutes("failed")).isZero();
    // Applied once: the winner's first sync, running meanwhile, left the route to the bind's thread.
    // Besides it, each replacement spare's own route (written, gated, once the spare is Ready).
    awaitReadySpares(pool, 3);
    List<String> replacements = readySpares(pool).stream().map(t -> t.getMetadata().getName())
        .filter(name -> !podsBefore.containsKey(name)).toList();
    assertThat(replacements).isNotEmpty();
    await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> assertThat(replacements).allSatisfy(name ->
        assertThat(client.network().v1().ingresses().inNamespace("tenant-" + name).withName("tenant").get()).isNotNull()));
    assertThat(BenchSupport.writes(client).getOrDefault("APPLY ingresses", 0.0) - appliesBefore)
        .isEqualTo(1.0 + replacements.size());
    // The operator routes the winner at its URL, having restarted none of its pods.
    await().atMost(Duration.ofMinutes(1)).untilAsserted(() -> assertThat(client.resources(Tenant.class)
        .withName(winner.tenant()).get().getStatus().getUrls()).containsExactly(url));
    assertThat(podUids(winner.tenant())).isNotEmpty().isEqualTo(podsBefore.get(winner.tenant()));
  }

  private static void assertRefused(Answer answer, int status, String field, String message) {
    assertThat(answer.status()).as(answer.body().toString()).isEqualTo(status);
    assertThat(answer.body().path("field").asText()).isEqualTo(field);
    assertThat(answer.body().path("error").asText()).contains(message);
  }

  private static List<Answer> concurrently(List<String> ids, String pool) throws Exception {
    return concurrently(ids, pool, null);
  }

  /** Sends the signups of {@code ids} at once, asking for {@code subdomain} when not null; answers in the order of ids. */
  private static List<Answer> concurrently(List<String> ids, String pool, String subdomain) throws Exception {
    ExecutorService threads = Executors.newFixedThreadPool(ids.size());
    try {
      CountDownLatch go = new CountDownLatch(1);
      List<Future<Answer>> futures = new ArrayList<>();
      for (String id : ids) {
        futures.add(threads.submit(() -> {
          go.await();
          return api.allocate(id, "Org " + id, id + "@example.com", pool, subdomain);
        }));
      }
      go.countDown();
      List<Answer> answers = new ArrayList<>();
      for (Future<Answer> future : futures) {
        answers.add(future.get());
      }
      return answers;
    } finally {
      threads.shutdownNow();
    }
  }

  /** tenantry_bound_routes_total{outcome}: routes of bound tenants written from the bind (BoundRoutes). */
  private static double boundRoutes(String outcome) {
    io.micrometer.core.instrument.Counter counter = harness.parts.registry().find("tenantry.bound.routes")
        .tag("outcome", outcome).counter();
    return counter == null ? 0 : counter.count();
  }

  private static void createPool(String name, int buffer, int maxProvisioning) {
    client.resources(SparePool.class).resource(OperatorHarness.sparePool(name, buffer, maxProvisioning)).create();
  }

  private static List<Tenant> readySpares(String pool) {
    return OperatorHarness.readySpares(client, pool);
  }

  /** The UIDs of the pods in the tenant's namespace, sorted. */
  private static List<String> podUids(String tenant) {
    return client.pods().inNamespace("tenant-" + tenant).list().getItems().stream()
        .map(p -> p.getMetadata().getUid()).sorted().toList();
  }

  private static void awaitReadySpares(String pool, int count) {
    await().atMost(Duration.ofMinutes(3)).pollInterval(Duration.ofMillis(250)).until(() -> readySpares(pool).size() >= count);
  }
}
