package io.tenantry.api.v1alpha1;

/**
 * The desired lifecycle state of a tenant ({@code spec.state}).
 *
 * <p>Allowed transitions (enforced by CEL rules on {@link TenantSpec#getState()}):
 * New → Active | Purged; Active → Frozen | Archived; Frozen → Active | Archived | Purged;
 * Archived → Active | Purged; Purged is terminal.
 */
public enum TenantState {
  /** Provisioned but not bound to a customer; spares are New tenants. */
  New,
  /** Running for its customer. */
  Active,
  /** Workloads scaled to zero; namespace, data and secrets kept. */
  Frozen,
  /** Workloads removed; database volumes and tenant secrets kept. */
  Archived,
  /** Terminal: namespace, volumes, stored secrets and fleet records deleted. */
  Purged
}
