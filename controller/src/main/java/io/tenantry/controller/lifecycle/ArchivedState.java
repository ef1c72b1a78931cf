package io.tenantry.controller.lifecycle;

import io.tenantry.controller.backup.Restores;
import io.tenantry.controller.resources.TenantContext;
import io.tenantry.controller.resources.Workloads;

/**
 * Archived tenants: with backups on, the databases run (apps at zero) until their archive is
 * written and read back ({@code archive/Archives}, driven by the backups' sync), then every
 * workload is deleted and the exported databases' volumes released; Archived → Active restores
 * them from the archive. With backups off, the workloads are deleted and the volume claims kept (a
 * StatefulSet's claims outlive it), so Archived → Active comes back on the same volumes.
 */
final class ArchivedState implements StateHandler {

  private final Provisioning provisioning;

  ArchivedState(Provisioning provisioning) {
    this.provisioning = provisioning;
  }

  @Override
  public Outcome reconcile(TenantContext ctx) {
    return provisioning.reconcile(ctx, ctx.config().backups().enabled() ? Restores.workloads(ctx.tenant(), Workloads.REMOVED)
        : Workloads.REMOVED);
  }
}
