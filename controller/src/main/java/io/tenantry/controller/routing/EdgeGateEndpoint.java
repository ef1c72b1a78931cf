package io.tenantry.controller.routing;

import io.tenantry.api.v1alpha1.Tenant;
import io.tenantry.api.v1alpha1.TenantState;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.function.Function;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;

/**
 * What the edge asks before a request to a gated route goes through ({@link EdgeGate}):
 * {@code GET /v1/gate/<tenant>}, answered from the operator's cache, 200 for an Active tenant (bound
 * to its customer), 404 otherwise (a spare, a tenant being deleted, one not known). The edge shows
 * a stranger the 404 as it would for a host it does not route. No token: the answer tells only
 * whether a tenant whose hostname is public serves, and the edge cannot hold a secret per route.
 */
public final class EdgeGateEndpoint extends Handler.Abstract {

  private static final ByteBuffer NOT_FOUND = ByteBuffer.wrap("not found\n".getBytes(StandardCharsets.UTF_8)).asReadOnlyBuffer();

  private final Function<String, Tenant> tenants;

  /** @param tenants a tenant by name as the operator's cache has it, or null */
  public EdgeGateEndpoint(Function<String, Tenant> tenants) {
    this.tenants = tenants;
  }

  /** Whether the edge may let a request for {@code tenant}'s gated route through. */
  static boolean open(Tenant tenant) {
    return tenant != null && tenant.getMetadata().getDeletionTimestamp() == null && tenant.getSpec() != null
        && tenant.getSpec().getState() == TenantState.Active;
  }

  @Override
  public boolean handle(Request request, Response response, Callback callback) {
    // The URI's own path: under a path mapping with no context, Request.getPathInContext fails (Jetty 12.1).
    String path = request.getHttpURI().getCanonicalPath();
    String name = path.startsWith(EdgeGate.PATH) ? path.substring(EdgeGate.PATH.length()) : "";
    if (!name.isEmpty() && !name.contains("/") && open(tenants.apply(name))) {
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
