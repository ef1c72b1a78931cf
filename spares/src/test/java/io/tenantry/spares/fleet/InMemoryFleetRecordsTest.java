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

  private final InMemoryFleetRecords records = new InMemoryFleetRecords();

  @Test
  void aHostnameHasOneHolderAndAReclaimByItChangesNothing() {
    HostnameClaim shop = records.claimHostname("shop.example.com", "acme", "eu-1");
    HostnameClaim api = records.claimHostname("api.example.com", "acme", "eu-1");

    assertThat(records.claimHostname("shop.example.com", "acme", "us-1")).isEqualTo(shop);
    assertThat(records.claimHostname("shop.example.com", "globex", "us-1")).isEqualTo(shop);
    assertThat(records.hostnameHolder("shop.example.com")).contains(shop);
    assertThat(records.hostnamesOf("acme")).containsExactly(api, shop);
    assertThat(records.hostnamesOf("globex")).isEmpty();
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
          return records.claimHostname("shop.example.com", tenant, "eu-1");
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
    HostnameClaim a = records.claimHostname("a.example.com", "acme", "eu-1");
    records.claimHostname("b.example.com", "acme", "eu-1");
    HostnameClaim globex = records.claimHostname("www.globex.example", "globex", "us-1");

    assertThat(records.releaseHostnames("acme", List.of("a.example.com", "www.globex.example"))).isEqualTo(1);
    assertThat(records.releaseHostnames("acme", List.of("a.example.com"))).isZero();
    assertThat(records.hostnamesOf("acme")).containsExactly(a);
    assertThat(records.hostnamesOf("globex")).containsExactly(globex);
    assertThat(records.releaseHostnames("globex", List.of())).isEqualTo(1);
    assertThat(records.hostnameHolder("www.globex.example")).isEmpty();
  }

  @Test
  void purgeTenantDeletesItsClaimsAndFreesTheHostnames() {
    records.registerCluster(new Cluster("eu-1", "ctx-eu-1", Map.of(), Instant.parse("2026-03-01T10:00:00Z")));
    records.placeTenant("acme", "eu-1");
    records.claimHostname("shop.example.com", "acme", "eu-1");
    records.claimHostname("only.example.com", "initech", "eu-1");

    assertThat(records.purgeTenant("acme")).isTrue();
    assertThat(records.hostnamesOf("acme")).isEmpty();
    assertThat(records.placement("acme")).isEmpty();
    assertThat(records.claimHostname("shop.example.com", "globex", "eu-1").tenant()).isEqualTo("globex");
    assertThat(records.purgeTenant("acme")).isFalse();
    // A tenant with claims and no placement is purged too.
    assertThat(records.purgeTenant("initech")).isTrue();
    assertThat(records.hostnameHolder("only.example.com")).isEmpty();
  }

  @Test
  void refusedClaimsWriteNothing() {
    assertThatThrownBy(() -> records.claimHostname("Shop.example.com", "acme", "eu-1"))
        .isInstanceOfSatisfying(FleetInputException.class, e -> assertThat(e.field()).isEqualTo("hostname"));
    assertThatThrownBy(() -> records.claimHostname("shop.example.com", "acme", "EU"))
        .isInstanceOfSatisfying(FleetInputException.class, e -> assertThat(e.field()).isEqualTo("cluster"));
    assertThat(records.hostnameHolder("shop.example.com")).isEmpty();

    records.setAvailable(false);
    assertThatThrownBy(() -> records.claimHostname("shop.example.com", "acme", "eu-1"))
        .isInstanceOf(DatastoreException.class);
    records.setAvailable(true);
    assertThat(records.hostnamesOf("acme")).isEmpty();
  }
}
