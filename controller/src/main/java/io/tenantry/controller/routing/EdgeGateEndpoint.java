package io.tenantry.controller.routing;

import io.tenantry.api.v1alpha1.Tenant;
import io.tenantry.api.v1alpha1.TenantState;
import io.tenantry.controller.config.OperatorConfig;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.function.Function;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;

/**
 * What the edge asks before a request to a gated route goes through ({@link EdgeGate}):
 * {@code GET /v1/gate/<tenant>}, answered from the operator's cache, 200 for an Active tenant (bound
 * to its customer) asked for one of its own hostnames, 404 otherwise (a spare, a tenant being
 * deleted, one not known, a hostname it does not hold). The hostname is the request's as Traefik
 * saw it ({@code X-Forwarded-Host}, set by Traefik itself: the gate trusts no client's
 * {@code X-Forwarded-*}); checking it is what lets a route be written for a subdomain before its
 * bind is stored ({@link BoundRoutes#binding}): a bind that fails leaves no way in for that name.
 * The edge shows a stranger the 404 as it would for a host it does not route. No token: the
 * answer tells only whether a tenant whose hostname is public serves, and the edge cannot hold a
 * secret per route.
 */
public final class EdgeGateEndpoint extends Handler.Abstract {

  private static final ByteBuffer NOT_FOUND = ByteBuffer.wrap("not found\n".getBytes(StandardCharsets.UTF_8)).asReadOnlyBuffer();

  private final Function<String, Tenant> tenants;
  private final OperatorConfig.Routing routing;

  /** @param tenants a tenant by name as the operator's cache has it, or null */
  public EdgeGateEndpoint(Function<String, Tenant> tenants, OperatorConfig.Routing routing) {
    this.tenants = tenants;
    this.routing = routing;
  }

  /** Whether the edge may let a request for {@code host} (as the client sent it, a port allowed) through {@code tenant}'s gated route. */
  static boolean open(Tenant tenant, String host, OperatorConfig.Routing routing) {
    return tenant != null && tenant.getMetadata().getDeletionTimestamp() == null && tenant.getSpec() != null
        && tenant.getSpec().getState() == TenantState.Active && host != null
        && Hostnames.of(tenant, routing).contains(withoutPort(host).toLowerCase(Locale.ROOT));
  }

  private static String withoutPort(String host) {
    int colon = host.lastIndexOf(':');
    return colon > 0 && host.indexOf(']') < colon ? host.substring(0, colon) : host;
  }

  @Override
  public boolean handle(Request request, Response response, Callback callback) {
    // The URI's own path: under a path mapping with no context, Request.getPathInContext fails (Jetty 12.1).
    String path = request.getHttpURI().getCanonicalPath();
    String name = path.startsWith(EdgeGate.PATH) ? path.substring(EdgeGate.PATH.length()) : "";
    String host = request.getHeaders().get("X-Forwarded-Host");
    if (!name.isEmpty() && !name.contains("/") && open(tenants.apply(name), host, routing)) {
      response.setStatus(200);
      callback.succeeded();
      return true;
    }
    response.setStatus(404);
    response.getHeaders().put(HttpHeader.CONTENT_TYPE, "text/plain; charset=utf-8");
    response.write(true, NOT_FOUND.duplicate(), callback);
    return true;
  }
}
