package io.tenantry.controller.routing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.gatewayapi.v1.HTTPRoute;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.tenantry.api.WellKnown;
import io.tenantry.api.v1alpha1.Tenant;
import io.tenantry.api.v1alpha1.TenantState;
import io.tenantry.controller.apply.Converger;
import io.tenantry.controller.config.OperatorConfig.RoutingMode;
import io.tenantry.controller.fakes.FakeCluster;
import io.tenantry.controller.fakes.Writes;
import io.tenantry.spares.fleet.InMemoryFleetRecords;
import io.tenantry.spares.fleet.TenantRef;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** A bound tenant's route is written from the bind, as its sync would write it, and only for what it holds. */
class BoundRoutesTest {

  private final InMemoryFleetRecords records = new InMemoryFleetRecords();
  private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
  private final FakeCluster cluster = new FakeCluster();
  private final Writes writes = new Writes(cluster);
  private final TenantRouting routing = new TenantRouting(new FleetHostnameClaims(records, "east"), RoutingMode.GATEWAY);
  private final List<String> requeued = new CopyOnWriteArrayList<>();
  private final RoutesInFlight inFlight = new RoutesInFlight(cluster, requeued::add, Duration.ofSeconds(30));
  private final BoundRoutes routes = new BoundRoutes(RouteModelTest.ROUTED, routing, cluster, new Converger(writes), inFlight,
      2, registry);

  @AfterEach
  void close() {
    routes.close();
  }

  @Test
  void aBoundTenantsRouteIsWrittenOffTheCallersThreadWithTheHostnameItsSubdomainClaimed() {
    Tenant bound = bound("pool-a1b2c", "acme");

    routes.accept(bound);

    await().atMost(Duration.ofSeconds(5)).until(() -> outcomes().equals(Map.of("written", 1.0)));
    assertThat(writes.take()).containsExactly("create HTTPRoute tenant-pool-a1b2c/tenant");
    HTTPRoute route = cluster.get(HTTPRoute.class, "tenant-pool-a1b2c", RouteModel.NAME);
    assertThat(route.getSpec().getHostnames()).containsExactly("acme.tenants.example.com");
    assertThat(records.hostnameHolder("acme.tenants.example.com")).get()
        .satisfies(claim -> assertThat(claim.heldBy(new TenantRef("east", "pool-a1b2c", "uid-pool-a1b2c"))).isTrue());
    assertThat(inFlight.holds("pool-a1b2c")).as("a plan made before the route reached the cache: held").isTrue();
    assertThat(requeued).as("for a plan that sees it").containsExactly("pool-a1b2c");
    assertThat(inFlight.holds("pool-a1b2c")).isFalse();
  }

  @Test
  void aSyncHeldBackWhileTheRouteWasWrittenIsNotQueuedAgainButOneWhoseRouteWasNotWrittenIs() {
    Tenant bound = bound("pool-t3u4v", null);
    inFlight.started(bound); // What accept does before handing the write to a thread.
    assertThat(inFlight.holds("pool-t3u4v")).as("its sync, while the write is in flight").isTrue();
    routes.write(bound);
    assertThat(requeued).as("written: its watch event queues the tenant").isEmpty();

    Tenant spare = bound("pool-w5x6y", null);
    spare.getSpec().setState(TenantState.New);
    inFlight.started(spare);
    assertThat(inFlight.holds("pool-w5x6y")).isTrue();
    routes.write(spare);
    assertThat(requeued).as("only the tenant whose route is its sync's to write after all").containsExactly("pool-w5x6y");
    assertThat(inFlight.holds("pool-w5x6y")).isFalse();
  }

  @Test
  void aRouteTheTenantsSyncWroteAlreadyIsNotWrittenAgain() {
    Tenant bound = bound("pool-d3e4f", null);
    routes.write(bound);
    assertThat(writes.take()).containsExactly("create HTTPRoute tenant-pool-d3e4f/tenant");

    routes.write(bound);
    assertThat(writes.take()).isEmpty();
    assertThat(outcomes()).containsExactly(Map.entry("inPlace", 1.0), Map.entry("written", 1.0));
  }

  @Test
  void aHostnameAnotherTenantHoldsIsNeverRouted() {
    records.claimHostname("acme.tenants.example.com", new TenantRef("west", "acme", "uid-west-acme"));

    routes.write(bound("pool-g5h6i", "acme"));

    assertThat(writes.take()).as("its only hostname is held elsewhere: no route").isEmpty();
    assertThat(outcomes()).containsExactly(Map.entry("notRouted", 1.0));
  }

  @Test
  void aSpareIsNeverRouted() {
    Tenant spare = bound("pool-j7k8l", null);
    spare.getSpec().setState(TenantState.New);

    routes.write(spare);

    assertThat(writes.take()).isEmpty();
    assertThat(outcomes()).containsExactly(Map.entry("notRouted", 1.0));
  }

  @Test
  void aRefusedRouteIsLeftToTheSyncAndNothingIsThrown() {
    writes.refuse("HTTPRoute tenant-pool-m9n0p/tenant", "admission webhook denied the request");

    routes.write(bound("pool-m9n0p", null));

    assertThat(writes.take()).isEmpty();
    assertThat(cluster.get(HTTPRoute.class, "tenant-pool-m9n0p", RouteModel.NAME)).isNull();
    assertThat(outcomes()).containsExactly(Map.entry("failed", 1.0));
  }

  @Test
  void aTenantChangedAgainSinceTheBindOrDeletedIsLeftToItsSync() {
    Tenant bound = bound("pool-q1r2s", null);
    Tenant frozen = bound("pool-q1r2s", null);
    frozen.getSpec().setState(TenantState.Frozen);
    cluster.putTenant(frozen); // generation 2

    routes.write(bound);
    assertThat(writes.take()).as("frozen right after the bind").isEmpty();

    cluster.removeTenant("pool-q1r2s");
    routes.write(bound);
    assertThat(writes.take()).as("deleted").isEmpty();
    assertThat(outcomes()).containsExactly(Map.entry("stale", 2.0));
  }

  /** tenantry_bound_routes_total by outcome, sorted, those above 0. */
  private Map<String, Double> outcomes() {
    Map<String, Double> counts = new TreeMap<>();
    registry.find("tenantry.bound.routes").counters().stream().filter(c -> c.count() > 0)
        .forEach(c -> counts.put(c.getId().getTag("outcome"), c.count()));
    return counts;
  }

  /**
   * A spare of pool "pool" as the allocation API's bind stored it (Active, with the signup's
   * subdomain or none, generation 1), and as the operator's cache holds it.
   */
  private Tenant bound(String name, String subdomain) {
    Tenant tenant = RouteModelTest.acme();
    tenant.getMetadata().setName(name);
    tenant.getMetadata().setUid("uid-" + name);
    tenant.getMetadata().setGeneration(1L);
    tenant.getMetadata().setLabels(new HashMap<>(Map.of(WellKnown.SPARE_POOL, "pool")));
    tenant.getSpec().setState(TenantState.Active);
    tenant.getSpec().setSubdomain(subdomain);
    tenant.getSpec().setHostnames(List.of());
    cluster.putTenant(tenant);
    return tenant;
  }
}
