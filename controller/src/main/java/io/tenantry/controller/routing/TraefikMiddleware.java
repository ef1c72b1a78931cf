package io.tenantry.controller.routing;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;
import io.fabric8.kubernetes.api.model.Namespaced;
import io.fabric8.kubernetes.client.CustomResource;
import io.fabric8.kubernetes.model.annotation.Group;
import io.fabric8.kubernetes.model.annotation.Kind;
import io.fabric8.kubernetes.model.annotation.Plural;
import io.fabric8.kubernetes.model.annotation.Version;
import java.util.Map;

/**
 * Traefik's {@code Middleware} (traefik.io/v1alpha1), as far as the operator writes one: the gate
 * of a tenant's route ({@link EdgeGate}), a forwardAuth that asks the operator whether the route
 * may serve, or once that is settled a headers Middleware that asks no one. Traefik owns the kind
 * (its CRDs); fields the operator does not know are left alone.
 */
@Group("traefik.io")
@Version("v1alpha1")
@Kind("Middleware")
@Plural("middlewares")
@JsonIgnoreProperties(ignoreUnknown = true)
public final class TraefikMiddleware extends CustomResource<TraefikMiddleware.Spec, Void> implements Namespaced {

  /** One of the two: the gate asking, or open. */
  @JsonInclude(JsonInclude.Include.NON_NULL)
  @JsonIgnoreProperties(ignoreUnknown = true)
  public record Spec(ForwardAuth forwardAuth, Headers headers) {
  }

  /**
   * Traefik asks {@code address} before each request; a 2xx lets the request through, any other
   * answer is the client's. {@code maxResponseBodySize}: the most of an answer Traefik reads (unset,
   * no limit); {@code trustForwardHeader}: whether the client's X-Forwarded-* headers are passed on
   * (false: none are, the gate needs none).
   */
  @JsonIgnoreProperties(ignoreUnknown = true)
  public record ForwardAuth(String address, Long maxResponseBodySize, Boolean trustForwardHeader) {
  }

  /** Request headers set on the way to the backend; an empty value removes the header. */
  @JsonIgnoreProperties(ignoreUnknown = true)
  public record Headers(Map<String, String> customRequestHeaders) {
  }

  public TraefikMiddleware() {
  }

  public TraefikMiddleware(Spec spec) {
    setSpec(spec);
  }
}
