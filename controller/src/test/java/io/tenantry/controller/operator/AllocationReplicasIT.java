package io.tenantry.controller.operator;

import static io.tenantry.controller.operator.OperatorHarness.uniqueName;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.tenantry.api.WellKnown;
import io.tenantry.api.v1alpha1.SparePool;
import io.tenantry.api.v1alpha1.Tenant;
import io.tenantry.api.v1alpha1.TenantState;
import io.tenantry.controller.config.OperatorConfig;
import io.tenantry.controller.lifecycle.TenantCleanup;
import io.tenantry.controller.operator.AllocationCalls.Answer;
import io.tenantry.spares.DatastoreEmulator;
import io.tenantry.spares.fleet.DatastoreFleetRecords;
import io.tenantry.spares.fleet.FleetRecords;
import io.tenantry.testsupport.TestCluster;
import io.tenantry.testsupport.WithCluster;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Allocation with two operator processes and leader election, as the Helm chart runs them: the
 * same request ids sent to both at once, over and over, still get one tenant each. Only the
 * leader serves; the other answers 503 with Retry-After until it leads, here after the leader is
 * killed, and then gives every request id the tenant it already had.
 */
@WithCluster(workloads = true)
class AllocationReplicasIT {

  private static final String TOKEN = "replicas-it-token";
  private static final String NAMESPACE = "allocation-replicas-it";
  private static final String LEASE = "tenantry-allocation-replicas-it";
  private static DatastoreEmulator emulator;
  private static FleetRecords records;
  private static KubernetesClient client;
  private static Path workDir;
  private static TestCluster testCluster;

  @BeforeAll
  static void start(TestCluster cluster, KubernetesClient kubernetesClient) throws Exception {
    client = kubernetesClient;
    testCluster = cluster;
    emulator = DatastoreEmulator.start();
    records = new DatastoreFleetRecords(emulator.datastore(), NAMESPACE);
    workDir = Files.createTempDirectory("allocation-replicas-");
    OperatorProcess.writeKubeconfig(workDir, cluster);
    Files.writeString(workDir.resolve("token"), TOKEN);
    OperatorHarness.localStore(workDir.resolve("store"));
    OperatorHarness.installCrds(cluster);
  }

  @AfterAll
  static void stop() throws Exception {
    try {
      new OperatorHarness(testCluster, OperatorConfig.defaults(), null, TenantCleanup.fleet(records, "local")).close();
    } finally {
      emulator.close();
    }
  }

  @Test
  void replaysSentToBothReplicasGetOneTenantPerRequestIdBeforeAndAfterAFailover() throws Exception {
    String pool = uniqueName("replicas");
    int portA = OperatorProcess.freePort();
    int portB = OperatorProcess.freePort();
    OperatorProcess a = start("replica-a", portA);
    OperatorProcess b = null;
    try {
      await().atMost(Duration.ofMinutes(1)).until(() -> "replica-a".equals(holder()));
      b = start("replica-b", portB);
      client.resources(SparePool.class).resource(OperatorHarness.sparePool(pool, 16, 8)).create();
      await().atMost(Duration.ofMinutes(4)).pollInterval(Duration.ofMillis(500))
          .until(() -> OperatorHarness.readySpares(client, pool).size() >= 16);
      List<AllocationCalls> replicas = List.of(new AllocationCalls(portA, TOKEN), new AllocationCalls(portB, TOKEN));

      List<String> ids = new ArrayList<>();
      for (int i = 0; i < 16; i++) {
        ids.add("replicas-" + pool + "-" + i);
      }
      Map<String, List<String>> tenantsById = new ConcurrentHashMap<>();
      List<Answer> refused = new CopyOnWriteArrayList<>();
      int requests = sendToBoth(replicas, ids, pool, tenantsById, refused);

      assertThat(tenantsById.keySet()).containsExactlyInAnyOrderElementsOf(ids);
      tenantsById.forEach((id, tenants) -> assertThat(tenants).as("the tenants given to %s", id).hasSize(4).containsOnly(tenants.get(0)));
      assertThat(refused).as("the follower's answers").hasSize(ids.size() * 4)
          .allSatisfy(answer -> {
            assertThat(answer.status()).isEqualTo(503);
            assertThat(answer.retryAfter()).isEqualTo("1");
          });
      assertBound(pool, tenantsById);
      System.out.printf("[replicas] %d requests to two replicas: %d ids, one tenant each; the follower answered 503 %d times%n",
          requests, ids.size(), refused.size());

      // The leader dies: the follower takes over and gives every id the tenant it had.
      a.kill();
      long killed = System.nanoTime();
      Answer first = await().atMost(Duration.ofMinutes(1)).pollInterval(Duration.ofMillis(200))
          .until(() -> replicas.get(1).allocate(ids.get(0), "Org", "x@example.com", pool), answer -> answer.status() == 200);
      System.out.printf("[replicas] replica-b served %.1f s after replica-a was killed%n", (System.nanoTime() - killed) / 1e9);
      assertThat(first.tenant()).isEqualTo(tenantsById.get(ids.get(0)).get(0));
      for (String id : ids) {
        assertThat(replicas.get(1).allocate(id, "Org " + id, id + "@example.com", pool).tenant())
            .as("the replay of %s after the failover", id).isEqualTo(tenantsById.get(id).get(0));
      }
      assertBound(pool, tenantsById);
    } finally {
      a.close();
      if (b != null) {
        b.close();
      }
    }
  }

  /**
   * Sends each id 4 times to each replica at once, from 16 clients; the tenants answered go to
   * {@code tenantsById}, the other answers to {@code refused}. Returns the number of requests.
   */
  private static int sendToBoth(List<AllocationCalls> replicas, List<String> ids, String pool,
      Map<String, List<String>> tenantsById, List<Answer> refused) throws InterruptedException {
    AtomicInteger requests = new AtomicInteger();
    ExecutorService clients = Executors.newFixedThreadPool(16);
    for (String id : ids) {
      for (int round = 0; round < 4; round++) {
        for (AllocationCalls replica : replicas) {
          clients.submit(() -> {
            Answer answer = replica.allocate(id, "Org " + id, id + "@example.com", pool);
            requests.incrementAndGet();
            if (answer.status() == 200) {
              tenantsById.computeIfAbsent(id, k -> new CopyOnWriteArrayList<>()).add(answer.tenant());
            } else {
              refused.add(answer);
            }
          });
        }
      }
    }
    clients.shutdown();
    assertThat(clients.awaitTermination(2, TimeUnit.MINUTES)).isTrue();
    return requests.get();
  }

  /** Exactly the tenants answered are bound in the cluster, each to its request id. */
  private static void assertBound(String pool, Map<String, List<String>> tenantsById) {
    List<Tenant> bound = client.resources(Tenant.class).withLabel(WellKnown.SPARE_POOL, pool).list().getItems().stream()
        .filter(t -> t.getSpec().getState() == TenantState.Active).toList();
    assertThat(bound).hasSize(tenantsById.size());
    for (Tenant tenant : bound) {
      String requestId = tenant.getMetadata().getAnnotations().get(WellKnown.ALLOCATION_REQUEST);
      assertThat(tenantsById.get(requestId)).as("request %s", requestId).contains(tenant.getMetadata().getName());
    }
  }

  private static String holder() {
    Lease lease = client.leases().inNamespace("tenantry-system").withName(LEASE).get();
    return lease == null ? null : lease.getSpec().getHolderIdentity();
  }

  private static OperatorProcess start(String identity, int port) throws IOException {
    OperatorProcess process = OperatorProcess.start(workDir, identity, """
        httpPort: %d
        probePort: 0
        secretStore:
          location: file:%s
        leaderElection:
          leaseName: %s
          leaseDurationSeconds: 8
          renewDeadlineSeconds: 6
          retryPeriodSeconds: 1
        fleet:
          datastoreProjectId: %s
          datastoreNamespace: %s
          clusterName: local
        allocation:
          enabled: true
          tokenFile: %s
        """.formatted(port, workDir.resolve("store"), LEASE, DatastoreEmulator.PROJECT_ID, NAMESPACE, workDir.resolve("token")),
        Map.of("DATASTORE_EMULATOR_HOST", "localhost:" + emulator.port()));
    // Up: the leader refuses a wrong token, a follower refuses everything until it leads.
    await().atMost(Duration.ofMinutes(1)).pollInterval(Duration.ofMillis(200)).ignoreExceptions().until(() ->
        List.of(401, 503).contains(new AllocationCalls(port, "wrong").post("{}", "Bearer wrong").status()));
    return process;
  }
}
