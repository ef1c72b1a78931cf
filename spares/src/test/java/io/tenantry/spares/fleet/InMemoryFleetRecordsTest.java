package io.tenantry.spares.fleet;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.cloud.datastore.DatastoreException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The fake's hostname claims keep the guarantees of {@link FleetRecords}, as
 * {@code DatastoreFleetRecordsIT} shows for Datastore, so unit tests built on the fake hold there too.
 */
class InMemoryFleetRecordsTest {

  private static final Instant NOW = Instant.parse("2026-03-01T10:00:00Z");
  private final InMemoryFleetRecords records = new InMemoryFleetRecords();

  /** The Tenant of that name on that cluster, with the UID the tests give it. */
  private static TenantRef ref(String tenant, String cluster) {
    return new TenantRef(cluster, tenant, "uid-" + tenant + "-" + cluster);
  }

  @Test
  void aHostnameHasOneHolderAndAReclaimByItChangesNothing() {
    HostnameClaim shop = records.claimHostname("shop.example.com", ref("acme", "eu-1"));
    HostnameClaim api = records.claimHostname("api.example.com", ref("acme", "eu-1"));

    assertThat(records.claimHostname("shop.example.com", ref("acme", "eu-1"))).isEqualTo(shop);
    assertThat(records.claimHostname("shop.example.com", ref("globex", "us-1"))).isEqualTo(shop);
    assertThat(records.claimHostname("shop.example.com", ref("acme", "us-1")).heldBy(ref("acme", "us-1")))
        .as("acme of another cluster is another tenant").isFalse();
    assertThat(shop.heldBy(ref("acme", "eu-1"))).isTrue();
    assertThat(records.hostnameHolder("shop.example.com")).contains(shop);
    assertThat(records.hostnamesOf(ref("acme", "eu-1"))).containsExactly(api, shop);
    assertThat(records.hostnamesOf(ref("globex", "us-1"))).isEmpty();
  }

  @Test
  void concurrentClaimsOfOneHostnameLeaveOneHolderThatEveryCallerGetsBack() throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(32);
    CountDownLatch go = new CountDownLatch(1);
    List<Future<HostnameClaim>> results = new ArrayList<>();
    try {
      for (int i = 0; i < 32; i++) {
        String tenant = "t" + i;
        results.add(pool.submit(() -> {
          go.await();
          return records.claimHostname("shop.example.com", ref(tenant, "eu-1"));
        }));
      }
      go.countDown();
      Set<HostnameClaim> got = new HashSet<>();
      for (Future<HostnameClaim> result : results) {
        got.add(result.get(10, TimeUnit.SECONDS));
      }
      assertThat(got).hasSize(1);
      assertThat(records.hostnameHolder("shop.example.com")).contains(got.iterator().next());
    } finally {
      pool.shutdownNow();
    }
  }

  @Test
  void releaseHostnamesKeepsTheKeptOnesAndNeverTouchesOtherTenants() {
    HostnameClaim a = records.claimHostname("a.example.com", ref("acme", "eu-1"));
    records.claimHostname("b.example.com", ref("acme", "eu-1"));
    HostnameClaim globex = records.claimHostname("www.globex.example", ref("globex", "us-1"));

    assertThat(records.releaseHostnames(ref("acme", "eu-1"), List.of("a.example.com", "www.globex.example"))).isEqualTo(1);
    assertThat(records.releaseHostnames(ref("acme", "eu-1"), List.of("a.example.com"))).isZero();
    assertThat(records.hostnamesOf(ref("acme", "eu-1"))).containsExactly(a);
    assertThat(records.hostnamesOf(ref("globex", "us-1"))).containsExactly(globex);
    assertThat(records.releaseHostnames(ref("globex", "us-1"), List.of())).isEqualTo(1);
    assertThat(records.hostnameHolder("www.globex.example")).isEmpty();
  }

  @Test
  void purgeTenantDeletesItsClaimsAndFreesTheHostnames() {
    records.registerCluster(new Cluster("eu-1", "ctx-eu-1", Map.of(), NOW));
    records.placeTenant("acme", "eu-1");
    records.claimHostname("shop.example.com", ref("acme", "eu-1"));
    records.claimHostname("only.example.com", ref("initech", "eu-1"));

    assertThat(records.purgeTenant(ref("acme", "eu-1"))).isTrue();
    assertThat(records.hostnamesOf(ref("acme", "eu-1"))).isEmpty();
    assertThat(records.placement("acme")).isEmpty();
    assertThat(records.claimHostname("shop.example.com", ref("globex", "eu-1")).tenant()).isEqualTo("globex");
    assertThat(records.purgeTenant(ref("acme", "eu-1"))).isFalse();
    // A tenant with claims and no placement is purged too.
    assertThat(records.purgeTenant(ref("initech", "eu-1"))).isTrue();
    assertThat(records.hostnameHolder("only.example.com")).isEmpty();
  }

  @Test
  void refusedClaimsWriteNothing() {
    assertThatThrownBy(() -> records.claimHostname("Shop.example.com", ref("acme", "eu-1")))
        .isInstanceOfSatisfying(FleetInputException.class, e -> assertThat(e.field()).isEqualTo("hostname"));
    assertThatThrownBy(() -> records.claimHostname("shop.example.com", null))
        .isInstanceOfSatisfying(FleetInputException.class, e -> assertThat(e.field()).isEqualTo("tenant"));
    assertThat(records.hostnameHolder("shop.example.com")).isEmpty();

    records.setAvailable(false);
    assertThatThrownBy(() -> records.claimHostname("shop.example.com", ref("acme", "eu-1")))
        .isInstanceOf(DatastoreException.class);
    records.setAvailable(true);
    assertThat(records.hostnamesOf(ref("acme", "eu-1"))).isEmpty();
  }

  @Test
  void oneNameOnTwoClustersIsTwoTenantsThatNeverReleaseOrPurgeEachOthersRecords() {
    records.registerCluster(new Cluster("east", "ctx-east", Map.of(), NOW));
    records.registerCluster(new Cluster("west", "ctx-west", Map.of(), NOW));
    TenantRef east = ref("acme", "east");
    TenantRef west = ref("acme", "west");
    records.recordAllocation(new Allocation("signup-1", "Acme", "ops@acme.example", "acme", east.uid(), "east",
        "tenant-acme", NOW, null));
    HostnameClaim shop = records.claimHostname("shop.example.com", east);

    HostnameClaim got = records.claimHostname("shop.example.com", west);
    assertThat(got).isEqualTo(shop);
    assertThat(got.heldBy(west)).isFalse();
    assertThat(records.hostnamesOf(west)).isEmpty();
    assertThat(records.releaseHostnames(west, List.of())).isZero();
    assertThat(records.purgeTenant(west)).isFalse();
    assertThat(records.adopt(west)).isZero();

    assertThat(records.hostnamesOf(east)).containsExactly(shop);
    assertThat(records.placement("acme")).contains("east");
    assertThat(records.findAllocationByTenant("acme")).isPresent();
    // The name created again on east is another Tenant object too.
    TenantRef again = new TenantRef("east", "acme", "uid-acme-again");
    assertThat(records.purgeTenant(again)).isFalse();
    assertThat(records.hostnamesOf(east)).containsExactly(shop);
    assertThat(records.purgeTenant(east)).isTrue();
    assertThat(records.hostnameHolder("shop.example.com")).isEmpty();
    assertThat(records.placement("acme")).isEmpty();
  }

  @Test
  void aSpareNameIsReservedForOneClusterOfTheFleet() {
    assertThat(records.reserveName("default-x7k2p", "east")).isTrue();
    assertThat(records.reserveName("default-x7k2p", "west")).isFalse();
    assertThat(records.reserveName("default-x7k2p", "east")).isFalse();
    assertThat(records.placement("default-x7k2p")).contains("east");
    assertThat(records.placementUid("default-x7k2p")).isEmpty();
    assertThatThrownBy(() -> records.reserveName("Default", "east"))
        .isInstanceOfSatisfying(FleetInputException.class, e -> assertThat(e.field()).isEqualTo("tenant"));

    // Its Tenant adopts the reservation, and its purge frees the name.
    TenantRef spare = ref("default-x7k2p", "east");
    assertThat(records.adopt(spare)).isEqualTo(1);
    assertThat(records.placementUid("default-x7k2p")).contains(spare.uid());
    assertThat(records.purgeTenant(spare)).isTrue();
    assertThat(records.reserveName("default-x7k2p", "west")).isTrue();
  }

  @Test
  void recordsWrittenBeforeUidsAreAdoptedByTheTenantOfTheirNameOnTheirCluster() {
    records.registerCluster(new Cluster("east", "ctx-east", Map.of(), NOW));
    Allocation old = new Allocation("signup-1", "Acme", "ops@acme.example", "acme", null, "east", "tenant-acme", NOW, null);
    records.putUnadopted("acme", "east", old, "shop.example.com", "api.example.com");
    TenantRef west = ref("acme", "west");
    TenantRef east = ref("acme", "east");

    assertThat(records.adopt(west)).as("another cluster's acme adopts nothing").isZero();
    assertThat(records.hostnameHolder("shop.example.com").orElseThrow().heldBy(west)).isFalse();
    assertThat(records.hostnameHolder("shop.example.com").orElseThrow().heldBy(east)).isTrue();

    assertThat(records.adopt(east)).as("placement, allocation, two claims").isEqualTo(4);
    assertThat(records.adopt(east)).isZero();
    assertThat(records.hostnamesOf(east)).extracting(HostnameClaim::tenantUid).containsOnly(east.uid());
    assertThat(records.placementUid("acme")).contains(east.uid());
    assertThat(records.findAllocationByTenant("acme")).hasValueSatisfying(a -> assertThat(a.tenantUid()).isEqualTo(east.uid()));
    // Adopted, the records are that Tenant's alone: acme created again on east holds none of them.
    TenantRef again = new TenantRef("east", "acme", "uid-acme-again");
    assertThat(records.hostnamesOf(again)).isEmpty();
    assertThat(records.purgeTenant(again)).isFalse();
    assertThat(records.purgeTenant(east)).isTrue();
    assertThat(records.findAllocation("signup-1")).isEmpty();
  }

  @Test
  void anAllocationMustNameItsTenantsUid() {
    records.registerCluster(new Cluster("east", "ctx-east", Map.of(), NOW));
    Allocation withoutUid = new Allocation("signup-1", "Acme", "ops@acme.example", "acme", null, "east", "tenant-acme", NOW, null);
    assertThatThrownBy(() -> records.recordAllocation(withoutUid))
        .isInstanceOfSatisfying(FleetInputException.class, e -> assertThat(e.field()).isEqualTo("tenantUid"));
    records.reserveName("acme", "east");
    records.adopt(ref("acme", "east"));
    Allocation other = new Allocation("signup-1", "Acme", "ops@acme.example", "acme", "uid-other", "east", "tenant-acme", NOW, null);
    assertThatThrownBy(() -> records.recordAllocation(other))
        .isInstanceOfSatisfying(FleetConflictException.class, e -> assertThat(e.field()).isEqualTo("tenantUid"));
    assertThat(records.findAllocation("signup-1")).isEmpty();
  }
}
