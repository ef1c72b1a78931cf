package io.tenantry.controller.lifecycle;

import io.tenantry.controller.resources.TenantContext;
import io.tenantry.controller.resources.Workloads;

/**
 * Archived tenants: app and database workloads (and their Services and PDBs) are deleted; the
 * namespace, the database volume claims (a StatefulSet's claims outlive it) and the tenant's
 * secrets stay, so Archived → Active brings the stack back on the same volumes.
 */
final class ArchivedState implements StateHandler {

  private final Provisioning provisioning;

  ArchivedState(Provisioning provisioning) {
    this.provisioning = provisioning;
  }

  @Override
  public Outcome reconcile(TenantContext ctx) {
    return provisioning.reconcile(ctx, Workloads.REMOVED);
  }
}
