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
 * bound its route loses the filter and the Middleware goes.
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
  void boundItsRouteLosesTheFilterAndTheMiddlewareIsNoLongerWanted() {
    Tenant spare = RouteModelTest.readySpare("pool-x7k2q");
    TenantRouting.Routes waiting = routing.of(context(spare), new FakeCluster());
    spare.getSpec().setState(TenantState.Active);
    spare.getSpec().setOrganization("Acme");

    TenantRouting.Routes bound = routing.of(context(spare), new FakeCluster());

    assertThat(bound.gated()).isFalse();
    assertThat(bound.objects()).hasSize(1);
    HTTPRoute route = only(bound.objects(), HTTPRoute.class);
    assertThat(route.getSpec().getRules()).allSatisfy(rule -> assertThat(rule.getFilters()).isEmpty());
    assertThat(route.getSpec().getHostnames()).as("the same host").isEqualTo(only(waiting.objects(), HTTPRoute.class)
        .getSpec().getHostnames());
  }

  @Test
  void justBoundItsRouteKeepsTheOpenGateUntilItsAllocationIsRecordedAndASubdomainChangesOnlyItsHostnames() {
    Tenant tenant = RouteModelTest.readySpare("pool-x7k2q");
    FakeCluster cluster = new FakeCluster();
    List<HasMetadata> waiting = routing.of(context(tenant), cluster).objects();
    HTTPRoute gated = only(waiting, HTTPRoute.class);
    cluster.putOwned(gated);
    tenant.getSpec().setState(TenantState.Active);
    tenant.getSpec().setOrganization("Acme");
    tenant.getMetadata().setAnnotations(new HashMap<>(Map.of(WellKnown.ALLOCATION_REQUEST, "signup-1")));

    assertThat(routing.of(context(tenant), cluster).objects()).as("nothing new for the edge to load during the burst")
        .containsExactlyInAnyOrderElementsOf(waiting);

    tenant.getSpec().setSubdomain("acme");
    List<HasMetadata> named = routing.of(context(tenant), cluster).objects();
    HTTPRoute renamed = only(named, HTTPRoute.class);
    assertThat(renamed.getSpec().getHostnames()).contains("acme." + AT_EDGE.routing().baseDomain());
    assertThat(renamed.getSpec().getRules()).isEqualTo(gated.getSpec().getRules());
    assertThat(named).anySatisfy(o -> assertThat(EdgeGate.isGate(o)).isTrue());

    tenant.getMetadata().getAnnotations().put(WellKnown.ALLOCATION_RECORDED, "true");
    assertThat(only(routing.of(context(tenant), cluster).objects(), HTTPRoute.class).getSpec().getRules())
        .as("the burst over, the gate comes off").allSatisfy(rule -> assertThat(rule.getFilters()).isEmpty());
  }

  @Test
  void aBoundTenantsGateStaysBesideItsRouteOnceItHasOneAndNoneIsMadeForATenantThatNeverHadOne() {
    Tenant tenant = RouteModelTest.readySpare("pool-x7k2q");
    FakeCluster cluster = new FakeCluster();
    List<HasMetadata> waiting = routing.of(context(tenant), cluster).objects();
    HTTPRoute gated = only(waiting, HTTPRoute.class);
    tenant.getSpec().setState(TenantState.Active);
    tenant.getSpec().setOrganization("Acme");
    cluster.putOwned(gated);
    assertThat(routing.of(context(tenant), cluster).objects()).as("its route as cached names the gate, not yet cached itself")
        .anySatisfy(o -> assertThat(EdgeGate.isGate(o)).isTrue());

    HTTPRoute rewritten = only(routing.of(context(tenant), cluster).objects(), HTTPRoute.class);
    cluster.putOwned(rewritten);
    waiting.stream().filter(EdgeGate::isGate).forEach(cluster::putOwned);
    List<HasMetadata> bound = routing.of(context(tenant), cluster).objects();
    assertThat(only(bound, HTTPRoute.class).getSpec().getRules()).allSatisfy(rule -> assertThat(rule.getFilters()).isEmpty());
    assertThat(bound).as("unused, kept: the edge may still have a router naming it").anySatisfy(o -> assertThat(EdgeGate.isGate(o)).isTrue());

    Tenant direct = RouteModelTest.acme();
    assertThat(routing.of(context(direct), new FakeCluster()).objects()).as("a tenant made Active, never a spare").noneMatch(EdgeGate::isGate);
  }

  @Test
  void theGateOpensForAnActiveTenantOnly() {
    Tenant tenant = RouteModelTest.readySpare("pool-x7k2q");
    assertThat(EdgeGateEndpoint.open(tenant)).as("a spare").isFalse();
    tenant.getSpec().setState(TenantState.Active);
    assertThat(EdgeGateEndpoint.open(tenant)).as("bound").isTrue();
    tenant.getSpec().setState(TenantState.Frozen);
    assertThat(EdgeGateEndpoint.open(tenant)).as("frozen: its paused route answers, not this one").isFalse();
    tenant.getSpec().setState(TenantState.Active);
    tenant.getMetadata().setDeletionTimestamp(Instant.EPOCH.toString());
    assertThat(EdgeGateEndpoint.open(tenant)).as("being deleted").isFalse();
    assertThat(EdgeGateEndpoint.open(null)).as("unknown").isFalse();
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
