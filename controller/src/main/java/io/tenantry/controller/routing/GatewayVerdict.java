package io.tenantry.controller.routing;

import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.gatewayapi.v1.HTTPRoute;
import io.fabric8.kubernetes.api.model.gatewayapi.v1.ParentReference;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.stream.Stream;

/**
 * What the Gateway said of a tenant's HTTPRoute: its controller writes, per parent, whether it
 * accepted the route (a listener may not admit the tenant's namespace) and resolved its backends.
 * Only its verdict on the route's current generation counts: an older one judged other hostnames or
 * backends. A route no controller has looked at yet is neither refused nor judged (without a Gateway
 * controller, as in a cluster being set up, none ever is).
 */
public final class GatewayVerdict {

  private static final List<String> REQUIRED = List.of("Accepted", "ResolvedRefs");

  private GatewayVerdict() {
  }

  /** Why the Gateway {@code namespace/name} refused {@code route}, if it did. */
  public static Optional<String> refusal(HTTPRoute route, String namespace, String name) {
    return current(route, namespace, name)
        .filter(condition -> REQUIRED.contains(condition.getType()) && "False".equals(condition.getStatus())).findFirst()
        .map(condition -> "Gateway " + namespace + "/" + name + " refused HTTPRoute " + route.getMetadata().getNamespace()
            + "/" + route.getMetadata().getName() + ": " + condition.getType() + "=False " + condition.getReason()
            + (condition.getMessage() == null || condition.getMessage().isBlank() ? "" : ": " + condition.getMessage()));
  }

  /**
   * Whether the Gateway {@code namespace/name} has judged {@code route} as it is now (Accepted, either
   * way, at its current generation): it loads a route before it serves it, and writes its verdict first.
   */
  public static boolean given(HTTPRoute route, String namespace, String name) {
    return current(route, namespace, name).anyMatch(condition -> "Accepted".equals(condition.getType()));
  }

  /** The conditions the Gateway {@code namespace/name} wrote on {@code route} at its current generation. */
  private static Stream<Condition> current(HTTPRoute route, String namespace, String name) {
    if (route == null || route.getStatus() == null || route.getStatus().getParents() == null) {
      return Stream.empty();
    }
    Long generation = route.getMetadata().getGeneration();
    return route.getStatus().getParents().stream()
        .filter(parent -> isGateway(parent.getParentRef(), route.getMetadata().getNamespace(), namespace, name)
            && parent.getConditions() != null)
        .flatMap(parent -> parent.getConditions().stream())
        .filter(condition -> generation == null || condition.getObservedGeneration() == null
            || condition.getObservedGeneration() >= generation);
  }

  private static boolean isGateway(ParentReference ref, String routeNamespace, String namespace, String name) {
    if (ref == null) {
      return false;
    }
    String refNamespace = ref.getNamespace() == null ? routeNamespace : ref.getNamespace();
    return (ref.getKind() == null || "Gateway".equals(ref.getKind())) && namespace.equals(refNamespace)
        && Objects.equals(name, ref.getName());
  }
}
