package io.tenantry.api.v1alpha1;

/** What the operator observes of a tenant ({@code status.phase}). */
public enum TenantPhase {
  Provisioning,
  Ready,
  Progressing,
  Degraded,
  Frozen,
  Archiving,
  Archived,
  Purging,
  Purged
}
