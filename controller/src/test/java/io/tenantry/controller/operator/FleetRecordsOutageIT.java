package io.tenantry.controller.operator;

import static io.tenantry.controller.operator.OperatorHarness.awaitPhase;
import static io.tenantry.controller.operator.OperatorHarness.setState;
import static io.tenantry.controller.operator.OperatorHarness.uniqueName;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.tenantry.api.WellKnown;
import io.tenantry.api.v1alpha1.SparePool;
import io.tenantry.api.v1alpha1.Tenant;
import io.tenantry.api.v1alpha1.TenantPhase;
import io.tenantry.api.v1alpha1.TenantState;
import io.tenantry.controller.config.OperatorConfig;
import io.tenantry.controller.operator.AllocationCalls.Answer;
import io.tenantry.spares.DatastoreEmulator;
import io.tenantry.spares.fleet.Allocation;
import io.tenantry.spares.fleet.DatastoreFleetRecords;
import io.tenantry.spares.fleet.FleetRecords;
import io.tenantry.spares.fleet.HostnameClaim;
import io.tenantry.testsupport.TestCluster;
import io.tenantry.testsupport.WithCluster;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The operator and its allocation API while Cloud Datastore (the fleet records; the emulator,
 * stopped and restarted on its port with its entities kept) is unavailable:
 * <ul>
 *   <li>A signup naming a subdomain, whose hostname must be claimed in the records before a spare is
 *       bound, is answered 503 with Retry-After naming the fleet records, and nothing is bound.</li>
 *   <li>A signup naming none is bound at once: by design the bind (in the cluster) comes first and
 *       the record is written behind the answer, so it is written when Datastore returns.</li>
 *   <li>A purge, which must delete the tenant's records, stays Purging, saying why, and finishes
 *       once Datastore returns.</li>
 * </ul>
 * Nothing is deleted meanwhile, and afterwards the same request ids get one tenant each and the
 * records agree with the cluster.
 */
@WithCluster(workloads = true)
class FleetRecordsOutageIT {

  private static final String TOKEN = "fleet-outage-token";
  private static final String BASE_DOMAIN = "tenants.outage.test";
  private static final String CLUSTER = "east";
  /** Shorter than the default 30 s so the class stays short; printed with the figures. */
  private static final int REFRESH_SECONDS = 5;
  private static DatastoreEmulator emulator;
  private static FleetRecords records;
  private static OperatorHarness harness;
  private static AllocationCalls api;
  private static KubernetesClient client;

  @BeforeAll
  static void start(TestCluster cluster, KubernetesClient kubernetesClient) throws Exception {
    client = kubernetesClient;
    Path data = Files.createTempDirectory(Files.createDirectories(Path.of("target").toAbsolutePath()), "datastore-outage-");
    emulator = DatastoreEmulator.start(data);
    records = new DatastoreFleetRecords(emulator.datastore(), "fleet-outage-it");
    // Frozen tenants (on the way to their purge) are routed to a paused page there.
    client.namespaces().resource(new NamespaceBuilder().withNewMetadata().withName("tenantry-edge").endMetadata().build())
        .serverSideApply();
    OperatorConfig config = OperatorConfig.defaults().with("{fleet: {clusterName: %s}, routing: {mode: ingress, baseDomain: %s},"
        .formatted(CLUSTER, BASE_DOMAIN) + " allocation: {clusterRefreshSeconds: " + REFRESH_SECONDS + "}}");
    harness = new OperatorHarness(cluster, config, records);
    api = harness.serveAllocations(records, TOKEN);
  }

  @AfterAll
  static void stop() throws Exception {
    try {
      if (emulator != null && !emulator.isRunning()) {
        emulator.restart(); // A test that failed mid-outage: the harness's purge of what is left needs it.
      }
      if (harness != null) {
        harness.close();
      }
    } finally {
      if (emulator != null) {
        emulator.close();
      }
    }
  }

  @Test
  void signupsWhileDatastoreIsDownAreRefusedOrRecordedLaterAndTheSameIdsSucceedAfter() throws Exception {
    String pool = uniqueName("outage");
    createPool(pool, 3, 2);
    awaitReadySpares(pool, 3);
    List<String> before = tenantsOf(pool);
    String named = "named-" + pool;
    String plain = "plain-" + pool;
    String subdomain = uniqueName("shop");

    emulator.stop();
    long down = System.nanoTime();
    // A subdomain's hostname is claimed in the fleet records before any bind: without them, nothing is bound.
    Answer refused = api.allocate(named, "Org N", "n@example.com", pool, subdomain);
    assertThat(refused.status()).as(refused.body().toString()).isEqualTo(503);
    assertThat(refused.retryAfter()).isEqualTo("5");
    assertThat(refused.body().path("error").asText()).contains("fleet records are unavailable");
    assertThat(active(pool)).as("nothing bound").isEmpty();
    // Without a subdomain the bind needs only the cluster; the record follows the answer, so it waits.
    Answer bound = api.allocate(plain, "Org P", "p@example.com", pool);
    assertThat(bound.status()).as(bound.body().toString()).isEqualTo(200);
    assertThat(active(pool)).containsExactly(bound.tenant());
    // Its hostname was claimed while it was a spare: it is Ready as the customer's at once, the outage
    // notwithstanding (the claim used to wait for Datastore); only its record waits.
    long boundAt = System.nanoTime();
    await().atMost(Duration.ofMinutes(1)).pollInterval(Duration.ofMillis(100)).untilAsserted(() -> {
      Tenant t = client.resources(Tenant.class).withName(bound.tenant()).get();
      assertThat(t.getStatus().getObservedGeneration()).as("synced as the customer's").isEqualTo(t.getMetadata().getGeneration());
      assertThat(t.getStatus().getPhase()).isEqualTo(TenantPhase.Ready);
      assertThat(ready(bound.tenant()).getStatus()).isEqualTo("True");
    });
    double servingAfter = (System.nanoTime() - boundAt) / 1e9;
    assertThat(annotations(bound.tenant())).containsEntry(WellKnown.ALLOCATION_REQUEST, plain)
        .doesNotContainKey(WellKnown.ALLOCATION_RECORDED);
    assertThat(tenantsOf(pool)).as("nothing deleted").containsAll(before);

    emulator.restart();
    long back = System.nanoTime();
    // The caller retries the refused signup, as its Retry-After says, until it is served.
    Answer served = await().atMost(Duration.ofMinutes(1)).pollInterval(Duration.ofMillis(500))
        .until(() -> api.allocate(named, "Org N", "n@example.com", pool, subdomain), a -> a.status() == 200);
    long namedAfter = System.nanoTime() - back;
    await().atMost(Duration.ofMinutes(1)).pollInterval(Duration.ofMillis(250)).until(() ->
        "true".equals(annotations(bound.tenant()).get(WellKnown.ALLOCATION_RECORDED)));
    long recordedAfter = System.nanoTime() - back;
    awaitPhase(client, served.tenant(), TenantPhase.Ready, Duration.ofMinutes(2));

    // The same request ids: the first answers again, one tenant each.
    Answer replay = api.allocate(plain, "Org P", "p@example.com", pool);
    assertThat(replay.status()).isEqualTo(200);
    assertThat(replay.allocation()).isEqualTo(bound.allocation());
    assertThat(api.allocate(named, "Org N", "n@example.com", pool, subdomain).allocation()).isEqualTo(served.allocation());
    assertThat(served.tenant()).isNotEqualTo(bound.tenant());
    assertThat(active(pool)).containsExactlyInAnyOrder(bound.tenant(), served.tenant());
    // The records agree with the cluster: each bound tenant recorded under its request id, placed here.
    for (String tenant : active(pool)) {
      String requestId = annotations(tenant).get(WellKnown.ALLOCATION_REQUEST);
      assertThat(records.findAllocation(requestId)).map(Allocation::tenant).contains(tenant);
      assertThat(records.placement(tenant)).contains(CLUSTER);
    }
    assertThat(records.hostnameHolder(subdomain + "." + BASE_DOMAIN)).map(HostnameClaim::tenant).contains(served.tenant());
    assertThat(tenantsOf(pool)).as("nothing deleted").containsAll(before);
    System.out.printf("[reliability] Datastore (fleet records) down %.1f s during signups: one naming a subdomain was answered"
        + " %d Retry-After %s \"%s\" with nothing bound; one naming none was bound at once (bind first, record after) and"
        + " Ready as the customer's %.1f s later (its hostname claimed while it was a spare). After Datastore returned: the subdomain"
        + " signup was served on a retry %.1f s later, the bound tenant was recorded %.1f s later (allocation.clusterRefreshSeconds"
        + " %d here, 30 by default)%n",
        (back - down) / 1e9, refused.status(), refused.retryAfter(), refused.body().path("error").asText(), servingAfter,
        namedAfter / 1e9, recordedAfter / 1e9, REFRESH_SECONDS);
  }

  @Test
  void aPurgeWhileDatastoreIsDownStaysPurgingAndFinishesWhenItReturns() throws Exception {
    String pool = uniqueName("purge");
    createPool(pool, 2, 2);
    awaitReadySpares(pool, 2);
    String subdomain = uniqueName("gone");
    Answer gone = api.allocate("gone-" + pool, "Org G", "g@example.com", pool, subdomain);
    Answer kept = api.allocate("kept-" + pool, "Org K", "k@example.com", pool);
    assertThat(List.of(gone.status(), kept.status())).containsOnly(200);
    for (Answer answer : List.of(gone, kept)) {
      // Ready as the customer's tenant: a spare's Ready status stays until the first sync after the
      // bind, which a burst of signups (these two) holds for a second.
      await().atMost(Duration.ofMinutes(2)).pollInterval(Duration.ofMillis(200)).until(() -> {
        Tenant t = client.resources(Tenant.class).withName(answer.tenant()).get();
        return t.getStatus().getPhase() == TenantPhase.Ready && t.getStatus().getObservedState() == TenantState.Active;
      });
      await().atMost(Duration.ofMinutes(1)).until(() -> records.findAllocation(answer.body().path("requestId").asText()).isPresent());
    }
    String name = gone.tenant();

    emulator.stop();
    long down = System.nanoTime();
    setState(client, name, TenantState.Frozen);
    setState(client, name, TenantState.Purged);
    // The namespace goes (that is the purge), but the tenant's records cannot: it stays Purging, saying why.
    await().atMost(Duration.ofMinutes(2)).pollInterval(Duration.ofMillis(200)).untilAsserted(() -> {
      Tenant t = client.resources(Tenant.class).withName(name).get();
      assertThat(t.getStatus().getPhase()).isEqualTo(TenantPhase.Purging);
      assertThat(t.getStatus().getConditions().get(0).getMessage()).containsIgnoringCase("datastore");
      assertThat(client.namespaces().withName("tenant-" + name).get()).isNull();
    });
    Tenant purging = client.resources(Tenant.class).withName(name).get();
    Condition ready = purging.getStatus().getConditions().get(0);
    assertThat(purging.getMetadata().getFinalizers()).as("nothing forgotten").contains("tenantry.io/cleanup");
    // Retried with backoff: the operator's queue has taken the tenant up again after failures.
    await().atMost(Duration.ofMinutes(1)).until(() -> harness.parts.queue().numRequeues(name) >= 2);
    assertThat(client.resources(Tenant.class).withName(kept.tenant()).get().getStatus().getPhase()).isEqualTo(TenantPhase.Ready);
    assertThat(client.namespaces().withName("tenant-" + kept.tenant()).get()).as("another tenant's namespace").isNotNull();
    int retries = harness.parts.queue().numRequeues(name);

    emulator.restart();
    long back = System.nanoTime();
    awaitPhase(client, name, TenantPhase.Purged, Duration.ofMinutes(2));
    long purgedAfter = System.nanoTime() - back;
    assertThat(records.findAllocation("gone-" + pool)).as("its allocation record").isEmpty();
    assertThat(records.placement(name)).as("its placement").isEmpty();
    assertThat(records.hostnameHolder(subdomain + "." + BASE_DOMAIN)).as("its hostname claim").isEmpty();
    assertThat(records.findAllocation("kept-" + pool)).as("another tenant's record").map(Allocation::tenant)
        .contains(kept.tenant());
    assertThat(records.placement(kept.tenant())).contains(CLUSTER);
    System.out.printf("[reliability] Datastore (fleet records) down %.1f s during a purge: the tenant stayed Purging"
        + " (finalizer kept, condition %s: \"%s\", %d retries); purged, its allocation, placement and hostname claim"
        + " deleted, %.1f s after Datastore returned (retry backoff capped at %d s)%n", (back - down) / 1e9, ready.getReason(),
        ready.getMessage(), retries, purgedAfter / 1e9, OperatorConfig.defaults().rateLimits().maxDelaySeconds());
  }

  private static void createPool(String name, int buffer, int maxProvisioning) {
    client.resources(SparePool.class).resource(OperatorHarness.sparePool(name, buffer, maxProvisioning)).create();
  }

  private static void awaitReadySpares(String pool, int count) {
    await().atMost(Duration.ofMinutes(3)).pollInterval(Duration.ofMillis(250))
        .until(() -> OperatorHarness.readySpares(client, pool).size() >= count);
  }

  /** Every tenant of the pool, spare or bound, by name. */
  private static List<String> tenantsOf(String pool) {
    return client.resources(Tenant.class).withLabel(WellKnown.SPARE_POOL, pool).list().getItems().stream()
        .map(t -> t.getMetadata().getName()).sorted().toList();
  }

  /** The pool's tenants bound to a signup (Active), by name. */
  private static List<String> active(String pool) {
    return client.resources(Tenant.class).withLabel(WellKnown.SPARE_POOL, pool).list().getItems().stream()
        .filter(t -> t.getSpec().getState() == TenantState.Active).map(t -> t.getMetadata().getName()).sorted().toList();
  }

  private static Map<String, String> annotations(String tenant) {
    Map<String, String> annotations = client.resources(Tenant.class).withName(tenant).get().getMetadata().getAnnotations();
    return annotations == null ? Map.of() : annotations;
  }

  private static Condition ready(String tenant) {
    Tenant t = client.resources(Tenant.class).withName(tenant).get();
    return t.getStatus() == null ? new Condition() : t.getStatus().getConditions().stream()
        .filter(c -> "Ready".equals(c.getType())).findFirst().orElse(new Condition());
  }
}
