package io.tenantry.controller.operator;

import static io.tenantry.controller.operator.OperatorHarness.uniqueName;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.tenantry.api.Spares;
import io.tenantry.api.WellKnown;
import io.tenantry.api.v1alpha1.SparePool;
import io.tenantry.api.v1alpha1.Tenant;
import io.tenantry.api.v1alpha1.TenantState;
import io.tenantry.controller.config.OperatorConfig;
import io.tenantry.controller.lifecycle.TenantCleanup;
import io.tenantry.controller.operator.AllocationCalls.Answer;
import io.tenantry.spares.DatastoreEmulator;
import io.tenantry.spares.fleet.Allocation;
import io.tenantry.spares.fleet.DatastoreFleetRecords;
import io.tenantry.spares.fleet.FleetRecords;
import io.tenantry.testsupport.TestCluster;
import io.tenantry.testsupport.WithCluster;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The operator process killed (SIGKILL) while signups pour in: after a restart, every request
 * that retries gets one tenant, no spare is bound twice or lost, and the fleet records agree with
 * the cluster. The operator runs as a separate process, started by {@code Main} as in production.
 */
@WithCluster(workloads = true)
class AllocationKillIT {

  private static final String TOKEN = "kill-it-token";
  private static final String NAMESPACE = "allocation-kill-it";
  private static DatastoreEmulator emulator;
  private static FleetRecords records;
  private static KubernetesClient client;
  private static Path workDir;
  private static OperatorHarness cleanup;
  private static TestCluster testCluster;

  @BeforeAll
  static void start(TestCluster cluster, KubernetesClient kubernetesClient) throws Exception {
    client = kubernetesClient;
    testCluster = cluster;
    emulator = DatastoreEmulator.start();
    records = new DatastoreFleetRecords(emulator.datastore(), NAMESPACE);
    workDir = Files.createTempDirectory("allocation-kill-");
    OperatorProcess.writeKubeconfig(workDir, cluster);
    Files.writeString(workDir.resolve("token"), TOKEN);
    // The operators open the store; making one is the installer's job (tenantry-secrets init).
    OperatorHarness.localStore(workDir.resolve("store"));
    OperatorHarness.installCrds(cluster);
  }

  @AfterAll
  static void stop() throws Exception {
    try {
      // An in-process operator purges what the test left, as every IT class does.
      cleanup = new OperatorHarness(testCluster, OperatorConfig.defaults(), null, TenantCleanup.fleet(records, "local"));
      cleanup.close();
    } finally {
      emulator.close();
    }
  }

  @Test
  void killedMidAllocationNoSpareIsLostOrBoundTwiceAndRecordsAgreeWithTheCluster() throws Exception {
    String pool = uniqueName("kill");
    int port = OperatorProcess.freePort();
    OperatorProcess operator = start(port, "first");
    try {
      createPool(pool, 24, 6);
      await().atMost(Duration.ofMinutes(4)).pollInterval(Duration.ofMillis(500)).until(() -> ready(pool).size() >= 24);
      AllocationCalls api = new AllocationCalls(port, TOKEN);

      // 16 clients signing up in a loop; the operator is killed after the 8th allocation.
      List<String> ids = new ArrayList<>();
      for (int i = 0; i < 40; i++) {
        ids.add("kill-" + pool + "-" + i);
      }
      Map<String, Answer> answered = signUpKillingAfter(8, operator, api, ids, pool);

      operator = start(port, "second");
      // Every caller retries until it has a tenant (the pool refills meanwhile).
      Map<String, Answer> finalAnswers = new HashMap<>();
      for (String id : ids) {
        Answer answer = await().atMost(Duration.ofMinutes(4)).pollInterval(Duration.ofMillis(500)).ignoreExceptions()
            .until(() -> api.allocate(id, "Org " + id, id + "@example.com", pool), a -> a.status() == 200);
        finalAnswers.put(id, answer);
        if (answered.containsKey(id)) {
          assertThat(answer.allocation()).as("a request answered before the kill").isEqualTo(answered.get(id).allocation());
        }
      }

      // One tenant per request id, each bound in the cluster to that request and recorded so.
      assertThat(finalAnswers.values().stream().map(Answer::tenant).distinct()).hasSize(ids.size());
      List<Tenant> tenants = client.resources(Tenant.class).withLabel(WellKnown.SPARE_POOL, pool).list().getItems();
      List<Tenant> bound = tenants.stream().filter(t -> t.getSpec().getState() == TenantState.Active).toList();
      assertThat(bound).hasSize(ids.size());
      for (Tenant tenant : bound) {
        String requestId = tenant.getMetadata().getAnnotations().get(WellKnown.ALLOCATION_REQUEST);
        assertThat(finalAnswers.get(requestId).tenant()).isEqualTo(tenant.getMetadata().getName());
      }
      // The records agree with the cluster, including what the killed process bound but never recorded.
      await().atMost(Duration.ofMinutes(1)).pollInterval(Duration.ofMillis(500)).untilAsserted(() -> {
        for (Tenant tenant : bound) {
          String requestId = tenant.getMetadata().getAnnotations().get(WellKnown.ALLOCATION_REQUEST);
          assertThat(records.findAllocation(requestId)).map(Allocation::tenant).contains(tenant.getMetadata().getName());
        }
      });
      // No spare lost: every spare left is unallocated in the cluster and in the records, so it can still be allocated.
      for (Tenant spare : tenants.stream().filter(t -> t.getSpec().getState() != TenantState.Active).toList()) {
        assertThat(Spares.isUnallocated(spare)).as(spare.getMetadata().getName()).isTrue();
        Optional<Allocation> record = records.findAllocationByTenant(spare.getMetadata().getName());
        assertThat(record).as("record of unallocated spare " + spare.getMetadata().getName()).isEmpty();
      }
    } finally {
      operator.close();
    }
  }

  /** Signs up every id from 16 clients and SIGKILLs {@code operator} after the {@code n}th allocation; returns the answers given. */
  private static Map<String, Answer> signUpKillingAfter(int n, OperatorProcess operator, AllocationCalls api, List<String> ids, String pool)
      throws InterruptedException {
    Map<String, Answer> answered = new ConcurrentHashMap<>();
    AtomicInteger allocations = new AtomicInteger();
    AtomicBoolean killed = new AtomicBoolean();
    ExecutorService clients = Executors.newFixedThreadPool(16);
    for (String id : ids) {
      clients.submit(() -> {
        try {
          Answer answer = api.allocate(id, "Org " + id, id + "@example.com", pool);
          if (answer.status() == 200) {
            answered.put(id, answer);
            if (allocations.incrementAndGet() == n && killed.compareAndSet(false, true)) {
              operator.kill(); // SIGKILL: no graceful anything.
            }
          }
        } catch (RuntimeException e) {
          // The connection died with the process: this request is retried below.
        }
      });
    }
    clients.shutdown();
    assertThat(clients.awaitTermination(2, TimeUnit.MINUTES)).isTrue();
    assertThat(killed).as("the operator was killed mid-allocation").isTrue();
    return answered;
  }

  private static OperatorProcess start(int port, String identity) throws IOException {
    OperatorProcess process = OperatorProcess.start(workDir, identity, """
        httpPort: %d
        probePort: 0
        secretStore:
          location: file:%s
        leaderElection:
          enabled: false
        fleet:
          datastoreProjectId: %s
          datastoreNamespace: %s
          clusterName: local
        allocation:
          enabled: true
          tokenFile: %s
        """.formatted(port, workDir.resolve("store"), DatastoreEmulator.PROJECT_ID, NAMESPACE, workDir.resolve("token")),
        Map.of("DATASTORE_EMULATOR_HOST", "localhost:" + emulator.port()));
    await().atMost(Duration.ofMinutes(1)).pollInterval(Duration.ofMillis(200)).ignoreExceptions().until(() ->
        new AllocationCalls(port, "wrong").post("{}", "Bearer wrong").status() == 401);
    return process;
  }

  private static void createPool(String name, int buffer, int maxProvisioning) {
    client.resources(SparePool.class).resource(OperatorHarness.sparePool(name, buffer, maxProvisioning)).create();
  }

  private static List<Tenant> ready(String pool) {
    return OperatorHarness.readySpares(client, pool);
  }
}
