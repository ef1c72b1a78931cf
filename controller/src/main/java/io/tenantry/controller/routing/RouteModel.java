package io.tenantry.controller.routing;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.api.model.gatewayapi.v1.HTTPBackendRefBuilder;
import io.fabric8.kubernetes.api.model.gatewayapi.v1.HTTPRoute;
import io.fabric8.kubernetes.api.model.gatewayapi.v1.HTTPRouteBuilder;
import io.fabric8.kubernetes.api.model.gatewayapi.v1.HTTPRouteMatchBuilder;
import io.fabric8.kubernetes.api.model.gatewayapi.v1.HTTPRouteRule;
import io.fabric8.kubernetes.api.model.gatewayapi.v1.HTTPRouteRuleBuilder;
import io.fabric8.kubernetes.api.model.networking.v1.HTTPIngressPath;
import io.fabric8.kubernetes.api.model.networking.v1.HTTPIngressPathBuilder;
import io.fabric8.kubernetes.api.model.networking.v1.Ingress;
import io.fabric8.kubernetes.api.model.networking.v1.IngressBuilder;
import io.fabric8.kubernetes.api.model.networking.v1.IngressSpecBuilder;
import io.tenantry.api.v1alpha1.AppRoute;
import io.tenantry.api.v1alpha1.AppSpec;
import io.tenantry.controller.config.OperatorConfig;
import io.tenantry.controller.config.OperatorConfig.RoutingMode;
import io.tenantry.controller.resources.AppModel;
import io.tenantry.controller.resources.Names;
import io.tenantry.controller.resources.TenantContext;
import java.util.ArrayList;
import java.util.List;

/**
 * Pure: the route from the edge to a tenant, for the hostnames it holds. An Active tenant's
 * route ({@link #NAME}, in its namespace) sends each app's path prefixes to the app's Service; a
 * Frozen tenant's route (in the edge namespace, beside the paused backend, so no cross-namespace
 * grant is needed) sends everything to the paused page. As an HTTPRoute on the shared Gateway, or
 * an Ingress.
 */
public final class RouteModel {

  /** The name of an Active tenant's route in its namespace. */
  public static final String NAME = "tenant";
  /** The TLS Secret an Ingress names (cert-manager makes it from the Ingress's annotations). */
  public static final String TLS_SECRET = "tenant-tls";

  private static final String GATEWAY_GROUP = "gateway.networking.k8s.io";

  private RouteModel() {
  }

  /** The route to the tenant's exposed apps; none when no app has routes. */
  public static List<HasMetadata> active(TenantContext ctx, RoutingMode mode, List<String> hostnames) {
    List<AppSpec> exposed = AppModel.exposed(ctx);
    if (hostnames.isEmpty() || exposed.isEmpty()) {
      return List.of();
    }
    ObjectMeta meta = ctx.meta(NAME);
    return List.of(mode == RoutingMode.GATEWAY ? httpRoute(ctx, meta, hostnames, exposed) : ingress(ctx, meta, hostnames, exposed));
  }

  /** The route of a Frozen tenant's hostnames to the paused backend, in the edge namespace. */
  public static List<HasMetadata> paused(TenantContext ctx, RoutingMode mode, List<String> hostnames) {
    if (hostnames.isEmpty()) {
      return List.of();
    }
    OperatorConfig config = ctx.config();
    OperatorConfig.PausedBackend backend = config.routing().pausedBackend();
    ObjectMeta meta = new ObjectMetaBuilder(ctx.meta(pausedName(ctx.name()))).withNamespace(config.edgeNamespace()).build();
    if (mode == RoutingMode.GATEWAY) {
      return List.of(new HTTPRouteBuilder().withMetadata(meta).withNewSpec()
          .withParentRefs(parent(config)).withHostnames(hostnames)
          .withRules(rule("/", backend.service(), backend.port()))
          .endSpec().build());
    }
    return List.of(new IngressBuilder().withMetadata(annotated(config, meta))
        .withSpec(ingressSpec(config, hostnames, pausedName(ctx.name()) + "-tls",
            List.of(path("/", backend.service(), backend.port()))))
        .build());
  }

  /** Whether {@code object} is of a kind tenants are routed by (an HTTPRoute or an Ingress). */
  public static boolean isRoute(HasMetadata object) {
    return object instanceof HTTPRoute || object instanceof Ingress;
  }

  /** A Frozen tenant's route in the edge namespace: {@code paused-<tenant>}. */
  public static String pausedName(String tenant) {
    return "paused-" + tenant;
  }

  private static HTTPRoute httpRoute(TenantContext ctx, ObjectMeta meta, List<String> hostnames, List<AppSpec> exposed) {
    List<HTTPRouteRule> rules = new ArrayList<>();
    for (AppSpec app : exposed) {
      HTTPRouteRuleBuilder rule = new HTTPRouteRuleBuilder()
          .withBackendRefs(new HTTPBackendRefBuilder().withName(Names.app(app.getName())).withPort(app.getPort()).build());
      for (AppRoute route : app.getRoutes()) {
        rule.addToMatches(new HTTPRouteMatchBuilder().withNewPath().withType("PathPrefix").withValue(route.getPathPrefix())
            .endPath().build());
      }
      rules.add(rule.build());
    }
    return new HTTPRouteBuilder().withMetadata(meta).withNewSpec()
        .withParentRefs(parent(ctx.config())).withHostnames(hostnames).withRules(rules)
        .endSpec().build();
  }

  private static Ingress ingress(TenantContext ctx, ObjectMeta meta, List<String> hostnames, List<AppSpec> exposed) {
    List<HTTPIngressPath> paths = new ArrayList<>();
    for (AppSpec app : exposed) {
      app.getRoutes().forEach(route -> paths.add(path(route.getPathPrefix(), Names.app(app.getName()), app.getPort())));
    }
    return new IngressBuilder().withMetadata(annotated(ctx.config(), meta))
        .withSpec(ingressSpec(ctx.config(), hostnames, TLS_SECRET, paths)).build();
  }

  private static io.fabric8.kubernetes.api.model.gatewayapi.v1.ParentReference parent(OperatorConfig config) {
    String section = config.routing().gateway().sectionName();
    return new io.fabric8.kubernetes.api.model.gatewayapi.v1.ParentReferenceBuilder()
        .withGroup(GATEWAY_GROUP).withKind("Gateway").withNamespace(config.edgeNamespace())
        .withName(config.routing().gateway().name()).withSectionName(section == null || section.isEmpty() ? null : section)
        .build();
  }

  private static HTTPRouteRule rule(String pathPrefix, String service, int port) {
    return new HTTPRouteRuleBuilder()
        .addToMatches(new HTTPRouteMatchBuilder().withNewPath().withType("PathPrefix").withValue(pathPrefix).endPath().build())
        .withBackendRefs(new HTTPBackendRefBuilder().withName(service).withPort(port).build())
        .build();
  }

  private static ObjectMeta annotated(OperatorConfig config, ObjectMeta meta) {
    return new ObjectMetaBuilder(meta).addToAnnotations(config.routing().ingress().annotations()).build();
  }

  private static io.fabric8.kubernetes.api.model.networking.v1.IngressSpec ingressSpec(OperatorConfig config, List<String> hostnames,
      String tlsSecret, List<HTTPIngressPath> paths) {
    OperatorConfig.Ingress settings = config.routing().ingress();
    IngressSpecBuilder spec = new IngressSpecBuilder()
        .withIngressClassName(settings.className().isEmpty() ? null : settings.className());
    for (String host : hostnames) {
      spec.addNewRule().withHost(host).withNewHttp().withPaths(paths).endHttp().endRule();
    }
    if (settings.tls()) {
      spec.addNewTl().withHosts(hostnames).withSecretName(tlsSecret).endTl();
    }
    return spec.build();
  }

  private static HTTPIngressPath path(String prefix, String service, int port) {
    return new HTTPIngressPathBuilder().withPath(prefix).withPathType("Prefix")
        .withNewBackend().withNewService().withName(service).withNewPort().withNumber(port).endPort().endService().endBackend()
        .build();
  }
}
