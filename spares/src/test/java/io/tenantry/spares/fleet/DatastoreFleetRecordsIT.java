package io.tenantry.spares.fleet;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.cloud.datastore.Datastore;
import com.google.cloud.datastore.Entity;
import com.google.cloud.datastore.Key;
import com.google.cloud.datastore.Query;
import com.google.cloud.datastore.StringValue;
import com.google.cloud.datastore.TimestampValue;
import io.tenantry.spares.DatastoreEmulator;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The Datastore fleet records against the Cloud Datastore emulator; each test in its own namespace. */
class DatastoreFleetRecordsIT {

  private static final Instant T0 = Instant.parse("2026-03-01T10:00:00.123456Z");
  private static final AtomicInteger NAMESPACES = new AtomicInteger();

  private static DatastoreEmulator emulator;
  private static Datastore datastore;

  private String namespace;
  private FleetRecords records;

  @BeforeAll
  static void startEmulator() throws Exception {
    emulator = DatastoreEmulator.start();
    System.out.println("Datastore emulator answered after " + emulator.startupTime().toMillis() + " ms");
    datastore = emulator.datastore();
  }

  @AfterAll
  static void stopEmulator() {
    if (emulator != null) {
      emulator.close();
    }
  }

  @BeforeEach
  void freshNamespace() {
    namespace = "fleet-it-" + NAMESPACES.incrementAndGet();
    records = new DatastoreFleetRecords(datastore, namespace);
  }

  private static Cluster cluster(String name) {
    return new Cluster(name, "ctx-" + name, Map.of(Cluster.REGION_LABEL, "europe-west1"), T0);
  }

  private static Allocation allocation(String requestId, String tenant, String cluster) {
    return new Allocation(requestId, "Org of " + requestId, requestId + "@example.com", tenant, ref(tenant, cluster).uid(), cluster,
        "tenant-" + tenant, T0.plusSeconds(1), null);
  }

  /** The Tenant of that name on that cluster, with the UID the tests give it. */
  private static TenantRef ref(String tenant, String cluster) {
    return new TenantRef(cluster, tenant, "uid-" + tenant + "-" + cluster);
  }

  private List<Entity> all(String kind) {
    List<Entity> entities = new ArrayList<>();
    datastore.run(Query.newEntityQueryBuilder().setNamespace(namespace).setKind(kind).build())
        .forEachRemaining(entities::add);
    return entities;
  }

  @Test
  void clustersAreRegisteredListedUpdatedAndRemoved() {
    assertThat(records.listClusters()).isEmpty();
    Cluster eu = records.registerCluster(cluster("eu-1"));
    records.registerCluster(cluster("asia-1"));

    assertThat(records.getCluster("eu-1")).contains(eu);
    assertThat(records.getCluster("us-1")).isEmpty();
    assertThat(records.listClusters()).extracting(Cluster::name).containsExactly("asia-1", "eu-1");

    Cluster moved = new Cluster("eu-1", "ctx-new", Map.of(Cluster.REGION_LABEL, "europe-west4", "tier", "gold"),
        T0.plusSeconds(3600));
    Cluster updated = records.registerCluster(moved);
    // The context and labels change; the fleet keeps when the cluster first joined.
    assertThat(updated).isEqualTo(new Cluster("eu-1", "ctx-new", moved.labels(), T0));
    assertThat(records.getCluster("eu-1")).contains(updated);

    assertThat(records.removeCluster("eu-1")).isTrue();
    assertThat(records.removeCluster("eu-1")).isFalse();
    assertThat(records.listClusters()).extracting(Cluster::name).containsExactly("asia-1");
  }

  @Test
  void onlyTheContextNameIsStoredForACluster() {
    records.registerCluster(cluster("eu-1"));
    Entity stored = all("Cluster").get(0);
    assertThat(stored.getNames()).containsExactlyInAnyOrder("context", "labels", "registeredAt");
    assertThat(stored.getString("context")).isEqualTo("ctx-eu-1");
  }

  @Test
  void tenantsArePlacedAndMovedBetweenRegisteredClusters() {
    records.registerCluster(cluster("eu-1"));
    records.registerCluster(cluster("us-1"));
    records.placeTenant("acme", "eu-1");
    records.placeTenant("globex", "eu-1");
    records.placeTenant("initech", "us-1");

    assertThat(records.placement("acme")).contains("eu-1");
    assertThat(records.placement("nobody")).isEmpty();
    assertThat(records.tenantsOn("eu-1")).containsExactly("acme", "globex");

    records.placeTenant("acme", "us-1");
    assertThat(records.placement("acme")).contains("us-1");
    assertThat(records.tenantsOn("eu-1")).containsExactly("globex");
    assertThat(records.tenantsOn("us-1")).containsExactly("acme", "initech");

    assertThatThrownBy(() -> records.placeTenant("acme", "mars-1"))
        .isInstanceOfSatisfying(FleetInputException.class, e -> assertThat(e.field()).isEqualTo("cluster"))
        .hasMessageContaining("mars-1 is not registered");
    assertThat(records.placement("acme")).contains("us-1");
  }

  @Test
  void aClusterHoldingTenantsCannotBeRemoved() {
    records.registerCluster(cluster("eu-1"));
    records.placeTenant("acme", "eu-1");
    assertThatThrownBy(() -> records.removeCluster("eu-1"))
        .isInstanceOfSatisfying(FleetConflictException.class, e -> assertThat(e.field()).isEqualTo("cluster"))
        .hasMessageContaining("acme");
    assertThat(records.getCluster("eu-1")).isPresent();
  }

  @Test
  void anAllocationKeepsTheSubdomainItsSignupAskedFor() {
    records.registerCluster(cluster("eu-1"));
    Allocation named = new Allocation("req-shop", "Acme", "ops@acme.example", "acme", "uid-acme-eu-1", "eu-1", "tenant-acme",
        T0.plusSeconds(1), "shop");

    assertThat(records.recordAllocation(named)).isEqualTo(named);
    assertThat(records.findAllocation("req-shop")).contains(named);
    assertThat(records.findAllocationByTenant("acme")).contains(named);
    records.recordAllocation(allocation("req-plain", "globex", "eu-1"));
    assertThat(records.findAllocation("req-plain").orElseThrow().subdomain()).isNull();
  }

  @Test
  void theSameRequestIdRecordedTwiceReturnsTheFirstRecord() {
    records.registerCluster(cluster("eu-1"));
    Allocation first = allocation("req-1", "acme", "eu-1");
    assertThat(records.recordAllocation(first)).isEqualTo(first);

    Allocation retry = new Allocation("req-1", "Other Org", "other@example.com", "globex", "uid-globex-eu-1", "eu-1", "tenant-globex",
        T0.plusSeconds(99), "globex-shop");
    assertThat(records.recordAllocation(retry)).isEqualTo(first);
    assertThat(records.findAllocation("req-1")).contains(first);
    assertThat(all("Allocation")).hasSize(1);
    // The retry placed nothing: globex was never allocated.
    assertThat(records.placement("globex")).isEmpty();
    assertThat(records.placement("acme")).contains("eu-1");
  }

  @Test
  void concurrentWritersOfOneRequestIdAllGetTheOneRecord() throws Exception {
    records.registerCluster(cluster("eu-1"));
    int requestIds = 8;
    int writersPerRequestId = 4;
    ExecutorService pool = Executors.newFixedThreadPool(requestIds * writersPerRequestId);
    CountDownLatch go = new CountDownLatch(1);
    List<Future<Allocation>> results = new ArrayList<>();
    try {
      for (int writer = 0; writer < requestIds * writersPerRequestId; writer++) {
        int request = writer % requestIds;
        // Each writer proposes its own tenant, so a lost idempotency race would show as a second record.
        Allocation candidate = allocation("req-" + request, "t" + request + "-w" + writer, "eu-1");
        results.add(pool.submit(() -> {
          go.await();
          return records.recordAllocation(candidate);
        }));
      }
      go.countDown();
      Map<String, Set<Allocation>> byRequestId = new java.util.TreeMap<>();
      for (Future<Allocation> result : results) {
        Allocation got = result.get(120, TimeUnit.SECONDS);
        byRequestId.computeIfAbsent(got.requestId(), id -> new java.util.HashSet<>()).add(got);
      }

      assertThat(byRequestId).hasSize(requestIds);
      byRequestId.forEach((requestId, got) -> assertThat(got).as(requestId).hasSize(1));
      List<Entity> stored = all("Allocation");
      assertThat(stored).hasSize(requestIds);
      for (Entity entity : stored) {
        Allocation winner = records.findAllocation(entity.getKey().getName()).orElseThrow();
        assertThat(byRequestId.get(winner.requestId())).containsExactly(winner);
        assertThat(records.placement(winner.tenant())).contains("eu-1");
      }
      // Exactly the winners were placed, no losing candidate.
      assertThat(records.tenantsOn("eu-1")).containsExactlyInAnyOrderElementsOf(
          byRequestId.values().stream().flatMap(Set::stream).map(Allocation::tenant).collect(Collectors.toList()));
    } finally {
      pool.shutdownNow();
    }
  }

  @Test
  void allocationsAreFoundByTenant() {
    records.registerCluster(cluster("eu-1"));
    Allocation acme = records.recordAllocation(allocation("req-acme", "acme", "eu-1"));
    records.recordAllocation(allocation("req-globex", "globex", "eu-1"));
    records.placeTenant("spare-7", "eu-1");

    assertThat(records.findAllocationByTenant("acme")).contains(acme);
    // Placed but not allocated, and not known at all.
    assertThat(records.findAllocationByTenant("spare-7")).isEmpty();
    assertThat(records.findAllocationByTenant("nobody")).isEmpty();
  }

  @Test
  void aTenantIsHeldByOneRequestIdOnOneCluster() {
    records.registerCluster(cluster("eu-1"));
    records.registerCluster(cluster("us-1"));
    records.recordAllocation(allocation("req-1", "acme", "eu-1"));
    assertThatThrownBy(() -> records.recordAllocation(allocation("req-2", "acme", "eu-1")))
        .isInstanceOfSatisfying(FleetConflictException.class, e -> assertThat(e.field()).isEqualTo("tenant"))
        .hasMessageContaining("req-1");

    records.placeTenant("spare-1", "us-1");
    assertThatThrownBy(() -> records.recordAllocation(allocation("req-3", "spare-1", "eu-1")))
        .isInstanceOfSatisfying(FleetConflictException.class, e -> assertThat(e.field()).isEqualTo("cluster"));
    assertThatThrownBy(() -> records.recordAllocation(allocation("req-4", "newco", "mars-1")))
        .isInstanceOfSatisfying(FleetInputException.class, e -> assertThat(e.field()).isEqualTo("cluster"));

    assertThat(records.findAllocation("req-2")).isEmpty();
    assertThat(records.findAllocation("req-3")).isEmpty();
    assertThat(records.findAllocation("req-4")).isEmpty();
    // A spare placed beforehand on the right cluster is allocated in place.
    Allocation spare = records.recordAllocation(allocation("req-5", "spare-1", "us-1"));
    assertThat(records.findAllocationByTenant("spare-1")).contains(spare);
  }

  @Test
  void purgeTenantRemovesExactlyThatTenantsRecords() {
    records.registerCluster(cluster("eu-1"));
    records.recordAllocation(allocation("req-acme", "acme", "eu-1"));
    Allocation globex = records.recordAllocation(allocation("req-globex", "globex", "eu-1"));
    records.placeTenant("spare-1", "eu-1");

    assertThat(records.purgeTenant(ref("acme", "eu-1"))).isTrue();
    assertThat(records.placement("acme")).isEmpty();
    assertThat(records.findAllocation("req-acme")).isEmpty();
    assertThat(records.findAllocationByTenant("acme")).isEmpty();
    assertThat(records.findAllocation("req-globex")).contains(globex);
    assertThat(records.tenantsOn("eu-1")).containsExactly("globex", "spare-1");
    assertThat(all("Allocation")).hasSize(1);
    assertThat(records.getCluster("eu-1")).isPresent();

    assertThat(records.purgeTenant(ref("acme", "eu-1"))).isFalse();
    assertThat(records.purgeTenant(ref("spare-1", "eu-1"))).isTrue();
    assertThat(records.tenantsOn("eu-1")).containsExactly("globex");
  }

  @Test
  void aHostnameIsClaimedOnceAndAReclaimByItsHolderChangesNothing() {
    HostnameClaim shop = records.claimHostname("shop.acme.example", ref("acme", "eu-1"));
    assertThat(shop).extracting(HostnameClaim::hostname, HostnameClaim::tenant, HostnameClaim::cluster)
        .containsExactly("shop.acme.example", "acme", "eu-1");
    assertThat(records.hostnameHolder("shop.acme.example")).contains(shop);
    Entity stored = all("Hostname").get(0);
    assertThat(stored.getNames()).containsExactlyInAnyOrder("tenant", "tenantUid", "cluster", "claimedAt");
    assertThat(records.claimHostname("shop.acme.example", ref("acme", "eu-1"))).isEqualTo(shop);

    // Acme of another cluster is another tenant: it gets the holder's claim back, and holds nothing.
    assertThat(records.claimHostname("shop.acme.example", ref("acme", "us-1"))).isEqualTo(shop);
    assertThat(shop.heldBy(ref("acme", "us-1"))).isFalse();
    assertThat(all("Hostname")).containsExactly(stored);

    HostnameClaim api = records.claimHostname("api.acme.example", ref("acme", "eu-1"));
    assertThat(records.hostnamesOf(ref("acme", "eu-1"))).containsExactly(api, shop);
    assertThat(records.hostnamesOf(ref("globex", "eu-1"))).isEmpty();
    assertThat(records.hostnameHolder("www.globex.example")).isEmpty();
  }

  @Test
  void aClaimOnAHostnameHeldByAnotherTenantReturnsTheHolderAndWritesNothing() {
    HostnameClaim acme = records.claimHostname("shop.example.com", ref("acme", "eu-1"));
    List<Entity> before = all("Hostname");

    HostnameClaim got = records.claimHostname("shop.example.com", ref("globex", "us-1"));

    assertThat(got).isEqualTo(acme);
    assertThat(got.tenant()).isNotEqualTo("globex");
    assertThat(all("Hostname")).isEqualTo(before);
    assertThat(records.hostnamesOf(ref("globex", "us-1"))).isEmpty();
  }

  @Test
  void concurrentClaimsOfOneHostnameLeaveOneHolderThatEveryCallerGetsBack() throws Exception {
    int tenants = 32;
    ExecutorService pool = Executors.newFixedThreadPool(tenants);
    CountDownLatch go = new CountDownLatch(1);
    List<Future<HostnameClaim>> results = new ArrayList<>();
    try {
      for (int i = 0; i < tenants; i++) {
        String tenant = "t" + i;
        String cluster = i % 2 == 0 ? "eu-1" : "us-1";
        results.add(pool.submit(() -> {
          go.await();
          return records.claimHostname("shop.example.com", ref(tenant, cluster));
        }));
      }
      go.countDown();
      Set<HostnameClaim> got = new HashSet<>();
      for (Future<HostnameClaim> result : results) {
        got.add(result.get(120, TimeUnit.SECONDS));
      }

      assertThat(got).hasSize(1);
      HostnameClaim holder = got.iterator().next();
      assertThat(records.hostnameHolder("shop.example.com")).contains(holder);
      assertThat(all("Hostname")).hasSize(1);
      for (int i = 0; i < tenants; i++) {
        String tenant = "t" + i;
        assertThat(records.hostnamesOf(ref(tenant, i % 2 == 0 ? "eu-1" : "us-1"))).as(tenant)
            .isEqualTo(tenant.equals(holder.tenant()) ? List.of(holder) : List.of());
      }
    } finally {
      pool.shutdownNow();
    }
  }

  @Test
  void releaseHostnamesKeepsTheKeptOnesAndNeverTouchesOtherTenants() {
    HostnameClaim a = records.claimHostname("a.acme.example", ref("acme", "eu-1"));
    records.claimHostname("b.acme.example", ref("acme", "eu-1"));
    records.claimHostname("c.acme.example", ref("acme", "eu-1"));
    HostnameClaim globex = records.claimHostname("www.globex.example", ref("globex", "us-1"));

    // Naming another tenant's hostname in keep does not make it this tenant's to keep or release.
    assertThat(records.releaseHostnames(ref("acme", "eu-1"), List.of("a.acme.example", "www.globex.example"))).isEqualTo(2);
    assertThat(records.hostnamesOf(ref("acme", "eu-1"))).containsExactly(a);
    assertThat(records.hostnameHolder("www.globex.example")).contains(globex);
    assertThat(records.releaseHostnames(ref("acme", "eu-1"), List.of("a.acme.example"))).isZero();

    assertThat(records.releaseHostnames(ref("acme", "eu-1"), List.of())).isEqualTo(1);
    assertThat(records.hostnamesOf(ref("acme", "eu-1"))).isEmpty();
    assertThat(records.hostnamesOf(ref("globex", "us-1"))).containsExactly(globex);
    assertThat(records.releaseHostnames(ref("nobody", "eu-1"), List.of())).isZero();
  }

  @Test
  void releaseHostnamesDeletesMoreClaimsThanOneTransactionMayTouch() {
    for (int i = 0; i < 60; i++) {
      records.claimHostname("h" + i + ".acme.example", ref("acme", "eu-1"));
    }
    assertThat(records.releaseHostnames(ref("acme", "eu-1"), List.of("h7.acme.example"))).isEqualTo(59);
    assertThat(records.hostnamesOf(ref("acme", "eu-1"))).extracting(HostnameClaim::hostname).containsExactly("h7.acme.example");
  }

  @Test
  void purgeTenantDeletesItsHostnameClaimsAndFreesThemForAnotherTenant() {
    records.registerCluster(cluster("eu-1"));
    records.recordAllocation(allocation("req-acme", "acme", "eu-1"));
    // More claims than one transaction may touch with the placement and allocation (25 entity groups).
    for (int i = 0; i < 30; i++) {
      records.claimHostname("h" + i + ".acme.example", ref("acme", "eu-1"));
    }
    HostnameClaim globex = records.claimHostname("www.globex.example", ref("globex", "eu-1"));

    assertThat(records.purgeTenant(ref("acme", "eu-1"))).isTrue();
    assertThat(records.hostnamesOf(ref("acme", "eu-1"))).isEmpty();
    assertThat(records.hostnameHolder("h0.acme.example")).isEmpty();
    assertThat(records.placement("acme")).isEmpty();
    assertThat(records.findAllocation("req-acme")).isEmpty();
    assertThat(all("Hostname")).hasSize(1);
    assertThat(records.hostnameHolder("www.globex.example")).contains(globex);

    assertThat(records.claimHostname("h0.acme.example", ref("initech", "eu-1")).tenant()).isEqualTo("initech");
    assertThat(records.purgeTenant(ref("acme", "eu-1"))).isFalse();
  }

  @Test
  void aTenantWithOnlyHostnameClaimsIsPurgedToo() {
    records.claimHostname("shop.acme.example", ref("acme", "eu-1"));
    assertThat(records.placement("acme")).isEmpty();

    assertThat(records.purgeTenant(ref("acme", "eu-1"))).isTrue();
    assertThat(records.hostnameHolder("shop.acme.example")).isEmpty();
    assertThat(records.purgeTenant(ref("acme", "eu-1"))).isFalse();
  }

  @Test
  void invalidHostnameInputsAreRefusedNamingTheFieldAndWriteNothing() {
    String tooLong = ("a".repeat(63) + ".").repeat(4) + "example";
    for (String hostname : new String[] {"*.acme.example", "Shop.acme.example", "localhost", tooLong}) {
      assertRefused("hostname", () -> records.claimHostname(hostname, ref("acme", "eu-1")));
    }
    assertThatThrownBy(() -> records.claimHostname("Shop.acme.example", ref("acme", "eu-1")))
        .hasMessageContaining("lowercase").hasMessageContaining("\"shop.acme.example\"");
    assertRefused("tenant", () -> records.claimHostname("shop.acme.example", ref("Acme", "eu-1")));
    assertRefused("cluster", () -> records.claimHostname("shop.acme.example", ref("acme", "eu_1")));
    assertRefused("hostname", () -> records.hostnameHolder("*.acme.example"));
    assertRefused("tenant", () -> records.hostnamesOf(null));
    assertRefused("keep", () -> records.releaseHostnames(ref("acme", "eu-1"), null));
    assertRefused("keep", () -> records.releaseHostnames(ref("acme", "eu-1"), List.of("Shop.acme.example")));
    assertThat(all("Hostname")).isEmpty();

    records.claimHostname("shop.acme.example", ref("acme", "eu-1"));
    assertRefused("keep", () -> records.releaseHostnames(ref("acme", "eu-1"), Arrays.asList("a.acme.example", null)));
    assertThat(records.hostnamesOf(ref("acme", "eu-1"))).hasSize(1);
  }

  @Test
  void oneNameOnTwoClustersIsTwoTenantsThatNeverReleaseOrPurgeEachOthersRecords() {
    records.registerCluster(cluster("east"));
    records.registerCluster(cluster("west"));
    TenantRef east = ref("acme", "east");
    TenantRef west = ref("acme", "west");
    Allocation allocated = records.recordAllocation(allocation("req-acme", "acme", "east"));
    HostnameClaim shop = records.claimHostname("shop.acme.example", east);

    HostnameClaim got = records.claimHostname("shop.acme.example", west);
    assertThat(got).isEqualTo(shop);
    assertThat(got.heldBy(west)).isFalse();
    assertThat(records.hostnamesOf(west)).isEmpty();
    assertThat(records.releaseHostnames(west, List.of())).isZero();
    assertThat(records.adopt(west)).isZero();
    assertThat(records.purgeTenant(west)).isFalse();
    // Acme created again on east is another Tenant object as well.
    assertThat(records.purgeTenant(new TenantRef("east", "acme", "uid-acme-again"))).isFalse();

    assertThat(records.hostnamesOf(east)).containsExactly(shop);
    assertThat(records.placement("acme")).contains("east");
    assertThat(records.findAllocationByTenant("acme")).contains(allocated);
    assertThat(records.purgeTenant(east)).isTrue();
    assertThat(all("Hostname")).isEmpty();
    assertThat(all("Placement")).isEmpty();
    assertThat(all("Allocation")).isEmpty();
  }

  @Test
  void ofClustersReservingOneSpareNameAtOnceExactlyOneGetsIt() throws Exception {
    int clusters = 8;
    ExecutorService pool = Executors.newFixedThreadPool(clusters);
    CountDownLatch go = new CountDownLatch(1);
    List<Future<Boolean>> results = new ArrayList<>();
    try {
      for (int i = 0; i < clusters; i++) {
        String cluster = "c" + i;
        results.add(pool.submit(() -> {
          go.await();
          return records.reserveName("default-x7k2p", cluster);
        }));
      }
      go.countDown();
      List<String> winners = new ArrayList<>();
      for (int i = 0; i < clusters; i++) {
        if (results.get(i).get(120, TimeUnit.SECONDS)) {
          winners.add("c" + i);
        }
      }
      assertThat(winners).hasSize(1);
      assertThat(records.placement("default-x7k2p")).contains(winners.get(0));
      assertThat(all("Placement")).singleElement().satisfies(e -> assertThat(e.getNames()).containsExactlyInAnyOrder("cluster", "placedAt"));
      assertThat(records.reserveName("default-x7k2p", winners.get(0))).isFalse();
    } finally {
      pool.shutdownNow();
    }
    assertRefused("tenant", () -> records.reserveName("Default", "c0"));
    assertRefused("cluster", () -> records.reserveName("default-abcde", "C0"));
  }

  @Test
  void aReservedNameIsAdoptedByItsTenantAllocatedInPlaceAndFreedByItsPurge() {
    records.registerCluster(cluster("east"));
    assertThat(records.reserveName("default-x7k2p", "east")).isTrue();
    TenantRef spare = ref("default-x7k2p", "east");

    assertThat(records.adopt(spare)).isEqualTo(1);
    assertThat(all("Placement").get(0).getString("tenantUid")).isEqualTo(spare.uid());
    Allocation other = new Allocation("req-2", "Acme", "ops@acme.example", "default-x7k2p", "uid-other", "east",
        "tenant-default-x7k2p", T0, null);
    assertThatThrownBy(() -> records.recordAllocation(other))
        .isInstanceOfSatisfying(FleetConflictException.class, e -> assertThat(e.field()).isEqualTo("tenantUid"));
    Allocation mine = records.recordAllocation(allocation("req-1", "default-x7k2p", "east"));
    assertThat(records.findAllocationByTenant("default-x7k2p")).contains(mine);
    Allocation withoutUid = new Allocation("req-3", "Acme", "ops@acme.example", "newco", null, "east", "tenant-newco", T0, null);
    assertRefused("tenantUid", () -> records.recordAllocation(withoutUid));

    assertThat(records.purgeTenant(spare)).isTrue();
    assertThat(records.reserveName("default-x7k2p", "west")).isTrue();
  }

  @Test
  void recordsWrittenBeforeUidsAreAdoptedByTheTenantOfTheirNameOnTheirClusterAlone() {
    records.registerCluster(cluster("east"));
    records.registerCluster(cluster("west"));
    putAsBefore("acme", "east", "req-acme", 30);
    TenantRef east = ref("acme", "east");
    TenantRef west = ref("acme", "west");

    // Read as they are: no UID, still the tenant's of that name on that cluster.
    assertThat(records.findAllocation("req-acme").orElseThrow().tenantUid()).isNull();
    assertThat(records.hostnameHolder("h0.acme.example").orElseThrow().tenantUid()).isNull();
    assertThat(records.hostnamesOf(east)).hasSize(30);
    assertThat(records.hostnamesOf(west)).isEmpty();
    assertThat(records.adopt(west)).isZero();
    assertThat(records.purgeTenant(west)).isFalse();
    assertThat(records.claimHostname("h0.acme.example", west).heldBy(west)).isFalse();

    // The first sync of acme on east takes them over, in more transactions than one: placement, allocation, 30 claims.
    assertThat(records.adopt(east)).isEqualTo(32);
    assertThat(records.adopt(east)).isZero();
    assertThat(all("Hostname")).allSatisfy(e -> assertThat(e.getString("tenantUid")).isEqualTo(east.uid()));
    assertThat(all("Placement")).singleElement().satisfies(e -> assertThat(e.getString("tenantUid")).isEqualTo(east.uid()));
    assertThat(records.findAllocationByTenant("acme").orElseThrow().tenantUid()).isEqualTo(east.uid());
    TenantRef again = new TenantRef("east", "acme", "uid-acme-again");
    assertThat(records.hostnamesOf(again)).as("adopted: acme created again holds none").isEmpty();
    assertThat(records.purgeTenant(again)).isFalse();

    assertThat(records.purgeTenant(east)).isTrue();
    assertThat(all("Hostname")).isEmpty();
    assertThat(all("Placement")).isEmpty();
    assertThat(all("Allocation")).isEmpty();
  }

  @Test
  void recordsWrittenBeforeUidsArePurgedByTheirTenantEvenUnadopted() {
    records.registerCluster(cluster("east"));
    putAsBefore("acme", "east", "req-acme", 2);
    putAsBefore("globex", "east", null, 1);

    assertThat(records.purgeTenant(ref("acme", "west"))).isFalse();
    assertThat(records.releaseHostnames(ref("acme", "west"), List.of())).isZero();
    assertThat(records.releaseHostnames(ref("acme", "east"), List.of("h0.acme.example"))).isEqualTo(1);
    assertThat(records.purgeTenant(ref("acme", "east"))).isTrue();
    assertThat(records.placement("acme")).isEmpty();
    assertThat(records.findAllocation("req-acme")).isEmpty();
    assertThat(all("Hostname")).extracting(e -> e.getKey().getName()).containsExactly("h0.globex.example");
    assertThat(records.placement("globex")).contains("east");
  }

  /**
   * Writes a tenant's records raw, as the code before UIDs wrote them (same kinds, keys and
   * properties, no {@code tenantUid}): its placement, its allocation when {@code requestId} is not
   * null, and {@code claims} hostname claims h0, h1, ... under the tenant's name.
   */
  private void putAsBefore(String tenant, String cluster, String requestId, int claims) {
    com.google.cloud.Timestamp at = com.google.cloud.Timestamp.ofTimeSecondsAndNanos(T0.getEpochSecond(), T0.getNano());
    List<Entity> entities = new ArrayList<>();
    Entity.Builder placement = Entity.newBuilder(key("Placement", tenant)).set("cluster", cluster).set("placedAt", at);
    if (requestId != null) {
      placement.set("requestId", StringValue.newBuilder(requestId).setExcludeFromIndexes(true).build());
      entities.add(Entity.newBuilder(key("Allocation", requestId))
          .set("organization", unindexed("Org of " + tenant))
          .set("email", unindexed("ops@" + tenant + ".example"))
          .set("tenant", unindexed(tenant))
          .set("cluster", unindexed(cluster))
          .set("namespace", unindexed("tenant-" + tenant))
          .set("allocatedAt", at)
          .build());
    }
    entities.add(placement.build());
    for (int i = 0; i < claims; i++) {
      entities.add(Entity.newBuilder(key("Hostname", "h" + i + "." + tenant + ".example"))
          .set("tenant", tenant)
          .set("cluster", unindexed(cluster))
          .set("claimedAt", TimestampValue.newBuilder(at).setExcludeFromIndexes(true).build())
          .build());
    }
    datastore.put(entities.toArray(Entity[]::new));
  }

  private Key key(String kind, String name) {
    return datastore.newKeyFactory().setNamespace(namespace).setKind(kind).newKey(name);
  }

  private static StringValue unindexed(String value) {
    return StringValue.newBuilder(value).setExcludeFromIndexes(true).build();
  }

  private static void assertRefused(String field, ThrowingCallable call) {
    assertThatThrownBy(call)
        .isInstanceOfSatisfying(FleetInputException.class, e -> assertThat(e.field()).isEqualTo(field));
  }

  @Test
  void namespacesKeepFleetsApart() {
    records.registerCluster(cluster("eu-1"));
    FleetRecords other = new DatastoreFleetRecords(datastore, namespace + "-other");
    assertThat(other.listClusters()).isEmpty();
    assertThat(other.getCluster("eu-1")).isEmpty();
  }

  @Test
  void invalidInputsAreRefusedBeforeDatastore() {
    assertThatThrownBy(() -> records.placement("Not_A_Label"))
        .isInstanceOfSatisfying(FleetInputException.class, e -> assertThat(e.field()).isEqualTo("tenant"));
    assertThatThrownBy(() -> records.findAllocation(""))
        .isInstanceOfSatisfying(FleetInputException.class, e -> assertThat(e.field()).isEqualTo("requestId"));
    assertThatThrownBy(() -> records.tenantsOn("x_y"))
        .isInstanceOfSatisfying(FleetInputException.class, e -> assertThat(e.field()).isEqualTo("cluster"));
    assertThatThrownBy(() -> records.recordAllocation(null))
        .isInstanceOfSatisfying(FleetInputException.class, e -> assertThat(e.field()).isEqualTo("allocation"));
    assertThatThrownBy(() -> records.purgeTenant(null))
        .isInstanceOfSatisfying(FleetInputException.class, e -> assertThat(e.field()).isEqualTo("tenant"));
  }
}
