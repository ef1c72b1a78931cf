package io.tenantry.controller.operator;

import static io.tenantry.controller.operator.OperatorHarness.awaitPhase;
import static io.tenantry.controller.operator.OperatorHarness.setState;
import static io.tenantry.controller.operator.OperatorHarness.tenant;
import static io.tenantry.controller.operator.OperatorHarness.uniqueName;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.google.cloud.Timestamp;
import com.google.cloud.datastore.Datastore;
import com.google.cloud.datastore.Entity;
import com.google.cloud.datastore.StringValue;
import com.google.cloud.datastore.TimestampValue;
import io.fabric8.kubernetes.api.model.networking.v1.Ingress;
import io.fabric8.kubernetes.api.model.networking.v1.IngressRule;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.tenantry.api.WellKnown;
import io.tenantry.api.v1alpha1.SparePool;
import io.tenantry.api.v1alpha1.Tenant;
import io.tenantry.api.v1alpha1.TenantPhase;
import io.tenantry.api.v1alpha1.TenantState;
import io.tenantry.controller.config.OperatorConfig;
import io.tenantry.spares.DatastoreEmulator;
import io.tenantry.spares.fleet.Allocation;
import io.tenantry.spares.fleet.Cluster;
import io.tenantry.spares.fleet.DatastoreFleetRecords;
import io.tenantry.spares.fleet.FleetRecords;
import io.tenantry.spares.fleet.HostnameClaim;
import io.tenantry.spares.fleet.TenantRef;
import io.tenantry.testsupport.ClusterKind;
import io.tenantry.testsupport.TestCluster;
import io.tenantry.testsupport.TestClusters;
import io.tenantry.testsupport.WithCluster;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Two simulated clusters whose operators share the fleet records (one Datastore emulator), and
 * tenant names that clash across them. Names are unique within a cluster only, so a tenant's fleet
 * records are its cluster's and its UID's: the same name on both clusters is two tenants, each
 * served by its own cluster alone, and purging one leaves the other's claims and placement. Spare
 * names are reserved across the fleet before their Tenants are created, and records written before
 * the records kept UIDs are taken over by the first sync of their tenant.
 */
@WithCluster(workloads = true)
class FleetNamesIT {

  private static final String EAST = "names-east";
  private static final String WEST = "names-west";
  private static final String ROUTING = "routing: {mode: ingress, baseDomain: names.test}";
  private static final String NAMESPACE = "fleet-names-it";
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
    records = new DatastoreFleetRecords(emulator.datastore(), NAMESPACE);
    records.registerCluster(new Cluster(EAST, EAST, Map.of(), Instant.now()));
    records.registerCluster(new Cluster(WEST, WEST, Map.of(), Instant.now()));
    westCluster = TestClusters.start(ClusterKind.SIMULATED, WEST, 1);
    westClient = westCluster.newClient();
    east = new OperatorHarness(cluster, OperatorConfig.defaults().with("{fleet: {clusterName: " + EAST + "}, " + ROUTING + "}"),
        records);
    west = new OperatorHarness(westCluster, OperatorConfig.defaults().with("{fleet: {clusterName: " + WEST + "}, " + ROUTING + "}"),
        records);
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
  void oneTenantNameOnTwoClustersIsTwoTenantsAndPurgingOneLeavesTheOthersRecords() {
    String name = uniqueName("acme");
    String shop = name + ".shop.example";
    String own = name + ".names.test";
    Tenant onEast = create(eastClient, name, shop);
    await().atMost(Duration.ofSeconds(60)).until(() -> hostnames(eastClient, name).containsAll(List.of(own, shop)));
    TenantRef eastAcme = new TenantRef(EAST, name, onEast.getMetadata().getUid());
    // As a signup would have left it: the tenant placed on east, with its allocation.
    Allocation signup = records.recordAllocation(new Allocation("req-" + name, "Acme Corp", "ops@acme.example", name,
        eastAcme.uid(), EAST, "tenant-" + name, Instant.now(), null));

    create(westClient, name, shop);
    await().atMost(Duration.ofSeconds(60)).until(() -> routed(westClient, name).startsWith("False HostnameConflict"));
    assertThat(routed(westClient, name)).contains(shop + " is held by tenant " + name + " on cluster " + EAST)
        .contains(own + " is held by tenant " + name + " on cluster " + EAST);
    assertThat(hostnames(westClient, name)).as("west serves none of east's hostnames").isEmpty();
    assertThat(routed(eastClient, name)).startsWith("True Routed");

    setState(westClient, name, TenantState.Archived);
    setState(westClient, name, TenantState.Purged);
    awaitPhase(westClient, name, TenantPhase.Purged, Duration.ofMinutes(3));

    for (String hostname : List.of(own, shop)) {
      HostnameClaim claim = records.hostnameHolder(hostname).orElseThrow();
      assertThat(claim.heldBy(eastAcme)).as(hostname + " still east's").isTrue();
      assertThat(claim.tenantUid()).isEqualTo(eastAcme.uid());
    }
    assertThat(records.placement(name)).contains(EAST);
    assertThat(records.findAllocation(signup.requestId())).contains(signup);
    await().during(Duration.ofSeconds(10)).atMost(Duration.ofSeconds(20)).untilAsserted(() -> {
      assertThat(hostnames(eastClient, name)).containsExactlyInAnyOrder(own, shop);
      assertThat(routed(eastClient, name)).startsWith("True Routed");
    });

    setState(eastClient, name, TenantState.Archived);
    setState(eastClient, name, TenantState.Purged);
    awaitPhase(eastClient, name, TenantPhase.Purged, Duration.ofMinutes(3));
    assertThat(records.hostnameHolder(shop)).isEmpty();
    assertThat(records.placement(name)).isEmpty();
    assertThat(records.findAllocation(signup.requestId())).isEmpty();
  }

  @Test
  void recordsWrittenBeforeUidsAreTakenOverByTheFirstSyncOfTheirTenantAndByNoOther() {
    String name = uniqueName("legacy");
    String shop = name + ".shop.example";
    putAsBefore(name, EAST, shop);

    // The tenant of that name on the other cluster neither serves nor adopts them.
    create(westClient, name, shop);
    await().atMost(Duration.ofSeconds(60)).until(() -> routed(westClient, name).startsWith("False HostnameConflict"));
    assertThat(records.hostnameHolder(shop).orElseThrow().tenantUid()).isNull();

    Tenant onEast = create(eastClient, name, shop);
    TenantRef eastTenant = new TenantRef(EAST, name, onEast.getMetadata().getUid());
    await().atMost(Duration.ofSeconds(60)).until(() -> hostnames(eastClient, name).contains(shop));
    assertThat(records.hostnameHolder(shop).orElseThrow().tenantUid()).isEqualTo(eastTenant.uid());
    assertThat(records.hostnamesOf(eastTenant)).extracting(HostnameClaim::hostname).contains(shop);
    Entity placement = emulator.datastore().get(emulator.datastore().newKeyFactory().setNamespace(NAMESPACE)
        .setKind("Placement").newKey(name));
    assertThat(placement.getString("tenantUid")).isEqualTo(eastTenant.uid());
    assertThat(routed(westClient, name)).contains(shop + " is held by tenant " + name + " on cluster " + EAST);
  }

  @Test
  void sparesOfOnePoolOnBothClustersHaveNamesAndHostnamesHeldForTheirOwnClusterAndAreNotRouted() {
    String pool = uniqueName("names");
    for (KubernetesClient client : List.of(eastClient, westClient)) {
      client.resources(SparePool.class).resource(OperatorHarness.sparePool(pool, 2, 2)).create();
    }
    await().atMost(Duration.ofSeconds(60)).until(() -> spares(eastClient, pool).size() == 2 && spares(westClient, pool).size() == 2);

    for (String spare : spares(eastClient, pool)) {
      assertThat(records.placement(spare)).as(spare).contains(EAST);
    }
    for (String spare : spares(westClient, pool)) {
      assertThat(records.placement(spare)).as(spare).contains(WEST);
    }
    // Each spare holds the hostname its name gives it, claimed while it waits (off the signup's path), unrouted.
    for (KubernetesClient client : List.of(eastClient, westClient)) {
      String cluster = client == eastClient ? EAST : WEST;
      for (Tenant spare : client.resources(Tenant.class).withLabel(WellKnown.SPARE_POOL, pool).list().getItems()) {
        String name = spare.getMetadata().getName();
        await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> assertThat(records.hostnameHolder(name + ".names.test"))
            .as(name).hasValueSatisfying(claim -> assertThat(claim.heldBy(new TenantRef(cluster, name, spare.getMetadata().getUid())))
                .isTrue()));
        assertThat(hostnames(client, name)).as("%s routed", name).isEmpty();
      }
    }
    for (KubernetesClient client : List.of(eastClient, westClient)) {
      client.resources(SparePool.class).withName(pool).delete();
    }
  }

  private static Tenant create(KubernetesClient client, String name, String hostname) {
    Tenant tenant = tenant(name, 1, false);
    tenant.getSpec().setHostnames(List.of(hostname));
    return client.resources(Tenant.class).resource(tenant).create();
  }

  private static String routed(KubernetesClient client, String name) {
    return RoutingScenarios.routed(client.resources(Tenant.class).withName(name).get());
  }

  private static List<String> hostnames(KubernetesClient client, String tenant) {
    Ingress ingress = client.network().v1().ingresses().inNamespace("tenant-" + tenant).withName("tenant").get();
    return ingress == null || ingress.getSpec().getRules() == null ? List.of()
        : ingress.getSpec().getRules().stream().map(IngressRule::getHost).toList();
  }

  private static List<String> spares(KubernetesClient client, String pool) {
    return client.resources(Tenant.class).withLabel(WellKnown.SPARE_POOL, pool).list().getItems().stream()
        .map(t -> t.getMetadata().getName()).sorted().toList();
  }

  /** A placement and a hostname claim as the code before UIDs wrote them: keyed by name, no {@code tenantUid}. */
  private static void putAsBefore(String tenant, String cluster, String hostname) {
    Timestamp now = Timestamp.now();
    Datastore datastore = emulator.datastore();
    datastore.put(
        Entity.newBuilder(datastore.newKeyFactory().setNamespace(NAMESPACE).setKind("Placement").newKey(tenant))
            .set("cluster", cluster).set("placedAt", now).build(),
        Entity.newBuilder(datastore.newKeyFactory().setNamespace(NAMESPACE).setKind("Hostname").newKey(hostname))
            .set("tenant", tenant)
            .set("cluster", StringValue.newBuilder(cluster).setExcludeFromIndexes(true).build())
            .set("claimedAt", TimestampValue.newBuilder(now).setExcludeFromIndexes(true).build())
            .build());
  }
}
