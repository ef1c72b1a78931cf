package io.tenantry.controller.routing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.gatewayapi.v1.HTTPRoute;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.tenantry.api.WellKnown;
import io.tenantry.api.v1alpha1.Tenant;
import io.tenantry.api.v1alpha1.TenantState;
import io.tenantry.controller.apply.Converger;
import io.tenantry.controller.config.OperatorConfig.RoutingMode;
import io.tenantry.controller.fakes.FakeCluster;
import io.tenantry.controller.fakes.Writes;
import io.tenantry.controller.resources.IdentityModel;
import io.tenantry.controller.resources.Names;
import io.tenantry.controller.resources.TenantContext;
import io.tenantry.spares.fleet.InMemoryFleetRecords;
import io.tenantry.spares.fleet.TenantRef;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A bound tenant's way in is opened from the bind, as its sync would write it, and only for the
 * hostnames it holds: its spare's route was in place, to Services that selected no pod; its
 * identity names its customer.
 */
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
  /** Spares gated at the edge: a subdomain's route is written ahead of its bind. */
  private final BoundRoutes atEdge = new BoundRoutes(EdgeGateTest.AT_EDGE, routing, cluster, new Converger(writes), inFlight,
      2, registry);

  @AfterEach
  void close() {
    routes.close();
    atEdge.close();
  }

  @Test
  void boundWithoutSubdomainTheSparesRouteStaysAndItsExposedServicesAreOpenedOffTheCallersThread() {
    Tenant bound = bound("pool-a1b2c", null);

    routes.bound(bound);

    await().atMost(Duration.ofSeconds(5)).until(() -> outcomes().equals(Map.of("written", 1.0)));
    assertThat(writes.take()).as("no route to write: the edge has had it since the spare was made")
        .containsExactlyInAnyOrder("apply Service tenant-pool-a1b2c/app-web", "apply Service tenant-pool-a1b2c/app-api",
            "apply ConfigMap tenant-pool-a1b2c/tenant-identity");
    assertThat(selector("pool-a1b2c", "app-web")).doesNotContainKey(SpareGate.LABEL);
    assertThat(selector("pool-a1b2c", "app-api")).doesNotContainKey(SpareGate.LABEL);
    assertThat(cluster.get(ConfigMap.class, "tenant-pool-a1b2c", Names.IDENTITY).getData())
        .as("the first page names its customer").containsEntry("organization", "Acme Corp").containsEntry("state", "Active");
    assertThat(inFlight.holds("pool-a1b2c")).as("a plan made before the Services reached the cache: held").isTrue();
    assertThat(requeued).as("for a plan that sees them").containsExactly("pool-a1b2c");
    assertThat(inFlight.holds("pool-a1b2c")).isFalse();
  }

  @Test
  void boundWithASubdomainTheRouteIsRewrittenForTheHostnameItClaimed() {
    routes.write(bound("pool-e5f6g", "acme"), List.of());

    assertThat(writes.take()).containsExactlyInAnyOrder("apply HTTPRoute tenant-pool-e5f6g/tenant",
        "apply Service tenant-pool-e5f6g/app-web", "apply Service tenant-pool-e5f6g/app-api",
        "apply ConfigMap tenant-pool-e5f6g/tenant-identity");
    HTTPRoute route = cluster.get(HTTPRoute.class, "tenant-pool-e5f6g", RouteModel.NAME);
    assertThat(route.getSpec().getHostnames()).containsExactly("acme.tenants.example.com");
    assertThat(records.hostnameHolder("acme.tenants.example.com")).get()
        .satisfies(claim -> assertThat(claim.heldBy(new TenantRef("east", "pool-e5f6g", "uid-pool-e5f6g"))).isTrue());
  }

  @Test
  void aSyncHeldBackWhileTheWayInWasWrittenIsNotQueuedAgainButOneWhoseWayInWasNotWrittenIs() {
    Tenant bound = bound("pool-t3u4v", null);
    inFlight.started(bound); // What accept does before handing the write to a thread.
    assertThat(inFlight.holds("pool-t3u4v")).as("its sync, while the write is in flight").isTrue();
    routes.write(bound, List.of());
    assertThat(requeued).as("written: its watch events queue the tenant").isEmpty();

    Tenant spare = bound("pool-w5x6y", null);
    spare.getSpec().setState(TenantState.New);
    inFlight.started(spare);
    assertThat(inFlight.holds("pool-w5x6y")).isTrue();
    routes.write(spare, List.of());
    assertThat(requeued).as("only the tenant whose way in is its sync's to write after all").containsExactly("pool-w5x6y");
    assertThat(inFlight.holds("pool-w5x6y")).isFalse();
  }

  @Test
  void aWayInTheTenantsSyncOpenedAlreadyIsNotWrittenAgain() {
    Tenant bound = bound("pool-d3e4f", null);
    routes.write(bound, List.of());
    assertThat(writes.take()).hasSize(3);

    routes.write(bound, List.of());
    assertThat(writes.take()).isEmpty();
    assertThat(outcomes()).containsExactly(Map.entry("inPlace", 1.0), Map.entry("written", 1.0));
  }

  @Test
  void aHostnameAnotherTenantHoldsIsNeverRoutedNorItsServicesOpened() {
    records.claimHostname("acme.tenants.example.com", new TenantRef("west", "acme", "uid-west-acme"));

    routes.write(bound("pool-g5h6i", "acme"), List.of());

    assertThat(writes.take()).as("its only hostname is held elsewhere: nothing").isEmpty();
    assertThat(selector("pool-g5h6i", "app-web")).containsEntry(SpareGate.LABEL, SpareGate.CLOSED);
    assertThat(outcomes()).containsExactly(Map.entry("notRouted", 1.0));
  }

  @Test
  void aSpareIsNeverOpened() {
    Tenant spare = bound("pool-j7k8l", null);
    spare.getSpec().setState(TenantState.New);

    routes.write(spare, List.of());

    assertThat(writes.take()).isEmpty();
    assertThat(outcomes()).containsExactly(Map.entry("notRouted", 1.0));
  }

  @Test
  void aRefusedWriteIsLeftToTheSyncAndNothingIsThrown() {
    writes.refuse("Service tenant-pool-m9n0p/app-web", "admission webhook denied the request");

    routes.write(bound("pool-m9n0p", null), List.of());

    assertThat(selector("pool-m9n0p", "app-web")).containsEntry(SpareGate.LABEL, SpareGate.CLOSED);
    assertThat(outcomes()).containsExactly(Map.entry("failed", 1.0));
  }

  @Test
  void aTenantChangedAgainSinceTheBindOrDeletedIsLeftToItsSync() {
    Tenant bound = bound("pool-q1r2s", null);
    Tenant frozen = bound("pool-q1r2s", null);
    frozen.getSpec().setState(TenantState.Frozen);
    cluster.putTenant(frozen); // generation 2

    routes.write(bound, List.of());
    assertThat(writes.take()).as("frozen right after the bind").isEmpty();

    cluster.removeTenant("pool-q1r2s");
    routes.write(bound, List.of());
    assertThat(writes.take()).as("deleted").isEmpty();
    assertThat(outcomes()).containsExactly(Map.entry("stale", 2.0));
  }

  @Test
  void atTheEdgeASubdomainsRouteIsWrittenAheadOfItsBindBehindTheAskingGateAndItsIdentityOnlyOnceBound() {
    Tenant spare = gatedSpare("pool-u1v2w");
    Tenant binding = binding(spare, "acme");
    TenantRef ref = new TenantRef("east", "pool-u1v2w", "uid-pool-u1v2w");
    records.claimHostname("acme.tenants.example.com", ref); // By the allocation API, before the bind.

    atEdge.binding(spare, binding);

    await().atMost(Duration.ofSeconds(5)).until(() -> aheadOutcomes().equals(Map.of("written", 1.0)));
    assertThat(writes.take()).as("the route alone: the customer's name waits for the bind")
        .containsExactly("apply HTTPRoute tenant-pool-u1v2w/tenant");
    HTTPRoute route = cluster.get(HTTPRoute.class, "tenant-pool-u1v2w", RouteModel.NAME);
    assertThat(route.getSpec().getHostnames()).containsExactly("acme.tenants.example.com");
    assertThat(route.getSpec().getRules()).allSatisfy(rule -> assertThat(rule.getFilters())
        .anySatisfy(f -> assertThat(f.getExtensionRef().getName()).isEqualTo(EdgeGate.NAME)));
    assertThat(cluster.get(TraefikMiddleware.class, "tenant-pool-u1v2w", EdgeGate.NAME).getSpec().forwardAuth())
        .as("still asking the operator").isNotNull();
    assertThat(inFlight.holds("pool-u1v2w")).as("the spare's own sync leaves the route alone meanwhile").isTrue();

    Tenant bound = stored(binding);
    atEdge.bound(bound);

    await().atMost(Duration.ofSeconds(5)).until(() -> outcomes().equals(Map.of("written", 1.0)));
    assertThat(writes.take()).as("the route is not written a second time").containsExactly("apply ConfigMap tenant-pool-u1v2w/tenant-identity");
    assertThat(records.hostnameHolder("acme.tenants.example.com")).get()
        .as("claimed once, kept").satisfies(claim -> assertThat(claim.heldBy(ref)).isTrue());
    assertThat(requeued).as("bound: nothing handed back").isEmpty();
  }

  @Test
  void atTheEdgeABindThatFailsAfterItsRouteWasWrittenAheadHandsTheRouteBackToTheSparesSync() {
    Tenant spare = gatedSpare("pool-x3y4z");

    atEdge.binding(spare, binding(spare, "acme")).run();

    await().atMost(Duration.ofSeconds(5)).until(() -> requeued.contains("pool-x3y4z"));
    assertThat(aheadOutcomes()).containsEntry("written", 1.0).containsEntry("undone", 1.0);
    assertThat(inFlight.holds("pool-x3y4z")).as("its sync puts the spare's own route back").isFalse();
    assertThat(cluster.get(ConfigMap.class, "tenant-pool-x3y4z", Names.IDENTITY).getData())
        .as("nothing of the customer's was written").doesNotContainEntry("organization", "Acme Corp");
  }

  @Test
  void nothingIsWrittenAheadOfABindWithoutASubdomainNorWithoutAnAskingGate() {
    Tenant gated = gatedSpare("pool-a5b6c");
    atEdge.binding(gated, binding(gated, null)).run();
    Tenant spare = RouteModelTest.readySpare("pool-d7e8f");
    cluster.putTenant(spare);
    routes.binding(spare, binding(spare, "acme")).run();

    assertThat(writes.take()).as("no subdomain; Services gating the spare, not the edge").isEmpty();
    assertThat(aheadOutcomes()).isEmpty();
    assertThat(requeued).isEmpty();
  }

  /** tenantry_bound_routes_ahead_total by outcome, sorted, those above 0. */
  private Map<String, Double> aheadOutcomes() {
    Map<String, Double> counts = new TreeMap<>();
    registry.find("tenantry.bound.routes.ahead").counters().stream().filter(c -> c.count() > 0)
        .forEach(c -> counts.put(c.getId().getTag("outcome"), c.count()));
    return counts;
  }

  /** A Ready spare gated at the edge as its sync left it (its Middleware asking, its route through it, its Services open), in the cache. */
  private Tenant gatedSpare(String name) {
    Tenant spare = RouteModelTest.readySpare(name);
    spare.getSpec().setHostnames(List.of());
    TenantContext ctx = new TenantContext(spare, EdgeGateTest.AT_EDGE, EdgeGateTest.AT_EDGE.plans().get("standard"));
    cluster.putTenant(spare);
    routing.of(ctx, cluster).objects().forEach(cluster::putOwned);
    SpareGate.opened(ctx).forEach(cluster::putOwned); // Its Services select its pods: the edge gates it.
    cluster.putOwned(IdentityModel.configMap(ctx));
    assertThat(cluster.get(TraefikMiddleware.class, ctx.namespace(), EdgeGate.NAME)).as("the spare's gate").isNotNull();
    return spare;
  }

  /** The Tenant the allocation API's bind writes for {@code spare}: Active, its customer's, as SpareCluster makes it. */
  private static Tenant binding(Tenant spare, String subdomain) {
    Tenant binding = RouteModelTest.readySpare(spare.getMetadata().getName());
    binding.getSpec().setHostnames(List.of());
    binding.setStatus(null);
    binding.getSpec().setState(TenantState.Active);
    binding.getSpec().setOrganization("Acme Corp");
    binding.getSpec().setSubdomain(subdomain);
    binding.getMetadata().setAnnotations(Map.of(WellKnown.ALLOCATION_REQUEST, "signup-1"));
    return binding;
  }

  /** {@code binding} as the API server stores it, a generation on, and as the cache then shows it. */
  private Tenant stored(Tenant binding) {
    Tenant bound = RouteModelTest.readySpare(binding.getMetadata().getName());
    bound.setSpec(binding.getSpec());
    bound.getMetadata().setAnnotations(binding.getMetadata().getAnnotations());
    bound.getMetadata().setGeneration(2L);
    cluster.putTenant(bound);
    return bound;
  }

  /** tenantry_bound_routes_total by outcome, sorted, those above 0. */
  private Map<String, Double> outcomes() {
    Map<String, Double> counts = new TreeMap<>();
    registry.find("tenantry.bound.routes").counters().stream().filter(c -> c.count() > 0)
        .forEach(c -> counts.put(c.getId().getTag("outcome"), c.count()));
    return counts;
  }

  private Map<String, String> selector(String tenant, String service) {
    return cluster.get(Service.class, "tenant-" + tenant, service).getSpec().getSelector();
  }

  /**
   * A spare of pool "pool" as its sync left it (its route for its own name, its exposed Services
   * closed, its identity naming no one) and as the allocation API's bind stored it (Active, with the signup's subdomain or
   * none, generation 1), as the operator's cache holds them.
   */
  private Tenant bound(String name, String subdomain) {
    Tenant tenant = RouteModelTest.readySpare(name);
    tenant.getSpec().setHostnames(List.of());
    TenantContext spare = RouteModelTest.context(tenant);
    TenantRouting.Routes ahead = routing.of(spare, cluster);
    ahead.objects().forEach(cluster::putOwned);
    ahead.gate(spare, SpareGate.opened(spare)).forEach(cluster::putOwned);
    cluster.putOwned(IdentityModel.configMap(spare));
    tenant.getSpec().setState(TenantState.Active);
    tenant.getSpec().setOrganization("Acme Corp");
    tenant.getSpec().setSubdomain(subdomain);
    cluster.putTenant(tenant);
    return tenant;
  }
}
