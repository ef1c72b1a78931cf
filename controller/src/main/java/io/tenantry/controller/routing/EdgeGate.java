package io.tenantry.controller.routing;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.gatewayapi.v1.HTTPRoute;
import io.fabric8.kubernetes.api.model.gatewayapi.v1.HTTPRouteBuilder;
import io.fabric8.kubernetes.api.model.gatewayapi.v1.HTTPRouteFilter;
import io.fabric8.kubernetes.api.model.gatewayapi.v1.HTTPRouteFilterBuilder;
import io.fabric8.kubernetes.api.model.gatewayapi.v1.HTTPRouteRule;
import io.fabric8.kubernetes.api.model.gatewayapi.v1.HTTPRouteRuleBuilder;
import io.tenantry.api.Spares;
import io.tenantry.controller.cache.ClusterView;
import io.tenantry.controller.resources.TenantContext;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Pure: a spare kept from strangers at the edge ({@code routing.spareGate.mode: forwardAuth})
 * rather than by its Services ({@link SpareGate}). Its Services select its pods from the start, so
 * the edge holds its endpoints long before a signup; its HTTPRoute sends every request first to
 * the Traefik Middleware {@link #NAME} in its namespace, a forwardAuth that asks the operator
 * ({@link #PATH}{@code <tenant>}): 404 while a spare, 200 once bound. Binding thus changes nothing
 * the edge has to load before the customer's first page ({@link #kept}). After the signups' burst
 * the Middleware becomes one that asks no one, so that the tenant's traffic stops asking the
 * operator; the route keeps naming it. No operator answering, no spare served: Traefik answers a
 * failed forwardAuth with an error, never with the app.
 */
public final class EdgeGate {

  /** The Middleware's name in a spare's namespace. */
  public static final String NAME = "tenantry-gate";
  /** Where the operator answers the edge: {@code /v1/gate/<tenant>}. */
  public static final String PATH = "/v1/gate/";
  /**
   * The request header the open gate removes. Traefik has no Middleware that does nothing; a
   * headers Middleware is evaluated in the edge's process, per request, with no call out.
   */
  static final String OPEN_GATE_HEADER = "X-Tenantry-Gate";

  private static final String TRAEFIK_GROUP = "traefik.io";
  /** The gate's answers are a few bytes; Traefik reads no more of one than this. */
  private static final long MAX_ANSWER_BYTES = 1024;

  private EdgeGate() {
  }

  /** A spare's {@code route} (as {@link RouteModel#active} makes it) behind its gate, which asks the operator. */
  public static List<HasMetadata> gated(TenantContext ctx, List<HasMetadata> route) {
    return gated(route, asking(ctx));
  }

  /**
   * A bound tenant's {@code objects} behind its gate once it has one (or its route still names it):
   * the route stays as the spare had it, but for a subdomain's hostnames, so the edge, busy with a
   * burst of signups, loads no new route for a bind without one. The gate asks the operator (which
   * answers 200 since the bind) while {@code asking}, through the burst (until the allocation's
   * fleet record: {@link Spares#unrecorded}); then it is open, a change
   * the edge loads without a new route or a verdict to write. A tenant never gated (made Active
   * directly, or routed before this mode was chosen) keeps its route as it is, without one.
   */
  public static List<HasMetadata> kept(TenantContext ctx, ClusterView view, List<HasMetadata> objects, boolean asking) {
    HTTPRoute route = view.get(HTTPRoute.class, ctx.namespace(), RouteModel.NAME);
    if (view.get(TraefikMiddleware.class, ctx.namespace(), NAME) == null && (route == null || !names(route))) {
      return objects;
    }
    return gated(objects, asking ? asking(ctx) : open(ctx));
  }

  /**
   * The gate, then {@code route} with every rule of the tenant's own routes through it (a Frozen
   * tenant's paused route is in the edge namespace, and an ExtensionRef names a Middleware of its
   * route's namespace). In that order because objects are written in order: a router the edge
   * loads before the Middleware it names answers an error ("middleware ... does not exist") until
   * the edge's next build.
   */
  private static List<HasMetadata> gated(List<HasMetadata> route, TraefikMiddleware gate) {
    if (route.isEmpty()) {
      return route;
    }
    List<HasMetadata> objects = new ArrayList<>();
    objects.add(gate);
    route.forEach(o -> objects.add(o instanceof HTTPRoute r
        && r.getMetadata().getNamespace().equals(gate.getMetadata().getNamespace()) ? filtered(r) : o));
    return objects;
  }

  /** Whether {@code object} is a tenant's gate. */
  public static boolean isGate(HasMetadata object) {
    return object instanceof TraefikMiddleware && NAME.equals(object.getMetadata().getName());
  }

  /** The gate asking the operator about this tenant: a forwardAuth. */
  static TraefikMiddleware asking(TenantContext ctx) {
    return middleware(ctx, new TraefikMiddleware.Spec(new TraefikMiddleware.ForwardAuth(
        ctx.config().routing().spareGate().forwardAuthAddress() + PATH + ctx.name(), MAX_ANSWER_BYTES, false), null));
  }

  /** The gate open: passes every request on, asking no one. */
  static TraefikMiddleware open(TenantContext ctx) {
    return middleware(ctx, new TraefikMiddleware.Spec(null, new TraefikMiddleware.Headers(Map.of(OPEN_GATE_HEADER, ""))));
  }

  private static TraefikMiddleware middleware(TenantContext ctx, TraefikMiddleware.Spec spec) {
    TraefikMiddleware middleware = new TraefikMiddleware(spec);
    middleware.setMetadata(ctx.meta(NAME));
    return middleware;
  }

  /** Whether {@code route} sends its requests through the gate. */
  private static boolean names(HTTPRoute route) {
    return route.getSpec() != null && route.getSpec().getRules() != null && route.getSpec().getRules().stream()
        .filter(rule -> rule.getFilters() != null).flatMap(rule -> rule.getFilters().stream())
        .anyMatch(f -> f.getExtensionRef() != null && TRAEFIK_GROUP.equals(f.getExtensionRef().getGroup())
            && NAME.equals(f.getExtensionRef().getName()));
  }

  private static HTTPRoute filtered(HTTPRoute route) {
    HTTPRouteFilter gate = new HTTPRouteFilterBuilder().withType("ExtensionRef")
        .withNewExtensionRef().withGroup(TRAEFIK_GROUP).withKind("Middleware").withName(NAME).endExtensionRef().build();
    List<HTTPRouteRule> rules = route.getSpec().getRules().stream()
        .map(rule -> new HTTPRouteRuleBuilder(rule).addToFilters(gate).build()).toList();
    return new HTTPRouteBuilder(route).editSpec().withRules(rules).endSpec().build();
  }
}
