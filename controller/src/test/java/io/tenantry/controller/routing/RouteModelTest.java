package io.tenantry.controller.routing;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.gatewayapi.v1.HTTPRoute;
import io.fabric8.kubernetes.api.model.gatewayapi.v1.HTTPRouteRule;
import io.fabric8.kubernetes.api.model.networking.v1.Ingress;
import io.tenantry.api.WellKnown;
import io.tenantry.api.v1alpha1.AppRoute;
import io.tenantry.api.v1alpha1.AppSpec;
import io.tenantry.api.v1alpha1.Tenant;
import io.tenantry.api.v1alpha1.TenantPhase;
import io.tenantry.api.v1alpha1.TenantState;
import io.tenantry.api.v1alpha1.TenantStatus;
import io.tenantry.controller.config.OperatorConfig;
import io.tenantry.controller.config.OperatorConfig.RoutingMode;
import io.tenantry.controller.operator.OperatorHarness;
import io.tenantry.controller.resources.TenantContext;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class RouteModelTest {

  static final OperatorConfig ROUTED = OperatorConfig.defaults().with("""
      routing: {baseDomain: tenants.example.com, ingress: {className: nginx, tls: true,
                annotations: {cert-manager.io/cluster-issuer: letsencrypt}}}
      """);
  private static final List<String> HOSTNAMES = List.of("acme.tenants.example.com", "shop.acme.example");

  /** acme: "web" on / (port 8080), "api" on /api and /v2 (port 9090), "worker" not exposed. */
  static Tenant acme() {
    Tenant tenant = OperatorHarness.tenant("acme", 1, false);
    AppSpec api = new AppSpec("api", "registry.example.com/acme/api", "1.0.0", 1, 9090);
    api.setRoutes(List.of(new AppRoute("/api"), new AppRoute("/v2")));
    tenant.getSpec().getApps().add(api);
    tenant.getSpec().getApps().add(new AppSpec("worker", "registry.example.com/acme/worker", "1.0.0", 1, 9091));
    return tenant;
  }

  /**
   * acme as a spare of pool "pool" named {@code name}: unallocated, and Ready at its generation 1
   * (its route is written from then on).
   */
  static Tenant readySpare(String name) {
    Tenant spare = acme();
    spare.getMetadata().setName(name);
    spare.getMetadata().setUid("uid-" + name);
    spare.getMetadata().setGeneration(1L);
    spare.getMetadata().setLabels(new HashMap<>(Map.of(WellKnown.SPARE_POOL, "pool")));
    spare.getSpec().setState(TenantState.New);
    spare.getSpec().setOrganization(null);
    spare.getSpec().setEmail(null);
    spare.setStatus(new TenantStatus());
    spare.getStatus().setPhase(TenantPhase.Ready);
    spare.getStatus().setObservedGeneration(1L);
    return spare;
  }

  static TenantContext context(Tenant tenant) {
    return new TenantContext(tenant, ROUTED, ROUTED.plans().get("standard"));
  }

  @Test
  void anActiveTenantsHttpRouteSendsEachExposedAppsPrefixesToItsServiceOnTheSharedGateway() {
    List<HasMetadata> objects = RouteModel.active(context(acme()), RoutingMode.GATEWAY, HOSTNAMES);
    HTTPRoute route = (HTTPRoute) objects.get(0);
    assertThat(objects).hasSize(1);
    assertThat(route.getMetadata().getNamespace()).isEqualTo("tenant-acme");
    assertThat(route.getMetadata().getName()).isEqualTo("tenant");
    assertThat(route.getMetadata().getLabels()).containsEntry("tenantry.io/tenant", "acme");
    assertThat(route.getSpec().getParentRefs()).singleElement().satisfies(parent -> {
      assertThat(parent.getKind()).isEqualTo("Gateway");
      assertThat(parent.getNamespace()).isEqualTo("tenantry-edge");
      assertThat(parent.getName()).isEqualTo("tenantry");
      assertThat(parent.getSectionName()).isNull();
    });
    assertThat(route.getSpec().getHostnames()).isEqualTo(HOSTNAMES);
    assertThat(route.getSpec().getRules()).extracting(RouteModelTest::describe)
        .containsExactly("[/] -> app-web:8080", "[/api, /v2] -> app-api:9090");
  }

  @Test
  void anActiveTenantsIngressHasARulePerHostnameTlsAndTheConfiguredClassAndAnnotations() {
    Ingress ingress = (Ingress) RouteModel.active(context(acme()), RoutingMode.INGRESS, HOSTNAMES).get(0);
    assertThat(ingress.getMetadata().getName()).isEqualTo("tenant");
    assertThat(ingress.getMetadata().getAnnotations()).containsEntry("cert-manager.io/cluster-issuer", "letsencrypt");
    assertThat(ingress.getSpec().getIngressClassName()).isEqualTo("nginx");
    assertThat(ingress.getSpec().getRules()).extracting(r -> r.getHost()).isEqualTo(HOSTNAMES);
    assertThat(ingress.getSpec().getRules().get(1).getHttp().getPaths())
        .extracting(p -> p.getPath() + " " + p.getPathType() + " -> " + p.getBackend().getService().getName() + ":"
            + p.getBackend().getService().getPort().getNumber())
        .containsExactly("/ Prefix -> app-web:8080", "/api Prefix -> app-api:9090", "/v2 Prefix -> app-api:9090");
    assertThat(ingress.getSpec().getTls()).singleElement().satisfies(tls -> {
      assertThat(tls.getHosts()).isEqualTo(HOSTNAMES);
      assertThat(tls.getSecretName()).isEqualTo("tenant-tls");
    });
  }

  @Test
  void aFrozenTenantsHostnamesGoToThePausedBackendFromTheEdgeNamespace() {
    HTTPRoute route = (HTTPRoute) RouteModel.paused(context(acme()), RoutingMode.GATEWAY, HOSTNAMES).get(0);
    assertThat(route.getMetadata().getNamespace()).isEqualTo("tenantry-edge");
    assertThat(route.getMetadata().getName()).isEqualTo("paused-acme");
    assertThat(route.getMetadata().getLabels()).containsEntry("tenantry.io/tenant", "acme");
    assertThat(route.getSpec().getHostnames()).isEqualTo(HOSTNAMES);
    assertThat(route.getSpec().getRules()).extracting(RouteModelTest::describe).containsExactly("[/] -> tenantry-paused:80");

    Ingress ingress = (Ingress) RouteModel.paused(context(acme()), RoutingMode.INGRESS, HOSTNAMES).get(0);
    assertThat(ingress.getMetadata().getNamespace()).isEqualTo("tenantry-edge");
    assertThat(ingress.getSpec().getRules().get(0).getHttp().getPaths().get(0).getBackend().getService().getName())
        .isEqualTo("tenantry-paused");
    assertThat(ingress.getSpec().getTls().get(0).getSecretName()).isEqualTo("paused-acme-tls");
  }

  @Test
  void withoutExposedAppsOrHostnamesThereIsNoRoute() {
    Tenant hidden = acme();
    hidden.getSpec().getApps().forEach(a -> a.setRoutes(List.of()));
    assertThat(RouteModel.active(context(hidden), RoutingMode.GATEWAY, HOSTNAMES)).isEmpty();
    assertThat(RouteModel.active(context(acme()), RoutingMode.GATEWAY, List.of())).isEmpty();
    assertThat(RouteModel.paused(context(acme()), RoutingMode.GATEWAY, List.of())).isEmpty();
  }

  @Test
  void hostnamesPutTheSubdomainFirstAndRepeatNothing() {
    Tenant tenant = acme();
    assertThat(Hostnames.of(tenant, ROUTED.routing())).containsExactly("acme.tenants.example.com");
    tenant.getSpec().setSubdomain("shop");
    tenant.getSpec().setHostnames(List.of("shop.acme.example", "shop.tenants.example.com"));
    assertThat(Hostnames.of(tenant, ROUTED.routing())).containsExactly("shop.tenants.example.com", "shop.acme.example");
    assertThat(Hostnames.urls(Hostnames.of(tenant, ROUTED.routing()), ROUTED.routing()))
        .containsExactly("https://shop.tenants.example.com/", "https://shop.acme.example/");
    assertThat(Hostnames.of(tenant, OperatorConfig.defaults().routing())).as("no baseDomain: routing is off").isEmpty();
  }

  private static String describe(HTTPRouteRule rule) {
    return rule.getMatches().stream().map(m -> m.getPath().getValue()).toList() + " -> "
        + rule.getBackendRefs().get(0).getName() + ":" + rule.getBackendRefs().get(0).getPort();
  }
}
