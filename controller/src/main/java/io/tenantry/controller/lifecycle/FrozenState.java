package io.tenantry.controller.lifecycle;

import io.tenantry.controller.backup.Restores;
import io.tenantry.controller.resources.TenantContext;
import io.tenantry.controller.resources.Workloads;

/**
 * Frozen tenants: every app Deployment and database StatefulSet scaled to zero; the namespace,
 * volumes, secrets and guardrails stay, so unfreezing is only scaling back up. A database that
 * owes a restore ({@link Restores}) runs until its data is swapped in.
 */
final class FrozenState implements StateHandler {

  private final Provisioning provisioning;

  FrozenState(Provisioning provisioning) {
    this.provisioning = provisioning;
  }

  @Override
  public Outcome reconcile(TenantContext ctx) {
    return provisioning.reconcile(ctx, Restores.workloads(ctx.tenant(), Workloads.SCALED_TO_ZERO));
  }
}
