package io.tenantry.controller.lifecycle;

import io.fabric8.kubernetes.api.model.Namespace;
import io.tenantry.api.v1alpha1.TenantStatus;
import io.tenantry.controller.apply.Converger;
import io.tenantry.controller.cache.InformerCache;
import io.tenantry.controller.resources.DesiredState;
import io.tenantry.controller.resources.TenantContext;
import io.tenantry.controller.resources.Workloads;
import io.tenantry.controller.status.Clocks;
import io.tenantry.controller.status.StatusBuilder;
import java.time.Clock;

/**
 * New and Active tenants: everything provisioned, apps and databases at their spec's replicas.
 * (A New tenant is a fully provisioned spare not yet bound to a customer.)
 */
final class ActiveState implements StateHandler {

  private final InformerCache cache;
  private final Converger converger;
  private final Clock clock;

  ActiveState(InformerCache cache, Converger converger, Clock clock) {
    this.cache = cache;
    this.converger = converger;
    this.clock = clock;
  }

  @Override
  public TenantStatus reconcile(TenantContext ctx) {
    Namespace namespace = cache.get(Namespace.class, null, ctx.namespace());
    // A terminating namespace is waited out: its deletion event brings the tenant back to recreate it.
    if (namespace == null || namespace.getMetadata().getDeletionTimestamp() == null) {
      converger.converge(DesiredState.of(ctx, Credentials.passwords(ctx, cache), Workloads.RUNNING), cache.ownedBy(ctx.name()));
    }
    return StatusBuilder.provisioned(ctx.tenant(), ctx.namespace(), Observer.observe(ctx, cache), Clocks.now(clock));
  }
}
