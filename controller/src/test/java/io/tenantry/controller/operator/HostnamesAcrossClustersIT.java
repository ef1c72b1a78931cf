package io.tenantry.controller.operator;

import static io.tenantry.controller.operator.OperatorHarness.tenant;
import static io.tenantry.controller.operator.OperatorHarness.uniqueName;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.networking.v1.Ingress;
import io.fabric8.kubernetes.api.model.networking.v1.IngressRule;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.tenantry.api.v1alpha1.Tenant;
import io.tenantry.controller.config.OperatorConfig;
import io.tenantry.spares.DatastoreEmulator;
import io.tenantry.spares.fleet.DatastoreFleetRecords;
import io.tenantry.spares.fleet.FleetRecords;
import io.tenantry.testsupport.ClusterKind;
import io.tenantry.testsupport.TestCluster;
import io.tenantry.testsupport.TestClusters;
import io.tenantry.testsupport.WithCluster;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Two simulated clusters whose operators share the fleet records (the Datastore emulator): two
 * tenants, one on each, asking for one custom hostname. Exactly one is routed it, on its cluster;
 * the other says who holds it, and that holds.
 */
@WithCluster(workloads = true)
class HostnamesAcrossClustersIT {

  private static final String ROUTING = "routing: {mode: ingress, baseDomain: fleet.test}";
  private static DatastoreEmulator emulator;
  private static TestCluster westCluster;
  private static OperatorHarness east;
  private static OperatorHarness west;
  private static KubernetesClient eastClient;
  private static KubernetesClient westClient;
  private static FleetRecords records;

  @BeforeAll
  static void start(TestCluster cluster, KubernetesClient kubernetesClient) throws Exception {
    eastClient = kubernetesClient;
    emulator = DatastoreEmulator.start();
    records = new DatastoreFleetRecords(emulator.datastore(), "hostnames-it");
    westCluster = TestClusters.start(ClusterKind.SIMULATED, "host-west", 1);
    westClient = westCluster.newClient();
    east = new OperatorHarness(cluster, OperatorConfig.defaults().with("{fleet: {clusterName: east}, " + ROUTING + "}"), records);
    west = new OperatorHarness(westCluster, OperatorConfig.defaults().with("{fleet: {clusterName: west}, " + ROUTING + "}"), records);
  }

  @AfterAll
  static void stop() {
    try {
      east.close();
      west.close();
      westClient.close();
      westCluster.close();
    } finally {
      emulator.close();
    }
  }

  @Test
  void oneHostnameIsRoutedToOneTenantAcrossTheFleetAndTheLoserSaysWhoHoldsIt() {
    String first = uniqueName("east");
    String second = uniqueName("west");
    String shared = first + ".shop.example";
    Tenant onEast = tenant(first, 1, false);
    onEast.getSpec().setHostnames(List.of(shared));
    eastClient.resources(Tenant.class).resource(onEast).create();
    await().atMost(Duration.ofSeconds(60)).until(() -> hostnames(eastClient, first).contains(shared));

    Tenant onWest = tenant(second, 1, false);
    onWest.getSpec().setHostnames(List.of(shared));
    westClient.resources(Tenant.class).resource(onWest).create();
    await().atMost(Duration.ofSeconds(60)).until(() -> RoutingScenarios.routed(westClient.resources(Tenant.class).withName(second).get())
        .startsWith("False HostnameConflict"));

    await().during(Duration.ofSeconds(60)).atMost(Duration.ofSeconds(75)).pollInterval(Duration.ofSeconds(2)).untilAsserted(() -> {
      assertThat(hostnames(eastClient, first)).contains(shared);
      assertThat(hostnames(westClient, second)).containsExactly(second + ".fleet.test");
      assertThat(RoutingScenarios.routed(westClient.resources(Tenant.class).withName(second).get()))
          .startsWith("False HostnameConflict " + shared + " is held by tenant " + first + " on cluster east");
      assertThat(RoutingScenarios.routed(eastClient.resources(Tenant.class).withName(first).get())).startsWith("True Routed");
    });
    assertThat(records.hostnameHolder(shared)).hasValueSatisfying(claim -> {
      assertThat(claim.tenant()).isEqualTo(first);
      assertThat(claim.cluster()).isEqualTo("east");
    });
  }

  private static List<String> hostnames(KubernetesClient client, String tenant) {
    Ingress ingress = client.network().v1().ingresses().inNamespace("tenant-" + tenant).withName("tenant").get();
    return ingress == null ? List.of() : ingress.getSpec().getRules().stream().map(IngressRule::getHost).toList();
  }
}
