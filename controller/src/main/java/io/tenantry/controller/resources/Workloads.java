package io.tenantry.controller.resources;

/** How a lifecycle state wants the tenant's apps and databases. */
public enum Workloads {
  /** At the replicas of the spec (New and Active tenants). */
  RUNNING,
  /** Kept, scaled to zero (Frozen). */
  SCALED_TO_ZERO,
  /** Databases running, apps at zero: a database is being restored (Active or Frozen with a restoreFrom to answer). */
  RESTORING,
  /** Deleted; volumes and secrets stay (Archived). */
  REMOVED
}
