package io.tenantry.controller.routing;

import static net.logstash.logback.argument.StructuredArguments.kv;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.gatewayapi.v1.HTTPRoute;
import io.tenantry.api.Spares;
import io.tenantry.api.WellKnown;
import io.tenantry.api.v1alpha1.AppSpec;
import io.tenantry.api.v1alpha1.Tenant;
import io.tenantry.api.v1alpha1.TenantState;
import io.tenantry.controller.cache.ClusterView;
import io.tenantry.controller.config.OperatorConfig;
import io.tenantry.controller.config.OperatorConfig.RoutingMode;
import io.tenantry.controller.resources.AppModel;
import io.tenantry.controller.resources.Names;
import io.tenantry.controller.resources.TenantContext;
import io.tenantry.controller.status.Reason;
import io.tenantry.controller.status.RoutingStatus;
import java.net.URI;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A tenant's part of the edge: its hostnames are claimed ({@link HostnameClaims}) before any
 * route names them, then routed to its apps while Active, to the paused page while Frozen, and
 * not at all otherwise; the route of a spare next in line for a signup is written ahead, to
 * Services that select no pod until it is bound ({@link SpareGate}), or behind a gate at the edge
 * that opens when it is bound ({@link EdgeGate}).
 */
public final class TenantRouting {

  /**
   * The tenant's route objects and what its status says of them. {@code claimAgain}: a hostname is
   * held by another tenant, or could not be claimed just now. {@code gated}: a spare's, whose
   * exposed Services stay closed ({@link SpareGate}). {@code keep}: a spare whose hostname could not
   * be claimed, that is not Ready or not next in line, keeps the route it has, neither written nor deleted.
   */
  public record Routes(List<HasMetadata> objects, RoutingStatus status, boolean claimAgain, boolean gated, boolean keep) {
    static final Routes NONE = new Routes(List.of(), RoutingStatus.NONE, false, false, false);

    /** {@code desired} as this tenant's routing wants it: a spare's exposed Services closed, unless the edge gates it. */
    public List<HasMetadata> gate(TenantContext ctx, List<HasMetadata> desired) {
      return gated && ctx.config().routing().spareGate().mode() == OperatorConfig.SpareGateMode.SERVICE
          ? SpareGate.closed(ctx, desired) : desired;
    }
  }

  private static final Logger LOG = LoggerFactory.getLogger(TenantRouting.class);

  private final HostnameClaims claims;
  private final RoutingMode mode;

  /** @param mode gateway or ingress (auto resolved at start); none routes nothing */
  public TenantRouting(HostnameClaims claims, RoutingMode mode) {
    this.claims = claims;
    this.mode = mode;
  }

  /** The allocation API in this process bound {@code bound} with its subdomain, whose hostname it claimed first. */
  public void boundWithSubdomain(Tenant bound, OperatorConfig.Routing routing) {
    claims.claimedOnBind(bound, Hostnames.of(bound, routing).get(0));
  }

  /** @param view where the tenant's routes are read back: their Gateway's verdict is in their status */
  public Routes of(TenantContext ctx, ClusterView view) {
    OperatorConfig.Routing routing = ctx.config().routing();
    TenantState state = ctx.tenant().getSpec().getState();
    if (mode == RoutingMode.NONE || !routing.enabled()) {
      return Routes.NONE;
    }
    if (state == TenantState.New && isSpare(ctx.tenant())) {
      return spare(ctx, view, routing);
    }
    if (state != TenantState.Active && state != TenantState.Frozen) {
      return Routes.NONE;
    }
    List<String> wanted = Hostnames.of(ctx.tenant(), routing);
    Map<String, String> heldByOthers = claims.claim(ctx.tenant(), wanted);
    List<String> held = wanted.stream().filter(h -> !heldByOthers.containsKey(h)).toList();
    List<String> urls = Hostnames.urls(held, routing);
    List<AppSpec> exposed = AppModel.exposed(ctx);
    List<HasMetadata> objects = state == TenantState.Frozen ? RouteModel.paused(ctx, mode, held) : RouteModel.active(ctx, mode, held);
    if (routing.spareGate().mode() == OperatorConfig.SpareGateMode.FORWARD_AUTH) {
      // A bound spare's gate: asking the operator (which lets it through) during the signups' burst, then open.
      objects = EdgeGate.kept(ctx, view, objects, state == TenantState.Active && Spares.unrecorded(ctx.tenant()));
    }
    RoutingStatus status;
    if (!heldByOthers.isEmpty()) {
      status = RoutingStatus.of(false, Reason.HostnameConflict, heldByOthers.entrySet().stream()
          .map(e -> e.getKey() + " is held by " + e.getValue()).collect(Collectors.joining("; "))
          + (urls.isEmpty() ? "" : "; routed: " + String.join(", ", urls)), objects.isEmpty() ? List.of() : urls);
    } else if (state == TenantState.Frozen) {
      status = RoutingStatus.of(true, Reason.Paused, "answered by the paused backend " + routing.pausedBackend().service()
          + " in " + ctx.config().edgeNamespace(), urls);
    } else if (exposed.isEmpty()) {
      status = RoutingStatus.of(false, Reason.NotExposed, "no app has spec.apps[].routes, so nothing is routed", List.of());
    } else {
      status = RoutingStatus.of(true, Reason.Routed, "routed to " + exposed.stream().map(AppSpec::getName)
          .collect(Collectors.joining(", ")) + " by " + (mode == RoutingMode.GATEWAY ? "HTTPRoute" : "Ingress") + " " + RouteModel.NAME, urls);
    }
    if (status.routed()) {
      Optional<String> refused = refusal(ctx, view, objects);
      if (refused.isPresent()) {
        status = RoutingStatus.of(false, Reason.RouteRefused, refused.get(), urls);
      }
    }
    return new Routes(objects, status, !heldByOthers.isEmpty(), false, false);
  }

  /**
   * A spare claims the hostname its name gives it while it waits, and the spares next in line for a
   * signup have their route written then, gated ({@link SpareGate}): bound without a subdomain, the
   * edge has had its route for a while and the bind only opens its Services; its first sync finds
   * the claim held and asks no one (with fleet records: an adoption, a release and a transaction
   * fewer on the customer's path). No Routed condition while it waits, unless the Gateway refused
   * its route (it would not serve once bound). A claim that fails keeps the route as it is and is
   * asked again later; the bind then writes what is missing.
   *
   * <p>Which spares: those Ready, by default all of them: a stream of signups as long as the buffer
   * then costs the Gateway no new route. With {@code routing.spareRoutesAhead} set, only the pool's
   * first N in the allocation API's order ({@link Spares#isNextInLine}): fewer routes for the Gateway
   * to walk on each of its builds, but once a stream has used up the line each further signup costs
   * it a new route while the stream lasts (a line of 128 was used up in 13 s at 10 signups/s, and
   * most of the rest were never served; docs/benchmarks.md). The SparePool controller queues the spares
   * that binds moved into the line, once the signups pause. Not before it is Ready: a route the Gateway loads before
   * its Service's EndpointSlice exists is refused and then accepted (two status writes in the
   * Gateway's build, a Routed flap here). Outside the line, and through a rollout of the spare,
   * the route it has is kept (neither written nor deleted).
   */
  private Routes spare(TenantContext ctx, ClusterView view, OperatorConfig.Routing routing) {
    Tenant spare = ctx.tenant();
    List<String> wanted = Hostnames.of(spare, routing);
    Map<String, String> heldByOthers;
    try {
      heldByOthers = claims.claim(spare, wanted);
    } catch (RuntimeException e) {
      LOG.info("spare's hostname not claimed ahead; asked again later, or by its first sync as a tenant {} {}",
          kv("tenant", spare.getMetadata().getName()), kv("error", e.toString()));
      return new Routes(List.of(), RoutingStatus.NONE, true, true, true);
    }
    if (!Spares.isNextInLine(spare, view.spares(Spares.pool(spare)), routing.routesAhead())) {
      return new Routes(List.of(), RoutingStatus.NONE, !heldByOthers.isEmpty(), true, true);
    }
    List<String> held = wanted.stream().filter(h -> !heldByOthers.containsKey(h)).toList();
    List<HasMetadata> objects = RouteModel.active(ctx, mode, held);
    if (routing.spareGate().mode() == OperatorConfig.SpareGateMode.FORWARD_AUTH) {
      objects = EdgeGate.gated(ctx, objects);
    }
    RoutingStatus status = refusal(ctx, view, objects)
        .map(refused -> RoutingStatus.of(false, Reason.RouteRefused, refused, List.of())).orElse(RoutingStatus.NONE);
    return new Routes(objects, status, !heldByOthers.isEmpty(), true, false);
  }

  private static boolean isSpare(Tenant tenant) {
    return tenant.getMetadata().getLabels() != null && tenant.getMetadata().getLabels().containsKey(WellKnown.SPARE_POOL);
  }

  /** The Gateway's refusal of one of the tenant's HTTPRoutes as last written, if any. */
  private static Optional<String> refusal(TenantContext ctx, ClusterView view, List<HasMetadata> objects) {
    return objects.stream().filter(HTTPRoute.class::isInstance)
        .map(o -> view.get(HTTPRoute.class, o.getMetadata().getNamespace(), o.getMetadata().getName()))
        .map(route -> GatewayVerdict.refusal(route, ctx.config().edgeNamespace(), ctx.config().routing().gateway().name()))
        .flatMap(Optional::stream).findFirst();
  }

  /**
   * Whether the edge has taken {@code tenant}'s route as it is now: the Gateway judged the route at its
   * current generation, which names every hostname of the tenant's URLs. Not while a just-bound tenant's
   * first sync has not run (its route, a subdomain's new one, may be on its way); always when no Gateway
   * routes it (ingress, routing off, a tenant without URLs).
   */
  public boolean edgeTook(Tenant tenant, ClusterView view, OperatorConfig config) {
    if (mode != RoutingMode.GATEWAY || !config.routing().enabled()) {
      return true;
    }
    if (Spares.justBound(tenant)) {
      return false;
    }
    List<String> urls = tenant.getStatus() == null || tenant.getStatus().getUrls() == null ? List.of() : tenant.getStatus().getUrls();
    if (urls.isEmpty()) {
      return true;
    }
    HTTPRoute route = view.get(HTTPRoute.class, Names.namespace(config.namespacePrefix(), tenant.getMetadata().getName()),
        RouteModel.NAME);
    return route != null && route.getSpec() != null && route.getSpec().getHostnames() != null
        && urls.stream().map(url -> URI.create(url).getHost()).allMatch(route.getSpec().getHostnames()::contains)
        && GatewayVerdict.given(route, config.edgeNamespace(), config.routing().gateway().name());
  }

  /** Lets go of a purged tenant's hostnames. */
  public void release(String tenant) {
    claims.release(tenant);
  }
}
