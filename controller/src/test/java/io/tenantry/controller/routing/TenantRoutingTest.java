package io.tenantry.controller.routing;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.ConditionBuilder;
import io.fabric8.kubernetes.api.model.gatewayapi.v1.HTTPRoute;
import io.fabric8.kubernetes.api.model.gatewayapi.v1.HTTPRouteStatusBuilder;
import io.tenantry.api.WellKnown;
import io.tenantry.api.v1alpha1.Tenant;
import io.tenantry.api.v1alpha1.TenantPhase;
import io.tenantry.api.v1alpha1.TenantState;
import io.tenantry.controller.config.OperatorConfig;
import io.tenantry.controller.config.OperatorConfig.RoutingMode;
import io.tenantry.controller.fakes.FakeCluster;
import io.tenantry.controller.resources.TenantContext;
import io.tenantry.controller.status.Reason;
import io.tenantry.controller.status.RoutingStatus;
import io.tenantry.spares.fleet.FleetRecords;
import io.tenantry.spares.fleet.InMemoryFleetRecords;
import io.tenantry.spares.fleet.TenantRef;
import java.lang.reflect.Proxy;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * A spare claims its hostname while it waits and has its route then, gated, so the customer's
 * first sync asks the fleet records nothing and finds the route in place.
 */
class TenantRoutingTest {

  private final InMemoryFleetRecords records = new InMemoryFleetRecords();
  private final List<String> calls = new ArrayList<>();
  private final FleetRecords counted = (FleetRecords) Proxy.newProxyInstance(getClass().getClassLoader(),
      new Class<?>[] {FleetRecords.class}, (proxy, method, args) -> {
        calls.add(method.getName());
        return method.invoke(records, args);
      });
  private final TenantRouting routing = new TenantRouting(new FleetHostnameClaims(counted, "east"), RoutingMode.GATEWAY);

  @Test
  void aWaitingSpareHoldsItsNameAndHasItsRouteGatedThenItsFirstSyncBoundCallsNoOneAndKeepsTheRoute() {
    Tenant spare = spare("pool-x7k2q");

    TenantRouting.Routes waiting = routing.of(RouteModelTest.context(spare), new FakeCluster());
    assertThat(waiting.objects()).hasSize(1);
    assertThat(((HTTPRoute) waiting.objects().get(0)).getSpec().getHostnames()).containsExactly("pool-x7k2q.tenants.example.com");
    assertThat(waiting.gated()).as("its Services select no pod").isTrue();
    assertThat(waiting.status().applies()).as("no Routed condition while it waits").isFalse();
    assertThat(records.hostnameHolder("pool-x7k2q.tenants.example.com")).get()
        .satisfies(claim -> assertThat(claim.heldBy(new TenantRef("east", "pool-x7k2q", "uid-pool-x7k2q"))).isTrue());

    calls.clear();
    spare.getSpec().setState(TenantState.Active);
    TenantRouting.Routes bound = routing.of(RouteModelTest.context(spare), new FakeCluster());
    assertThat(bound.objects()).as("the same route, bound").isEqualTo(waiting.objects());
    assertThat(bound.gated()).isFalse();
    assertThat(bound.status().routed()).isTrue();
    assertThat(calls).as("fleet-record calls on the bound tenant's first sync").isEmpty();
  }

  @Test
  void boundWithASubdomainTheSpareLetsItsNameGoAndClaimsTheSubdomain() {
    Tenant spare = spare("pool-m3n8p");
    routing.of(RouteModelTest.context(spare), new FakeCluster());

    spare.getSpec().setState(TenantState.Active);
    spare.getSpec().setSubdomain("acme");
    TenantRouting.Routes bound = routing.of(RouteModelTest.context(spare), new FakeCluster());
    assertThat(bound.status().urls()).containsExactly("https://acme.tenants.example.com/");
    assertThat(records.hostnameHolder("acme.tenants.example.com")).isPresent();
    assertThat(records.hostnameHolder("pool-m3n8p.tenants.example.com")).as("the spare's name, let go").isEmpty();
  }

  @Test
  void boundWithASubdomainTheAllocationApiClaimedTheRouteDoesNotClaimItAgainButATenantNotKnownHereDoes() {
    Tenant spare = spare("pool-q4r5s");
    routing.of(RouteModelTest.context(spare), new FakeCluster());
    spare.getSpec().setState(TenantState.Active);
    spare.getSpec().setSubdomain("acme");
    // As the allocation API does before it binds the spare with the subdomain.
    records.claimHostname("acme.tenants.example.com", new TenantRef("east", "pool-q4r5s", "uid-pool-q4r5s"));
    routing.boundWithSubdomain(spare, RouteModelTest.ROUTED.routing());
    calls.clear();

    TenantRouting.Routes bound = routing.of(RouteModelTest.context(spare), new FakeCluster());
    assertThat(bound.status().urls()).containsExactly("https://acme.tenants.example.com/");
    assertThat(calls).as("fleet-record calls on its way in: the spare's name let go, nothing claimed")
        .containsExactly("releaseHostnames");

    Tenant unknown = spare("pool-u7v8w");
    unknown.getSpec().setState(TenantState.Active);
    unknown.getSpec().setSubdomain("other");
    records.claimHostname("other.tenants.example.com", new TenantRef("east", "pool-u7v8w", "uid-pool-u7v8w"));
    routing.boundWithSubdomain(unknown, RouteModelTest.ROUTED.routing());
    calls.clear();
    assertThat(routing.of(RouteModelTest.context(unknown), new FakeCluster()).status().urls())
        .containsExactly("https://other.tenants.example.com/");
    assertThat(calls).as("first seen here: its records adopted and its claims checked").contains("adopt", "claimHostname");
  }

  @Test
  void aSpareWhoseClaimFailsKeepsWhatRouteItHasAsksAgainAndItsFirstSyncBoundClaims() {
    Tenant spare = spare("pool-q9w4e");
    records.setAvailable(false);
    TenantRouting.Routes unclaimed = routing.of(RouteModelTest.context(spare), new FakeCluster());
    assertThat(unclaimed.objects()).isEmpty();
    assertThat(unclaimed.keep()).as("its route neither written nor deleted").isTrue();
    assertThat(unclaimed.claimAgain()).isTrue();
    assertThat(unclaimed.gated()).isTrue();

    records.setAvailable(true);
    spare.getSpec().setState(TenantState.Active);
    assertThat(routing.of(RouteModelTest.context(spare), new FakeCluster()).status().routed()).isTrue();
    assertThat(records.hostnameHolder("pool-q9w4e.tenants.example.com")).isPresent();
  }

  @Test
  void aSparesRouteTheGatewayRefusedIsSaidSoSinceItWouldNotServeOnceBound() {
    Tenant spare = spare("pool-r5t6y");
    FakeCluster cluster = new FakeCluster();
    HTTPRoute route = (HTTPRoute) routing.of(RouteModelTest.context(spare), cluster).objects().get(0);
    route.setStatus(new HTTPRouteStatusBuilder().addNewParent().withNewParentRef().withName("tenantry")
        .withNamespace("tenantry-edge").endParentRef()
        .addToConditions(new ConditionBuilder().withType("Accepted").withStatus("False").withReason("NotAllowedByListeners")
            .withObservedGeneration(1L).build())
        .endParent().build());
    cluster.putOwned(route);

    RoutingStatus status = routing.of(RouteModelTest.context(spare), cluster).status();
    assertThat(status.routed()).isFalse();
    assertThat(status.reason()).isEqualTo(Reason.RouteRefused);
    assertThat(status.urls()).as("a spare has no URL").isEmpty();
  }

  @Test
  void aSpareNotReadyYetClaimsItsNameButHasItsRouteOnlyOnceReadyAndKeepsItThroughARollout() {
    Tenant spare = spare("pool-b2c3d");
    spare.getStatus().setPhase(TenantPhase.Provisioning);
    TenantRouting.Routes starting = routing.of(RouteModelTest.context(spare), new FakeCluster());
    assertThat(starting.objects()).as("no route before its Service has a Ready pod").isEmpty();
    assertThat(starting.keep()).as("none deleted either").isTrue();
    assertThat(starting.claimAgain()).as("its Ready status brings the sync that writes it").isFalse();
    assertThat(records.hostnameHolder("pool-b2c3d.tenants.example.com")).as("claimed in its first sync").isPresent();

    spare.getStatus().setPhase(TenantPhase.Ready);
    assertThat(routing.of(RouteModelTest.context(spare), new FakeCluster()).objects()).hasSize(1);

    spare.getMetadata().setGeneration(2L); // A new version rolling out to the pool.
    TenantRouting.Routes rolling = routing.of(RouteModelTest.context(spare), new FakeCluster());
    assertThat(rolling.objects()).isEmpty();
    assertThat(rolling.keep()).as("the route it has stays while it rolls").isTrue();
  }

  @Test
  void onlyTheSparesNextInLineHaveTheirRouteWrittenAheadTheOthersKeepWhatTheyHave() {
    OperatorConfig twoAhead = RouteModelTest.ROUTED.with("{routing: {spareRoutesAhead: 2}}");
    FakeCluster cluster = new FakeCluster();
    List<Tenant> pool = new ArrayList<>();
    for (String name : List.of("pool-a1111", "pool-b2222", "pool-c3333")) {
      cluster.putTenant(spare(name)); // Created in this order: the first stands longest.
      pool.add(cluster.tenant(name));
    }
    Tenant third = pool.get(2);
    TenantRouting.Routes beyond = routing.of(new TenantContext(third, twoAhead, twoAhead.plans().get("standard")), cluster);
    assertThat(beyond.objects()).as("two Ready spares stand longer").isEmpty();
    assertThat(beyond.keep()).as("a route it had is not deleted").isTrue();
    assertThat(beyond.gated()).isTrue();
    assertThat(records.hostnameHolder("pool-c3333.tenants.example.com")).as("its name claimed all the same").isPresent();
    assertThat(routing.of(new TenantContext(pool.get(1), twoAhead, twoAhead.plans().get("standard")), cluster).objects())
        .as("the second in line").hasSize(1);

    Tenant first = pool.get(0);
    first.getSpec().setState(TenantState.Active); // Bound: the line moves up.
    first.getSpec().setOrganization("Acme");
    cluster.putTenant(first);
    assertThat(routing.of(new TenantContext(third, twoAhead, twoAhead.plans().get("standard")), cluster).objects()).hasSize(1);
  }

  @Test
  void theEdgeHasTakenABoundTenantsRouteOnceTheGatewayJudgedItAsItIsNowWithTheTenantsHostnames() {
    FakeCluster cluster = new FakeCluster();
    OperatorConfig config = RouteModelTest.ROUTED;
    Tenant tenant = spare("pool-e4d5g");
    cluster.putOwned(judged((HTTPRoute) routing.of(RouteModelTest.context(tenant), cluster).objects().get(0), 1));

    tenant.getSpec().setState(TenantState.Active);
    tenant.getSpec().setSubdomain("acme");
    tenant.getMetadata().setAnnotations(new HashMap<>(Map.of(WellKnown.ALLOCATION_REQUEST, "signup-1")));
    tenant.getStatus().setObservedState(TenantState.New);
    assertThat(routing.edgeTook(tenant, cluster, config)).as("bound, its first sync not run yet").isFalse();

    TenantRouting.Routes bound = routing.of(RouteModelTest.context(tenant), cluster);
    tenant.getStatus().setObservedState(TenantState.Active);
    tenant.getStatus().setUrls(bound.status().urls());
    assertThat(routing.edgeTook(tenant, cluster, config)).as("the cache shows the spare's route, without acme").isFalse();
    HTTPRoute route = (HTTPRoute) bound.objects().get(0);
    route.getMetadata().setGeneration(2L);
    cluster.putOwned(judged(route, 1));
    assertThat(routing.edgeTook(tenant, cluster, config)).as("judged at generation 1 only").isFalse();
    cluster.putOwned(judged(route, 2));
    assertThat(routing.edgeTook(tenant, cluster, config)).isTrue();

    tenant.getStatus().setUrls(List.of());
    cluster.removeOwned(route);
    assertThat(routing.edgeTook(tenant, cluster, config)).as("nothing routed: nothing to wait for").isTrue();
    tenant.getStatus().setObservedState(TenantState.New);
    assertThat(new TenantRouting(new FleetHostnameClaims(counted, "east"), RoutingMode.INGRESS).edgeTook(tenant, cluster, config))
        .as("no Gateway to judge an Ingress").isTrue();
  }

  /** {@code route} at its generation, as the Gateway accepted it at {@code observedGeneration}. */
  private static HTTPRoute judged(HTTPRoute route, long observedGeneration) {
    if (route.getMetadata().getGeneration() == null) {
      route.getMetadata().setGeneration(1L);
    }
    route.setStatus(new HTTPRouteStatusBuilder().addNewParent().withNewParentRef().withName("tenantry")
        .withNamespace("tenantry-edge").endParentRef()
        .addToConditions(new ConditionBuilder().withType("Accepted").withStatus("True").withReason("Accepted")
            .withObservedGeneration(observedGeneration).build())
        .endParent().build());
    return route;
  }

  @Test
  void aNewTenantOfNoPoolClaimsNothing() {
    Tenant tenant = RouteModelTest.acme();
    tenant.getMetadata().setUid("uid-acme");
    tenant.getSpec().setState(TenantState.New);
    routing.of(RouteModelTest.context(tenant), new FakeCluster());
    assertThat(calls).isEmpty();
  }

  private static Tenant spare(String name) {
    return RouteModelTest.readySpare(name);
  }
}
