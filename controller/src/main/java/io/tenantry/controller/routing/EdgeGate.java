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

/**
 * Pure: a spare kept from strangers at the edge ({@code routing.spareGate.mode: forwardAuth})
 * rather than by its Services ({@link SpareGate}). Its Services select its pods from the start, so
 * the edge holds its endpoints long before a signup; its HTTPRoute sends every request first to
 * the Traefik Middleware {@link #NAME} in its namespace, a forwardAuth that asks the operator
 * ({@link #PATH}{@code <tenant>}): 404 while a spare, 200 once bound. Binding thus changes nothing
 * the edge has to load before the customer's first page ({@link #keptOnBind}). After the signups'
 * burst the tenant's route is written without the filter, so that its traffic stops asking the
 * operator (the gated route serves meanwhile); the Middleware stays, unused ({@link #kept}).
 * No operator answering, no spare served: Traefik answers a failed forwardAuth with an error,
 * never with the app.
 */
public final class EdgeGate {

  /** The Middleware's name in a spare's namespace. */
  public static final String NAME = "tenantry-gate";
  /** Where the operator answers the edge: {@code /v1/gate/<tenant>}. */
  public static final String PATH = "/v1/gate/";

  private static final String TRAEFIK_GROUP = "traefik.io";
  /** The gate's answers are a few bytes; Traefik reads no more of one than this. */
  private static final long MAX_ANSWER_BYTES = 1024;

  private EdgeGate() {
  }

  /** {@code route} (a spare's, as {@link RouteModel#active} makes it) behind the gate, and the gate. */
  public static List<HasMetadata> gated(TenantContext ctx, List<HasMetadata> route) {
    if (route.isEmpty()) {
      return route;
    }
    List<HasMetadata> objects = new ArrayList<>();
    route.forEach(o -> objects.add(o instanceof HTTPRoute r ? filtered(r) : o));
    objects.add(middleware(ctx));
    return objects;
  }

  /**
   * A bound tenant's {@code objects} with its gate kept once it has one (or its route still names
   * it), also after its route is written without it. Traefik writes a route's verdict before it
   * reloads the route's routers, so no verdict tells when the edge stops asking the gate, and a
   * router naming a Middleware that is gone answers 404: deleted once the rewritten route was
   * accepted, the gate cost a just-bound customer such a 404 (EdgeGateTrafficIT, Traefik's log
   * "middleware ... does not exist"). Unused, it is one small entry in the edge's configuration; it
   * goes with the tenant's namespace.
   */
  public static List<HasMetadata> kept(TenantContext ctx, ClusterView view, List<HasMetadata> objects) {
    HTTPRoute route = view.get(HTTPRoute.class, ctx.namespace(), RouteModel.NAME);
    if (view.get(TraefikMiddleware.class, ctx.namespace(), NAME) == null && (route == null || !names(route))) {
      return objects;
    }
    List<HasMetadata> kept = new ArrayList<>(objects);
    kept.add(middleware(ctx));
    return kept;
  }

  /**
   * The just-bound tenant's {@code objects} while its spare's route is gated: still through the
   * gate, which opened with the bind. Bound without a subdomain, the route stays as the edge has it;
   * with one, only its hostnames change. The edge, busy with a burst of signups, thus loads no route
   * but those of new hostnames; the gate comes off once the burst is over (with the work it held,
   * the allocation's fleet record: {@link Spares#unrecorded}), or at once with
   * {@code allocation.holdDuringSignupBursts} off.
   */
  public static List<HasMetadata> keptOnBind(TenantContext ctx, ClusterView view, List<HasMetadata> objects) {
    HTTPRoute route = view.get(HTTPRoute.class, ctx.namespace(), RouteModel.NAME);
    return route == null || !names(route) ? kept(ctx, view, objects) : gated(ctx, objects.stream().filter(o -> !isGate(o)).toList());
  }

  /** Whether {@code object} is a tenant's gate. */
  public static boolean isGate(HasMetadata object) {
    return object instanceof TraefikMiddleware && NAME.equals(object.getMetadata().getName());
  }

  /** The forwardAuth Middleware that asks the operator about this tenant. */
  static TraefikMiddleware middleware(TenantContext ctx) {
    TraefikMiddleware middleware = new TraefikMiddleware(new TraefikMiddleware.Spec(new TraefikMiddleware.ForwardAuth(
        ctx.config().routing().spareGate().forwardAuthAddress() + PATH + ctx.name(), MAX_ANSWER_BYTES, false)));
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
