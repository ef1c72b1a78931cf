package io.tenantry.controller.lifecycle;

import io.tenantry.controller.backup.Restores;
import io.tenantry.controller.resources.TenantContext;
import io.tenantry.controller.resources.Workloads;

/**
 * New and Active tenants: everything provisioned, apps and databases at their spec's replicas.
 * (A New tenant is a fully provisioned spare not yet bound to a customer.) Coming back from
 * Frozen restores the replicas; from Archived, the StatefulSets are recreated under the same
 * names and so find the same volume claims, the same data. While a database owes a restore
 * ({@link Restores}), the apps wait at zero.
 */
final class ActiveState implements StateHandler {

  private final Provisioning provisioning;

  ActiveState(Provisioning provisioning) {
    this.provisioning = provisioning;
  }

  @Override
  public Outcome reconcile(TenantContext ctx) {
    return provisioning.reconcile(ctx, Restores.workloads(ctx.tenant(), Workloads.RUNNING));
  }
}
