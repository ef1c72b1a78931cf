package io.tenantry.controller.operator;

import static io.tenantry.controller.operator.OperatorHarness.tenant;
import static io.tenantry.controller.operator.OperatorHarness.uniqueName;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.ListOptionsBuilder;
import io.fabric8.kubernetes.api.model.Namespace;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.Watch;
import io.fabric8.kubernetes.client.Watcher;
import io.fabric8.kubernetes.client.WatcherException;
import io.tenantry.api.v1alpha1.Tenant;
import io.tenantry.api.v1alpha1.TenantPhase;
import io.tenantry.controller.cache.InformerCache;
import io.tenantry.controller.config.OperatorConfig;
import io.tenantry.controller.resources.Labels;
import io.tenantry.testsupport.ClusterKind;
import io.tenantry.testsupport.SimulatedCluster;
import io.tenantry.testsupport.TestCluster;
import io.tenantry.testsupport.TestClusters;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse.BodyHandlers;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The API server goes away under a running operator (on a simulated cluster of this class's own:
 * its kube-apiserver is killed and started again while etcd keeps the data, and the cluster's
 * controllers are restarted with it, as after an outage that outlasts their leader lease):
 * <ul>
 *   <li>down for 20 s while ten tenants are being provisioned: the operator keeps running, backs
 *       off (a bounded number of requests, no hot loop), deletes nothing, and brings every tenant
 *       to Ready once the API server is back, without a restart (printed: how long after its
 *       workloads reported ready each one was, the operator's part of the recovery);
 *   <li>its watches expired by an etcd compaction (410 Gone): every informer lists again, no owned
 *       object is deleted or recreated, and converged tenants cost no write;
 *   <li>down while an operator's informers start (as when a pod takes the lead): their lists fail
 *       for longer than the client's own request retries last, and they start once it is back,
 *       instead of failing the start (and the lead with it).
 * </ul>
 */
class ApiServerFaultsIT {

  private static final Duration OUTAGE = Duration.ofSeconds(20);
  private static final String CLUSTER = "apifaults-" + Long.toString(ProcessHandle.current().pid() % 10000, 36);
  private static final Set<String> WRITES = Set.of("POST", "PUT", "PATCH", "DELETE");

  private static TestCluster cluster;
  private static KubernetesClient client;
  private static OperatorHarness harness;
  private static final OperatorConfig CONFIG = OperatorConfig.defaults();

  @BeforeAll
  static void start() throws Exception {
    // A cluster of its own: stopping the shared one's API server would break the other classes.
    cluster = TestClusters.start(ClusterKind.SIMULATED, CLUSTER, 1);
    client = cluster.newClient();
    harness = new OperatorHarness(cluster, CONFIG);
  }

  @AfterAll
  static void stop() {
    // No purge (OperatorHarness.close): the cluster is this class's own and goes away with its tenants.
    if (harness != null) {
      harness.operator.close();
      harness.operatorClient.close();
    }
    if (client != null) {
      client.close();
    }
    if (cluster != null) {
      cluster.close();
    }
  }

  @Test
  void apiServerDownDuringSyncsIsSurvivedWithBackoffAndNoDeletion() throws Exception {
    List<String> names = createTenants("down", 10);
    // Stopped while syncs are in flight: some tenants have a namespace, most are still being provisioned.
    await().atMost(Duration.ofMinutes(1)).pollInterval(Duration.ofMillis(100)).until(() -> !ownedUids().isEmpty());
    Map<String, String> before = ownedUids();
    Operator operator = harness.operator;
    int firstRequest = harness.requests.all().size();

    SimulatedCluster.stopApiServer(CLUSTER);
    long down = System.nanoTime();
    long requestsAtStop = harness.requests.count();
    // Kubernetes would restart a pod whose liveness probe fails: it keeps passing throughout.
    await().during(OUTAGE).atMost(OUTAGE.plusSeconds(10)).pollInterval(Duration.ofSeconds(1)).until(ApiServerFaultsIT::healthy);
    long requestsWhileDown = harness.requests.count() - requestsAtStop;
    double downSeconds = (System.nanoTime() - down) / 1e9;
    SimulatedCluster.startApiServer(CLUSTER);
    long back = System.nanoTime();
    Instant backAt = Instant.now();

    await().atMost(Duration.ofMinutes(3)).pollInterval(Duration.ofSeconds(1)).until(() -> allReady(names));
    double recoverySeconds = (System.nanoTime() - back) / 1e9;
    long operatorLag = names.stream().mapToLong(n -> readyAfterItsWorkloads(n, backAt)).max().orElseThrow();
    long deletes = since(firstRequest).stream().filter(r -> r.startsWith("DELETE ")).count();
    Map<String, String> after = ownedUids();
    // Every caller of the API backs off between attempts: fabric8 retries a failed request 10 times,
    // 100 ms doubling up to 3.2 s (11 attempts in 19 s), an informer's watch reconnects after 1 s
    // doubling, and the queue retries a failed sync with per-tenant backoff. So one caller (an
    // informer, a worker, the template refresh), each with one call at a time, sends at most about
    // 16 requests in 20 s (0.8/s); 1.5/s each is a generous bound that one retry without backoff
    // (hundreds a second) would still break.
    int callers = informers() + CONFIG.workers() + 1 + 1; // + the spare pool worker and the template refresh
    long bound = Math.round(1.5 * callers * downSeconds);
    System.out.printf("[reliability] api server down %.1f s during the syncs of %d tenants: %d requests from the operator"
            + " (%.1f/s; bound %d: %d callers at 1.5/s), %d deletes; %d tenants Ready %.1f s after it returned,"
            + " each at most %d s after its workloads' last status write or the API server's return, whichever was later"
            + " (the rest is the cluster's controllers' own recovery),"
            + " %d owned objects kept (same UIDs)%n",
        downSeconds, names.size(), requestsWhileDown, requestsWhileDown / downSeconds, bound, callers, deletes, names.size(),
        recoverySeconds, operatorLag, before.size());

    assertThat(harness.operator).as("the same operator, not restarted").isSameAs(operator);
    assertThat(requestsWhileDown).as("requests while the API server was down").isLessThanOrEqualTo(bound);
    assertThat(deletes).as("DELETE requests from the operator").isZero();
    assertThat(after).as("every object owned before the outage, with the same UID").containsAllEntriesOf(before);
    for (String name : names) {
      assertThat(client.resources(Tenant.class).withName(name).get().getStatus().getConditions())
          .as("conditions of %s", name).isNotEmpty().allSatisfy(c -> assertThat(c.getStatus()).as(c.getType()).isEqualTo("True"));
    }
  }

  @Test
  void watchesExpiredByCompactionRelistWithoutWritesOrRecreation() throws Exception {
    List<String> names = createTenants("compact", 5);
    await().atMost(Duration.ofMinutes(3)).pollInterval(Duration.ofSeconds(1)).until(() -> allReady(names));
    settle();
    List<Tenant> converged = client.resources(Tenant.class).list().getItems();
    assertThat(converged).allSatisfy(t -> assertThat(t.getStatus().getPhase()).isEqualTo(TenantPhase.Ready));
    Map<String, String> before = ownedUids();
    String oldVersion = client.resources(Tenant.class).list().getMetadata().getResourceVersion();
    int firstRequest = harness.requests.all().size();
    Set<String> watched = endpoints(harness.requests.all(), true);

    // Stopped, so that the watch cache is rebuilt from etcd after the compaction: re-watches from any
    // resourceVersion the informers hold then get 410 Gone.
    SimulatedCluster.stopApiServer(CLUSTER);
    long revision = SimulatedCluster.compactEtcd(CLUSTER);
    SimulatedCluster.startApiServer(CLUSTER);

    // The compaction happened: an exact list at a resourceVersion from before is 410 Gone (without one
    // it is served from etcd), and so is a watch from it, as the informers' re-watches are.
    assertThatThrownBy(() -> client.resources(Tenant.class).list(
        new ListOptionsBuilder().withResourceVersion(oldVersion).withResourceVersionMatch("Exact").build()))
        .isInstanceOfSatisfying(KubernetesClientException.class, e -> assertThat(e.getCode()).isEqualTo(410));
    assertThat(watchFrom(oldVersion).isHttpGone()).as("a watch from resourceVersion %s is 410 Gone", oldVersion).isTrue();
    // fabric8's informers list again only after 410 Gone (other watch failures resume the watch).
    await().atMost(Duration.ofMinutes(1)).pollInterval(Duration.ofMillis(200)).untilAsserted(() ->
        assertThat(endpoints(since(firstRequest), false)).as("endpoints listed again").containsAll(watched));
    settle();
    resyncAll(converged.size());

    List<String> writes = since(firstRequest).stream().filter(r -> WRITES.contains(r.substring(0, r.indexOf(' ')))).toList();
    Map<String, String> after = ownedUids();
    long recreated = before.entrySet().stream().filter(e -> !e.getValue().equals(after.get(e.getKey()))).count();
    System.out.printf("[reliability] etcd compacted to revision %d (a watch from before: 410 Gone): %d/%d informers relisted,"
            + " %d of %d owned objects recreated or deleted, %d writes for %d converged tenants (settled, then all re-queued)%n",
        revision, endpoints(since(firstRequest), false).stream().filter(watched::contains).count(), watched.size(),
        recreated, before.size(), writes.size(), converged.size());

    assertThat(watched).as("the informers' endpoints").hasSize(informers());
    assertThat(after).as("owned objects, by UID").isEqualTo(before);
    assertThat(writes).as("writes by the operator after the relist").isEmpty();
    assertThat(client.resources(Tenant.class).list().getItems())
        .allSatisfy(t -> assertThat(t.getStatus().getPhase()).isEqualTo(TenantPhase.Ready));
  }

  @Test
  void informersStartingWhileTheApiServerIsDownStartOnceItIsBack() throws Exception {
    List<String> names = createTenants("start", 1);
    await().atMost(Duration.ofMinutes(3)).pollInterval(Duration.ofSeconds(1)).until(() -> allReady(names));
    // Longer than fabric8's own retries of a failed request (about 19 s): the informers' lists fail.
    Duration down = OUTAGE.plusSeconds(10);
    SimulatedCluster.stopApiServer(CLUSTER);
    try (KubernetesClient starting = cluster.newClient();
        InformerCache cache = new InformerCache(starting, CONFIG.namespacePrefix(), CONFIG.templateNamespace(),
            CONFIG.edgeNamespace(), Duration.ZERO, k -> { }, k -> { }, k -> { }, List.of())) {
      CompletableFuture<Void> started = CompletableFuture.runAsync(() -> {
        try {
          cache.start(Duration.ofMinutes(2));
        } catch (Exception e) {
          throw new CompletionException(e);
        }
      });
      await().during(down).atMost(down.plusSeconds(5)).pollInterval(Duration.ofMillis(200)).until(() -> !started.isDone());
      SimulatedCluster.startApiServer(CLUSTER);
      long back = System.nanoTime();

      started.get(1, TimeUnit.MINUTES);
      System.out.printf("[reliability] informers started with the API server down for %d s: started %.1f s after it returned%n",
          down.toSeconds(), (System.nanoTime() - back) / 1e9);
      assertThat(cache.hasSynced()).as("every informer synced").isTrue();
      assertThat(cache.tenantNames()).as("tenants listed").containsAll(names);
    }
    await().atMost(Duration.ofMinutes(1)).pollInterval(Duration.ofSeconds(1)).until(() -> allReady(names));
  }

  private static List<String> createTenants(String prefix, int count) {
    List<String> names = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      String name = uniqueName(prefix);
      names.add(name);
      // Every other one with a database: a StatefulSet and its credentials, besides the app.
      client.resources(Tenant.class).resource(tenant(name, 1, i % 2 == 0)).create();
    }
    return names;
  }

  private static boolean allReady(List<String> names) {
    return names.stream().allMatch(n -> {
      Tenant t = client.resources(Tenant.class).withName(n).get();
      return t != null && t.getStatus() != null && t.getStatus().getPhase() == TenantPhase.Ready;
    });
  }

  /**
   * Seconds (the API's timestamps have no finer grain) from the last status write to a tenant's
   * Deployments and StatefulSets (their readiness, written by the cluster's controllers), or from
   * the API server's return at {@code back} if that was later (workloads ready before the outage),
   * to the Tenant's own Ready condition: the operator's part of a recovery, apart from how long the
   * cluster's controllers take to make, start and report the pods.
   */
  private static long readyAfterItsWorkloads(String name, Instant back) {
    Tenant tenant = client.resources(Tenant.class).withName(name).get();
    Instant tenantReady = Instant.parse(tenant.getStatus().getConditions().stream()
        .filter(c -> "Ready".equals(c.getType())).findFirst().orElseThrow().getLastTransitionTime());
    String namespace = tenant.getStatus().getNamespace();
    Instant workloadsReported = Stream.concat(
            client.apps().deployments().inNamespace(namespace).list().getItems().stream(),
            client.apps().statefulSets().inNamespace(namespace).list().getItems().stream())
        .flatMap(w -> w.getMetadata().getManagedFields().stream())
        .filter(f -> "status".equals(f.getSubresource()))
        .map(f -> Instant.parse(f.getTime()))
        .max(Instant::compareTo).orElseThrow(() -> new AssertionError("no workload status written for " + name));
    Instant from = workloadsReported.isAfter(back) ? workloadsReported : back.truncatedTo(ChronoUnit.SECONDS);
    return Duration.between(from, tenantReady).toSeconds();
  }

  /** Every object the operator owns (its management label), as "Kind namespace/name" to UID. */
  private static Map<String, String> ownedUids() {
    Map<String, String> uids = new TreeMap<>();
    for (Class<? extends HasMetadata> kind : InformerCache.OWNED_KINDS) {
      List<? extends HasMetadata> objects = kind == Namespace.class
          ? client.resources(kind).withLabel(Labels.MANAGED_BY, Labels.MANAGER).list().getItems()
          : client.resources(kind).inAnyNamespace().withLabel(Labels.MANAGED_BY, Labels.MANAGER).list().getItems();
      for (HasMetadata o : objects) {
        String namespace = o.getMetadata().getNamespace();
        uids.put(kind.getSimpleName() + " " + (namespace == null ? "" : namespace + "/") + o.getMetadata().getName(),
            o.getMetadata().getUid());
      }
    }
    return uids;
  }

  /** The operator's informers: Tenants, SparePools and every owned kind (tenants are not routed here). */
  private static int informers() {
    return 2 + InformerCache.OWNED_KINDS.size();
  }

  /** The paths the requests watched ({@code watches}) or listed (GETs that are not watches). */
  private static Set<String> endpoints(List<String> requests, boolean watches) {
    return requests.stream()
        .filter(r -> r.startsWith("GET ") && r.contains("watch=true") == watches)
        .map(r -> URI.create(r.substring("GET ".length())).getPath())
        .collect(Collectors.toSet());
  }

  private static List<String> since(int firstRequest) {
    List<String> all = harness.requests.all();
    return all.subList(firstRequest, all.size());
  }

  /** How a watch (with the admin's client) from {@code resourceVersion} ends. */
  private static WatcherException watchFrom(String resourceVersion) throws Exception {
    CompletableFuture<WatcherException> closed = new CompletableFuture<>();
    try (Watch ignored = client.resources(Tenant.class).watch(new ListOptionsBuilder().withResourceVersion(resourceVersion).build(),
        new Watcher<>() {
          @Override
          public void eventReceived(Action action, Tenant resource) {
          }

          @Override
          public void onClose(WatcherException cause) {
            closed.complete(cause);
          }
        })) {
      return closed.get(30, TimeUnit.SECONDS);
    }
  }

  /** Lets the last writes' own watch events be processed, until the operator is idle. */
  private static void settle() {
    harness.awaitIdle();
    await().pollDelay(Duration.ofSeconds(3)).atMost(Duration.ofSeconds(4)).until(() -> true);
    harness.awaitIdle();
  }

  /** Re-queues every tenant, as a resync would, and waits until each has been synced again. */
  private static void resyncAll(int tenants) {
    double before = successfulSyncs();
    harness.parts.cache().tenantNames().forEach(harness.parts.queue()::add);
    await().atMost(Duration.ofMinutes(1)).until(() -> successfulSyncs() >= before + tenants);
    harness.awaitIdle();
  }

  private static double successfulSyncs() {
    return harness.parts.registry().get("tenantry.sync").tag("queue", "tenants").tag("result", "success").timer().count();
  }

  private static boolean healthy() throws InterruptedException {
    try {
      return HttpClient.newHttpClient().send(HttpRequest.newBuilder(
          URI.create("http://localhost:" + harness.operator.probePort() + "/healthz")).build(), BodyHandlers.discarding())
          .statusCode() == 200;
    } catch (IOException e) {
      return false;
    }
  }
}
