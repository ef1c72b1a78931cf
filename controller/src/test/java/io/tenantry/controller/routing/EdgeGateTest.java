package io.tenantry.controller.routing;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.gatewayapi.v1.HTTPRoute;
import io.fabric8.kubernetes.api.model.gatewayapi.v1.HTTPRouteFilter;
import io.tenantry.api.WellKnown;
import io.tenantry.api.v1alpha1.Tenant;
import io.tenantry.api.v1alpha1.TenantState;
import io.tenantry.controller.config.OperatorConfig;
import io.tenantry.controller.config.OperatorConfig.RoutingMode;
import io.tenantry.controller.fakes.FakeCluster;
import io.tenantry.controller.resources.AppModel;
import io.tenantry.controller.resources.Labels;
import io.tenantry.controller.resources.TenantContext;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * With {@code routing.spareGate.mode: forwardAuth} a spare is kept from strangers at the edge: its
 * route goes through a Traefik Middleware that asks the operator, its Services are open, and once
 * bound and recorded the Middleware asks no one.
 */
class EdgeGateTest {

  static final OperatorConfig AT_EDGE = RouteModelTest.ROUTED.with(
      "{routing: {mode: gateway, spareGate: {mode: forwardAuth, forwardAuthAddress: 'http://tenantry.tenantry-system.svc:8080'}}}");

  private final TenantRouting routing = new TenantRouting(new ClusterHostnameClaims(new FakeCluster(), AT_EDGE.routing()),
      RoutingMode.GATEWAY);

  @Test
  void aWaitingSparesRouteAsksTheOperatorThroughItsMiddlewareAndItsServicesAreOpen() {
    Tenant spare = RouteModelTest.readySpare("pool-x7k2q");
    TenantContext ctx = context(spare);

    TenantRouting.Routes waiting = routing.of(ctx, new FakeCluster());

    assertThat(waiting.gated()).isTrue();
    HTTPRoute route = only(waiting.objects(), HTTPRoute.class);
    assertThat(route.getSpec().getHostnames()).containsExactly("pool-x7k2q.tenants.example.com");
    assertThat(route.getSpec().getRules()).as("every rule").isNotEmpty().allSatisfy(rule -> {
      assertThat(rule.getFilters()).hasSize(1);
      HTTPRouteFilter filter = rule.getFilters().get(0);
      assertThat(filter.getType()).isEqualTo("ExtensionRef");
      assertThat(filter.getExtensionRef().getGroup()).isEqualTo("traefik.io");
      assertThat(filter.getExtensionRef().getKind()).isEqualTo("Middleware");
      assertThat(filter.getExtensionRef().getName()).isEqualTo(EdgeGate.NAME);
    });
    TraefikMiddleware gate = only(waiting.objects(), TraefikMiddleware.class);
    assertThat(gate.getMetadata().getName()).isEqualTo(EdgeGate.NAME);
    assertThat(waiting.objects().indexOf(gate)).as("written before the route that names it")
        .isLessThan(waiting.objects().indexOf(route));
    assertThat(gate.getMetadata().getNamespace()).as("beside the route: an ExtensionRef names its own namespace's")
        .isEqualTo(route.getMetadata().getNamespace());
    assertThat(gate.getMetadata().getLabels()).containsEntry(Labels.TENANT, "pool-x7k2q");
    assertThat(gate.getSpec().forwardAuth().address()).isEqualTo("http://tenantry.tenantry-system.svc:8080/v1/gate/pool-x7k2q");
    assertThat(gate.getSpec().forwardAuth().maxResponseBodySize()).as("the edge reads a few bytes of an answer at most").isEqualTo(1024);
    assertThat(gate.getSpec().forwardAuth().trustForwardHeader()).as("no client's X-Forwarded-* reaches the gate").isFalse();

    List<HasMetadata> services = AppModel.exposed(ctx).stream().<HasMetadata>map(app -> AppModel.service(ctx, app)).toList();
    assertThat(waiting.gate(ctx, services)).as("open: the edge holds their endpoints before the signup").isEqualTo(services);
    assertThat(services).allSatisfy(s -> assertThat(((Service) s).getSpec().getSelector()).doesNotContainKey(SpareGate.LABEL));
  }

  @Test
  void justBoundItsRouteKeepsItsGateAskingUntilItsAllocationIsRecordedThenOpenAndASubdomainChangesOnlyItsHostnames() {
    Tenant tenant = RouteModelTest.readySpare("pool-x7k2q");
    FakeCluster cluster = new FakeCluster();
    List<HasMetadata> waiting = routing.of(context(tenant), cluster).objects();
    HTTPRoute gated = only(waiting, HTTPRoute.class);
    cluster.putOwned(gated);
    tenant.getSpec().setState(TenantState.Active);
    tenant.getSpec().setOrganization("Acme");
    tenant.getMetadata().setAnnotations(new HashMap<>(Map.of(WellKnown.ALLOCATION_REQUEST, "signup-1")));

    TenantRouting.Routes bound = routing.of(context(tenant), cluster);
    assertThat(bound.gated()).isFalse();
    assertThat(bound.objects()).as("nothing new for the edge to load during the burst").containsExactlyElementsOf(waiting);

    tenant.getSpec().setSubdomain("acme");
    List<HasMetadata> named = routing.of(context(tenant), cluster).objects();
    HTTPRoute renamed = only(named, HTTPRoute.class);
    assertThat(renamed.getSpec().getHostnames()).contains("acme." + AT_EDGE.routing().baseDomain());
    assertThat(renamed.getSpec().getRules()).isEqualTo(gated.getSpec().getRules());
    assertThat(only(named, TraefikMiddleware.class)).isEqualTo(only(waiting, TraefikMiddleware.class));

    tenant.getMetadata().getAnnotations().put(WellKnown.ALLOCATION_RECORDED, "true");
    List<HasMetadata> recorded = routing.of(context(tenant), cluster).objects();
    assertThat(only(recorded, HTTPRoute.class)).as("the burst over, no new route for the edge").isEqualTo(renamed);
    assertOpen(only(recorded, TraefikMiddleware.class));
  }

  @Test
  void aBoundTenantsGateStaysOpenOnceItHasOneAndNoneIsMadeForATenantThatNeverHadOne() {
    Tenant tenant = RouteModelTest.readySpare("pool-x7k2q");
    List<HasMetadata> waiting = routing.of(context(tenant), new FakeCluster()).objects();
    tenant.getSpec().setState(TenantState.Active);
    tenant.getSpec().setOrganization("Acme");

    FakeCluster routeCached = new FakeCluster();
    routeCached.putOwned(only(waiting, HTTPRoute.class));
    List<HasMetadata> bound = routing.of(context(tenant), routeCached).objects();
    assertThat(only(bound, HTTPRoute.class)).as("its route as cached names the gate, not yet cached itself")
        .isEqualTo(only(waiting, HTTPRoute.class));
    assertOpen(only(bound, TraefikMiddleware.class));
    assertThat(bound.indexOf(only(bound, TraefikMiddleware.class))).as("written first").isZero();

    FakeCluster gateCached = new FakeCluster();
    gateCached.putOwned(only(waiting, TraefikMiddleware.class));
    assertThat(routing.of(context(tenant), gateCached).objects()).as("a gate whose route an earlier version wrote without it")
        .containsExactlyElementsOf(bound);

    TenantRouting.Routes never = routing.of(context(tenant), new FakeCluster());
    assertThat(never.objects()).as("routed before it had a gate").hasSize(1);
    assertThat(only(never.objects(), HTTPRoute.class).getSpec().getRules()).allSatisfy(rule -> assertThat(rule.getFilters()).isEmpty());
    assertThat(routing.of(context(RouteModelTest.acme()), new FakeCluster()).objects()).as("a tenant made Active, never a spare")
        .noneMatch(EdgeGate::isGate);
  }

  @Test
  void aFrozenTenantKeepsItsOpenGateAndItsPausedRouteNamesNone() {
    Tenant tenant = RouteModelTest.readySpare("pool-x7k2q");
    List<HasMetadata> waiting = routing.of(context(tenant), new FakeCluster()).objects();
    tenant.getSpec().setState(TenantState.Frozen);
    tenant.getSpec().setOrganization("Acme");
    FakeCluster cluster = new FakeCluster();
    cluster.putOwned(only(waiting, TraefikMiddleware.class));

    List<HasMetadata> frozen = routing.of(context(tenant), cluster).objects();

    HTTPRoute paused = only(frozen, HTTPRoute.class);
    assertThat(paused.getMetadata().getName()).isEqualTo(RouteModel.pausedName("pool-x7k2q"));
    assertThat(paused.getSpec().getRules()).as("in the edge namespace, where no gate is").allSatisfy(rule -> assertThat(rule.getFilters()).isEmpty());
    assertOpen(only(frozen, TraefikMiddleware.class));
  }

  private static void assertOpen(TraefikMiddleware gate) {
    assertThat(gate.getMetadata().getName()).isEqualTo(EdgeGate.NAME);
    assertThat(gate.getSpec().forwardAuth()).as("asks no one").isNull();
    assertThat(gate.getSpec().headers().customRequestHeaders()).isEqualTo(Map.of(EdgeGate.OPEN_GATE_HEADER, ""));
  }

  @Test
  void theGateOpensForAnActiveTenantAskedForOneOfItsOwnHostnamesOnly() {
    OperatorConfig.Routing routing = AT_EDGE.routing();
    Tenant tenant = RouteModelTest.readySpare("pool-x7k2q");
    String own = "pool-x7k2q.tenants.example.com";
    assertThat(EdgeGateEndpoint.open(tenant, own, routing)).as("a spare").isFalse();
    tenant.getSpec().setState(TenantState.Active);
    assertThat(EdgeGateEndpoint.open(tenant, own, routing)).as("bound").isTrue();
    assertThat(EdgeGateEndpoint.open(tenant, "Pool-X7K2Q.tenants.example.com:8443", routing)).as("any case, with a port").isTrue();
    assertThat(EdgeGateEndpoint.open(tenant, "acme.tenants.example.com", routing))
        .as("a hostname it does not hold: a route written ahead of a bind that failed").isFalse();
    assertThat(EdgeGateEndpoint.open(tenant, null, routing)).as("no host").isFalse();
    tenant.getSpec().setSubdomain("acme");
    assertThat(EdgeGateEndpoint.open(tenant, "acme.tenants.example.com", routing)).as("its subdomain").isTrue();
    assertThat(EdgeGateEndpoint.open(tenant, own, routing)).as("its name, no longer its hostname").isFalse();
    tenant.getSpec().setHostnames(List.of("shop.acme.com"));
    assertThat(EdgeGateEndpoint.open(tenant, "shop.acme.com", routing)).as("its own domain").isTrue();
    tenant.getSpec().setState(TenantState.Frozen);
    assertThat(EdgeGateEndpoint.open(tenant, "acme.tenants.example.com", routing))
        .as("frozen: its paused route answers, not this one").isFalse();
    tenant.getSpec().setState(TenantState.Active);
    tenant.getMetadata().setDeletionTimestamp(Instant.EPOCH.toString());
    assertThat(EdgeGateEndpoint.open(tenant, "acme.tenants.example.com", routing)).as("being deleted").isFalse();
    assertThat(EdgeGateEndpoint.open(null, own, routing)).as("unknown").isFalse();
  }

  private static TenantContext context(Tenant tenant) {
    return new TenantContext(tenant, AT_EDGE, AT_EDGE.plans().get("standard"));
  }

  private static <T> T only(List<HasMetadata> objects, Class<T> kind) {
    List<T> found = objects.stream().filter(kind::isInstance).map(kind::cast).toList();
    assertThat(found).hasSize(1);
    return found.get(0);
  }
}
