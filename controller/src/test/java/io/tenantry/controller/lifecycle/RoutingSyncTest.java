package io.tenantry.controller.lifecycle;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.ConditionBuilder;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServiceBuilder;
import io.fabric8.kubernetes.api.model.gatewayapi.v1.HTTPRoute;
import io.fabric8.kubernetes.api.model.gatewayapi.v1.HTTPRouteBuilder;
import io.fabric8.kubernetes.api.model.gatewayapi.v1.HTTPRouteStatusBuilder;
import io.fabric8.kubernetes.api.model.networking.v1.Ingress;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.tenantry.api.WellKnown;
import io.tenantry.api.v1alpha1.Tenant;
import io.tenantry.api.v1alpha1.TenantState;
import io.tenantry.controller.config.OperatorConfig.RoutingMode;
import io.tenantry.controller.queue.SyncResult;
import io.tenantry.controller.routing.SpareGate;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** A tenant's route through its lifecycle, and hostname claims between tenants of one cluster. */
class RoutingSyncTest {

  private static final String CONFIG = "{routing: {baseDomain: tenants.example.com}}";

  private final SyncFixture gateway = new SyncFixture(10, CONFIG, RoutingMode.GATEWAY);

  @Test
  void anActiveTenantIsRoutedToItsExposedAppsAndSaysWhere() {
    Tenant acme = gateway.provisioned("acme");
    HTTPRoute route = gateway.cluster.get(HTTPRoute.class, "tenant-acme", "tenant");
    assertThat(route.getSpec().getHostnames()).containsExactly("acme.tenants.example.com");
    assertThat(route.getSpec().getRules().get(0).getBackendRefs().get(0).getName()).isEqualTo("app-web");
    assertThat(acme.getStatus().getUrls()).containsExactly("https://acme.tenants.example.com/");
    assertThat(routed(acme)).isEqualTo("True Routed routed to web by HTTPRoute tenant");
    gateway.sync("acme");
    assertThat(gateway.writes.take()).as("a routed, converged tenant costs nothing").isEmpty();
  }

  @Test
  void aJustBoundTenantsSyncLeavesItsRouteToTheBindsThreadAndWritesItWhenThatFails() {
    gateway.tenant("acme");
    gateway.sync("acme"); // finalizer
    gateway.boundRoutes.started(gateway.cluster.tenant("acme"));

    gateway.sync("acme");
    assertThat(gateway.writes.take()).as("everything but the route and identity the bind is writing")
        .contains("create Deployment tenant-acme/app-web").noneMatch(w -> w.contains("HTTPRoute") || w.contains("tenant-identity"));
    assertThat(gateway.requeued).isEmpty();

    gateway.boundRoutes.notWritten("acme"); // Refused by the API server, say.
    assertThat(gateway.requeued).as("queued again, since its sync held the route back").containsExactly("acme");
    gateway.sync("acme");
    assertThat(gateway.writes.take()).contains("create HTTPRoute tenant-acme/tenant", "create ConfigMap tenant-acme/tenant-identity");
  }

  @Test
  void aRouteTheBindWroteIsNotAppliedAgainByTheSyncOnceTheCacheShowsIt() {
    gateway.provisioned("acme");
    HTTPRoute route = gateway.cluster.get(HTTPRoute.class, "tenant-acme", "tenant");
    gateway.cluster.removeOwned(route); // As if the tenant were bound just now, its route not written yet.
    gateway.boundRoutes.started(gateway.cluster.tenant("acme"));
    gateway.sync("acme");
    gateway.boundRoutes.written("acme", List.of(asWritten(route)));
    gateway.sync("acme"); // Before the route's watch event.
    assertThat(gateway.writes.take()).noneMatch(w -> w.contains("HTTPRoute"));

    gateway.cluster.putOwned(route); // Its watch event, which queues the tenant.
    gateway.sync("acme");
    assertThat(gateway.writes.take()).as("applied once, by the bind's thread").noneMatch(w -> w.contains("HTTPRoute"));
    await().during(SyncFixture.BOUND_ROUTE_UNSEEN.multipliedBy(2)).atMost(Duration.ofSeconds(2))
        .until(() -> gateway.requeued.isEmpty());
  }

  @Test
  void aWrittenRouteTheCacheNeverShowsIsWrittenByTheSync() {
    gateway.provisioned("acme");
    HTTPRoute route = gateway.cluster.get(HTTPRoute.class, "tenant-acme", "tenant");
    gateway.cluster.removeOwned(route);
    gateway.boundRoutes.started(gateway.cluster.tenant("acme"));
    gateway.boundRoutes.written("acme", List.of(asWritten(route))); // And deleted before its watch event came.
    gateway.sync("acme");
    assertThat(gateway.writes.take()).noneMatch(w -> w.contains("HTTPRoute"));

    await().atMost(Duration.ofSeconds(2)).until(() -> gateway.requeued.equals(List.of("acme")));
    gateway.sync("acme");
    assertThat(gateway.writes.take()).contains("create HTTPRoute tenant-acme/tenant");
  }

  @Test
  void aSyncPlannedFromTheTenantBeforeItsBindDoesNotDeleteTheRouteTheBindWrote() throws InterruptedException {
    gateway.provisioned("acme");
    HTTPRoute route = gateway.cluster.get(HTTPRoute.class, "tenant-acme", "tenant");
    gateway.edit("acme", t -> t.getSpec().setState(TenantState.Frozen));
    gateway.sync("acme");
    gateway.writes.take();
    // Made Active again by a bind whose Tenant the cache has not seen yet, while its route already is.
    Tenant bound = Serialization.clone(gateway.cluster.tenant("acme"));
    bound.getMetadata().setGeneration(bound.getMetadata().getGeneration() + 1);
    gateway.boundRoutes.started(bound);
    gateway.boundRoutes.written("acme", List.of(asWritten(route)));
    gateway.cluster.putOwned(route);

    gateway.sync("acme");
    assertThat(gateway.writes.take()).as("planned from the Frozen tenant").doesNotContain("delete HTTPRoute tenant-acme/tenant");
    Thread.sleep(SyncFixture.BOUND_ROUTE_UNSEEN.multipliedBy(2).toMillis()); // The Tenant's watch event later than that.
    gateway.sync("acme");
    assertThat(gateway.writes.take()).as("still waiting for the bound Tenant").doesNotContain("delete HTTPRoute tenant-acme/tenant");

    gateway.edit("acme", t -> t.getSpec().setState(TenantState.Active)); // Its watch event queues the tenant.
    gateway.sync("acme");
    gateway.sync("acme");
    assertThat(gateway.writes.take()).contains("delete HTTPRoute tenantry-edge/paused-acme")
        .noneMatch(w -> w.contains("HTTPRoute tenant-acme/tenant"));
    assertThat(gateway.cluster.get(HTTPRoute.class, "tenant-acme", "tenant")).isNotNull();
  }

  @Test
  void aRouteTheGatewayRefusesIsSaidSoUntilItIsAccepted() {
    gateway.provisioned("acme");
    HTTPRoute route = gateway.cluster.get(HTTPRoute.class, "tenant-acme", "tenant");
    route.setStatus(new HTTPRouteStatusBuilder().addNewParent().withControllerName("traefik.io/gateway-controller")
        .withNewParentRef().withName("tenantry").withNamespace("tenantry-edge").endParentRef()
        .addToConditions(new ConditionBuilder().withType("Accepted").withStatus("False").withReason("NotAllowedByListeners")
            .withMessage("no listener admits namespace tenant-acme").withObservedGeneration(1L).build())
        .endParent().build());
    gateway.cluster.putOwned(route);
    gateway.sync("acme");
    assertThat(routed(gateway.cluster.tenant("acme"))).isEqualTo("False RouteRefused Gateway tenantry-edge/tenantry refused"
        + " HTTPRoute tenant-acme/tenant: Accepted=False NotAllowedByListeners: no listener admits namespace tenant-acme");
    assertThat(gateway.cluster.tenant("acme").getStatus().getUrls()).containsExactly("https://acme.tenants.example.com/");

    route.getStatus().getParents().get(0).getConditions().get(0).setStatus("True");
    gateway.cluster.putOwned(route);
    gateway.sync("acme");
    assertThat(routed(gateway.cluster.tenant("acme"))).isEqualTo("True Routed routed to web by HTTPRoute tenant");
  }

  @Test
  void frozenIsAnsweredByThePausedBackendArchivedIsNotRoutedAndPurgingDeletesTheEdgeRoute() {
    gateway.provisioned("acme");
    gateway.edit("acme", t -> t.getSpec().setState(TenantState.Frozen));
    gateway.sync("acme");
    assertThat(gateway.writes.take()).contains("delete HTTPRoute tenant-acme/tenant", "create HTTPRoute tenantry-edge/paused-acme");
    Tenant frozen = gateway.cluster.tenant("acme");
    assertThat(routed(frozen)).isEqualTo("True Paused answered by the paused backend tenantry-paused in tenantry-edge");
    assertThat(frozen.getStatus().getUrls()).containsExactly("https://acme.tenants.example.com/");

    gateway.edit("acme", t -> t.getSpec().setState(TenantState.Archived));
    gateway.sync("acme");
    assertThat(gateway.writes.take()).contains("delete HTTPRoute tenantry-edge/paused-acme");
    Tenant archived = gateway.cluster.tenant("acme");
    assertThat(archived.getStatus().getConditions()).noneMatch(c -> c.getType().equals("Routed"));
    assertThat(archived.getStatus().getUrls()).isNull();

    gateway.edit("acme", t -> t.getSpec().setState(TenantState.Active));
    gateway.sync("acme");
    gateway.edit("acme", t -> t.getSpec().setState(TenantState.Frozen));
    gateway.sync("acme");
    gateway.edit("acme", t -> t.getSpec().setState(TenantState.Purged));
    gateway.writes.take();
    gateway.sync("acme");
    assertThat(gateway.writes.take()).contains("delete HTTPRoute tenantry-edge/paused-acme");
  }

  @Test
  void aHostnameHeldByAnotherTenantIsNotRoutedAndTheClaimDoesNotFlap() {
    Tenant acme = gateway.provisioned("acme");
    gateway.edit("acme", t -> t.getSpec().setHostnames(List.of("shop.example.com")));
    gateway.sync("acme");
    gateway.tenant("bob");
    gateway.edit("bob", t -> t.getSpec().setHostnames(List.of("shop.example.com")));
    gateway.sync("bob");
    gateway.sync("bob");
    gateway.cluster.rollOut("bob");
    SyncResult next = gateway.sync("bob");

    Tenant bob = gateway.cluster.tenant("bob");
    assertThat(routed(bob)).isEqualTo("False HostnameConflict shop.example.com is held by tenant acme;"
        + " routed: https://bob.tenants.example.com/");
    assertThat(bob.getStatus().getUrls()).containsExactly("https://bob.tenants.example.com/");
    assertThat(gateway.cluster.get(HTTPRoute.class, "tenant-bob", "tenant").getSpec().getHostnames())
        .containsExactly("bob.tenants.example.com");
    assertThat(next).as("asked again later, in case acme lets it go").isEqualTo(SyncResult.after(Duration.ofSeconds(60)));
    assertThat(gateway.cluster.get(HTTPRoute.class, "tenant-acme", "tenant").getSpec().getHostnames())
        .containsExactly("acme.tenants.example.com", "shop.example.com");

    // acme lets it go: bob gets it on its next look.
    gateway.edit("acme", t -> t.getSpec().setHostnames(List.of()));
    gateway.sync("acme");
    gateway.sync("bob");
    assertThat(routed(gateway.cluster.tenant("bob"))).startsWith("True Routed");
    assertThat(gateway.cluster.get(HTTPRoute.class, "tenant-bob", "tenant").getSpec().getHostnames())
        .containsExactly("bob.tenants.example.com", "shop.example.com");
    // acme, the older tenant, asks for it back: bob serves it now, so bob keeps it.
    gateway.edit("acme", t -> t.getSpec().setHostnames(List.of("shop.example.com")));
    gateway.sync("acme");
    assertThat(routed(gateway.cluster.tenant("acme"))).startsWith("False HostnameConflict shop.example.com is held by tenant bob");
    assertThat(acme.getMetadata().getCreationTimestamp()).isLessThan(gateway.cluster.tenant("bob").getMetadata().getCreationTimestamp());
  }

  @Test
  void inIngressModeTheRouteIsAnIngressAndWithoutRoutedAppsNothingIsExposed() {
    SyncFixture ingress = new SyncFixture(10, CONFIG, RoutingMode.INGRESS);
    ingress.provisioned("acme");
    assertThat(ingress.cluster.get(Ingress.class, "tenant-acme", "tenant").getSpec().getRules().get(0).getHost())
        .isEqualTo("acme.tenants.example.com");
    ingress.edit("acme", t -> t.getSpec().getApps().get(0).setRoutes(List.of()));
    ingress.sync("acme");
    assertThat(ingress.writes.take()).contains("delete Ingress tenant-acme/tenant", "delete NetworkPolicy tenant-acme/allow-from-edge");
    assertThat(routed(ingress.cluster.tenant("acme"))).isEqualTo("False NotExposed no app has spec.apps[].routes, so nothing is routed");
  }

  @Test
  void aSparesRouteIsWrittenAheadToServicesThatSelectNoPodAndBindingItOpensThemWithoutTouchingTheRoute() {
    spare("spare");
    HTTPRoute route = gateway.cluster.get(HTTPRoute.class, "tenant-spare", "tenant");
    assertThat(route.getSpec().getHostnames()).containsExactly("spare.tenants.example.com");
    assertThat(selector("spare")).containsEntry(SpareGate.LABEL, "until-bound");
    Tenant waiting = gateway.cluster.tenant("spare");
    assertThat(waiting.getStatus().getConditions()).as("not routed, and not failing").extracting(Condition::getType)
        .doesNotContain("Routed");
    assertThat(waiting.getStatus().getUrls()).isNull();
    gateway.sync("spare");
    assertThat(gateway.writes.take()).as("a converged spare costs nothing").isEmpty();

    gateway.edit("spare", t -> t.getSpec().setState(TenantState.Active));
    gateway.sync("spare");
    assertThat(gateway.writes.take()).contains("apply Service tenant-spare/app-web").noneMatch(w -> w.contains("HTTPRoute"));
    assertThat(selector("spare")).doesNotContainKey(SpareGate.LABEL);
    assertThat(routed(gateway.cluster.tenant("spare"))).isEqualTo("True Routed routed to web by HTTPRoute tenant");
  }

  @Test
  void aConvergedSpareBeyondTheLineHasItsRouteWrittenOnceABindMovesItIntoTheLine() {
    SyncFixture oneAhead = new SyncFixture(10, "{routing: {baseDomain: tenants.example.com, spareRoutesAhead: 1}}",
        RoutingMode.GATEWAY);
    spare(oneAhead, "first");
    spare(oneAhead, "second");
    assertThat(oneAhead.cluster.get(HTTPRoute.class, "tenant-first", "tenant")).isNotNull();
    assertThat(oneAhead.cluster.get(HTTPRoute.class, "tenant-second", "tenant")).as("second in line").isNull();
    oneAhead.sync("second");
    assertThat(oneAhead.writes.take()).as("converged as far as it goes").isEmpty();

    oneAhead.edit("first", t -> {
      t.getSpec().setState(TenantState.Active);
      t.getSpec().setOrganization("Acme");
    });
    oneAhead.sync("second"); // Queued by the SparePool controller; nothing of its own changed.
    assertThat(oneAhead.writes.take()).contains("create HTTPRoute tenant-second/tenant");
  }

  @Test
  void aSyncPlannedFromTheSpareWhileItsBindOpensItsServicesDoesNotCloseThemAgain() {
    spare("spare");
    Tenant asSpare = gateway.cluster.tenant("spare");
    Tenant bound = gateway.edit("spare", t -> t.getSpec().setState(TenantState.Active));
    gateway.boundRoutes.started(bound);
    Service opened = gateway.cluster.putOwned(new ServiceBuilder(gateway.cluster.get(Service.class, "tenant-spare", "app-web"))
        .editSpec().removeFromSelector(SpareGate.LABEL).endSpec().build());
    gateway.boundRoutes.written("spare", List.of(asWritten(opened)));
    // The cache as it was before the bind's watch event: the spare, at its generation.
    gateway.cluster.putTenant(asSpare).getMetadata().setGeneration(asSpare.getMetadata().getGeneration());

    gateway.sync("spare");
    assertThat(gateway.writes.take()).noneMatch(w -> w.contains("Service tenant-spare/app-web"));
    assertThat(selector("spare")).doesNotContainKey(SpareGate.LABEL);
  }

  @Test
  void aSyncPlannedBeforeTheBindsWayInReachedTheCacheWritesNoneOfItAndIsQueuedAgain() {
    spare("spare");
    Tenant bound = gateway.edit("spare", t -> {
      t.getSpec().setState(TenantState.Active);
      t.getSpec().setSubdomain("acme");
    });
    gateway.boundRoutes.started(bound);
    // The sync plans from the cache before them; the bind's thread writes its route, Service and
    // identity and the cache shows them while the sync writes what comes first: its namespace.
    gateway.writes.beforeWriting("Namespace tenant-spare", () -> {
      HTTPRoute route = gateway.cluster.putOwned(new HTTPRouteBuilder(gateway.cluster.get(HTTPRoute.class, "tenant-spare", "tenant"))
          .editSpec().withHostnames("acme.tenants.example.com").endSpec().build());
      Service opened = gateway.cluster.putOwned(new ServiceBuilder(gateway.cluster.get(Service.class, "tenant-spare", "app-web"))
          .editSpec().removeFromSelector(SpareGate.LABEL).endSpec().build());
      ConfigMap identity = gateway.cluster.putOwned(
          new ConfigMapBuilder(gateway.cluster.get(ConfigMap.class, "tenant-spare", "tenant-identity")).addToData("state", "Active").build());
      gateway.boundRoutes.written("spare", List.of(asWritten(route), asWritten(opened), asWritten(identity)));
    });

    gateway.sync("spare");
    assertThat(gateway.writes.take()).as("one answer for the whole sync").contains("apply Namespace tenant-spare")
        .noneMatch(RoutingSyncTest::wayIn);
    assertThat(gateway.requeued).as("for a plan that sees them").containsExactly("spare");
    gateway.sync("spare");
    assertThat(gateway.writes.take()).noneMatch(RoutingSyncTest::wayIn);
  }

  private static boolean wayIn(String write) {
    return write.contains("HTTPRoute") || write.contains("Service tenant-spare/app-web") || write.contains("tenant-identity");
  }

  @Test
  void tenantsNotInAPoolAndTenantsWithoutRoutingHaveNoRouteAndNoCondition() {
    gateway.tenant("new");
    gateway.edit("new", t -> t.getSpec().setState(TenantState.New));
    gateway.sync("new");
    gateway.sync("new");
    assertThat(gateway.cluster.get(HTTPRoute.class, "tenant-new", "tenant")).isNull();
    assertThat(selector("new")).doesNotContainKey(SpareGate.LABEL);
    Tenant plain = new SyncFixture().provisioned("plain");
    assertThat(plain.getStatus().getConditions()).extracting(Condition::getType).doesNotContain("Routed");
  }

  /** A Ready spare of pool "pool", as its syncs left it. */
  private void spare(String name) {
    spare(gateway, name);
  }

  private static void spare(SyncFixture gateway, String name) {
    gateway.tenant(name);
    gateway.edit(name, t -> {
      t.getSpec().setState(TenantState.New);
      t.getSpec().setOrganization(null);
      t.getSpec().setEmail(null);
      t.getMetadata().setLabels(new HashMap<>(Map.of(WellKnown.SPARE_POOL, "pool")));
    });
    gateway.sync(name); // finalizer
    gateway.sync(name); // objects
    gateway.cluster.rollOut(name);
    gateway.sync(name); // status: Ready
    assertThat(gateway.cluster.get(HTTPRoute.class, "tenant-" + name, "tenant")).as("no route before it is Ready").isNull();
    gateway.sync(name); // its route
    gateway.writes.take();
  }

  /** {@code cached} as the bind wrote it: without what the API server adds. */
  private static <T extends HasMetadata> T asWritten(T cached) {
    T written = Serialization.clone(cached);
    written.getMetadata().setResourceVersion(null);
    written.getMetadata().setUid(null);
    written.getMetadata().setGeneration(null);
    written.getMetadata().setCreationTimestamp(null);
    return written;
  }

  private Map<String, String> selector(String tenant) {
    return gateway.cluster.get(Service.class, "tenant-" + tenant, "app-web").getSpec().getSelector();
  }

  private static String routed(Tenant tenant) {
    Condition c = tenant.getStatus().getConditions().stream().filter(x -> x.getType().equals("Routed")).findFirst().orElseThrow();
    return c.getStatus() + " " + c.getReason() + " " + c.getMessage();
  }
}
