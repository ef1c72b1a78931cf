package io.tenantry.controller.routing;

import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.gatewayapi.v1.HTTPRoute;
import io.fabric8.kubernetes.api.model.gatewayapi.v1.ParentReference;
import io.fabric8.kubernetes.api.model.gatewayapi.v1.RouteParentStatus;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * What the Gateway said of a tenant's HTTPRoute: its controller writes, per parent, whether it
 * accepted the route (a listener may not admit the tenant's namespace) and resolved its backends.
 * Only a refusal counts: a route no controller has looked at yet, or only at an older generation
 * of, is not refused (without a Gateway controller, as in a cluster being set up, nothing ever is).
 */
public final class GatewayVerdict {

  private static final List<String> REQUIRED = List.of("Accepted", "ResolvedRefs");

  private GatewayVerdict() {
  }

  /** Why the Gateway {@code namespace/name} refused {@code route}, if it did. */
  public static Optional<String> refusal(HTTPRoute route, String namespace, String name) {
    if (route == null || route.getStatus() == null || route.getStatus().getParents() == null) {
      return Optional.empty();
    }
    Long generation = route.getMetadata().getGeneration();
    for (RouteParentStatus parent : route.getStatus().getParents()) {
      if (!isGateway(parent.getParentRef(), route.getMetadata().getNamespace(), namespace, name) || parent.getConditions() == null) {
        continue;
      }
      for (Condition condition : parent.getConditions()) {
        boolean current = generation == null || condition.getObservedGeneration() == null
            || condition.getObservedGeneration() >= generation;
        if (current && REQUIRED.contains(condition.getType()) && "False".equals(condition.getStatus())) {
          return Optional.of("Gateway " + namespace + "/" + name + " refused HTTPRoute " + route.getMetadata().getNamespace()
              + "/" + route.getMetadata().getName() + ": " + condition.getType() + "=False " + condition.getReason()
              + (condition.getMessage() == null || condition.getMessage().isBlank() ? "" : ": " + condition.getMessage()));
        }
      }
    }
    return Optional.empty();
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
