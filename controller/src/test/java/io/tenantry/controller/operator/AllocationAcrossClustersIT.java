package io.tenantry.controller.operator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.NamedContext;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.fabric8.kubernetes.client.internal.KubeConfigUtils;
import io.tenantry.api.WellKnown;
import io.tenantry.api.v1alpha1.SparePool;
import io.tenantry.api.v1alpha1.Tenant;
import io.tenantry.api.v1alpha1.TenantState;
import io.tenantry.controller.config.OperatorConfig;
import io.tenantry.controller.lifecycle.TenantCleanup;
import io.tenantry.controller.operator.AllocationCalls.Answer;
import io.tenantry.spares.DatastoreEmulator;
import io.tenantry.spares.fleet.Cluster;
import io.tenantry.spares.fleet.DatastoreFleetRecords;
import io.tenantry.spares.fleet.FleetRecords;
import io.tenantry.testsupport.ClusterKind;
import io.tenantry.testsupport.TestCluster;
import io.tenantry.testsupport.TestClusters;
import io.tenantry.testsupport.WithCluster;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Two simulated clusters in one fleet: the operator of "east" serves allocations and reaches
 * "west" through a kubeconfig context; a signup lands on a cluster that has a Ready spare, and
 * the fleet records place the tenant there.
 */
@WithCluster(workloads = true)
class AllocationAcrossClustersIT {

  private static final String POOL = "signup";
  private static DatastoreEmulator emulator;
  private static TestCluster westCluster;
  private static OperatorHarness east;
  private static OperatorHarness west;
  private static KubernetesClient eastClient;
  private static KubernetesClient westClient;
  private static FleetRecords records;
  private static AllocationCalls api;

  @BeforeAll
  static void start(TestCluster cluster, KubernetesClient kubernetesClient) throws Exception {
    eastClient = kubernetesClient;
    emulator = DatastoreEmulator.start();
    records = new DatastoreFleetRecords(emulator.datastore(), "across-clusters-it");
    westCluster = TestClusters.start(ClusterKind.SIMULATED, "alloc-west", 1);
    westClient = westCluster.newClient();
    west = new OperatorHarness(westCluster, OperatorConfig.defaults());

    // The west cluster as the east operator reaches it: a context in a kubeconfig file of its own.
    Path kubeconfig = Files.createTempFile("west-", ".kubeconfig");
    Files.writeString(kubeconfig, westCluster.kubeconfigYaml());
    List<NamedContext> contexts = KubeConfigUtils.parseConfig(kubeconfig.toFile()).getContexts();
    records.registerCluster(new Cluster("west", contexts.get(0).getName(), Map.of(Cluster.REGION_LABEL, "us-west1"), Instant.now()));

    OperatorConfig config = OperatorConfig.defaults();
    config = config.with("fleet: {clusterName: east, kubeconfigs: ['%s']}".formatted(kubeconfig));
    east = new OperatorHarness(cluster, config, null, TenantCleanup.fleet(records, "east"));
    api = east.serveAllocations(records, "token");
  }

  @AfterAll
  static void stop() {
    try {
      east.close();
      west.close();
      westClient.close();
    } finally {
      emulator.close();
    }
  }

  @Test
  void aSignupLandsOnAClusterWithAReadySpareAndIsPlacedThere() {
    createPool(eastClient, 0);
    createPool(westClient, 2);
    awaitReadySpares(westClient, 2);

    Answer first = api.allocate("across-1", "Westco", "ops@westco.example", POOL);

    assertThat(first.status()).as(first.body().toString()).isEqualTo(200);
    assertThat(first.body().path("cluster").asText()).isEqualTo("west");
    Tenant bound = westClient.resources(Tenant.class).withName(first.tenant()).get();
    assertThat(bound.getSpec().getState()).isEqualTo(TenantState.Active);
    assertThat(bound.getMetadata().getAnnotations()).containsEntry(WellKnown.ALLOCATION_REQUEST, "across-1");
    assertThat(eastClient.resources(Tenant.class).withName(first.tenant()).get()).isNull();
    await().atMost(Duration.ofSeconds(30)).until(() -> records.placement(first.tenant()).isPresent());
    assertThat(records.placement(first.tenant())).contains("west");
    assertThat(records.listClusters()).extracting(Cluster::name).containsExactly("east", "west");

    // East now has more Ready spares than west: the next signup lands there.
    eastClient.resources(SparePool.class).withName(POOL).patch(PatchContext.of(PatchType.JSON_MERGE), "{\"spec\":{\"buffer\":4}}");
    awaitReadySpares(eastClient, 4);
    Answer second = api.allocate("across-2", "Eastco", "ops@eastco.example", POOL);
    assertThat(second.body().path("cluster").asText()).isEqualTo("east");
    await().atMost(Duration.ofSeconds(30)).until(() -> records.placement(second.tenant()).isPresent());
    assertThat(records.placement(second.tenant())).contains("east");
    // And the first request id still finds its west tenant.
    assertThat(api.allocate("across-1", "Westco", "ops@westco.example", POOL).allocation()).isEqualTo(first.allocation());
  }

  private static void createPool(KubernetesClient client, int buffer) {
    client.resources(SparePool.class).resource(OperatorHarness.sparePool(POOL, buffer, 4)).create();
  }

  private static void awaitReadySpares(KubernetesClient client, int count) {
    await().atMost(Duration.ofMinutes(3)).pollInterval(Duration.ofMillis(250))
        .until(() -> OperatorHarness.readySpares(client, POOL).size() >= count);
  }
}
