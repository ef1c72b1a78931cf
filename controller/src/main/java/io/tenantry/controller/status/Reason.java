package io.tenantry.controller.status;

import io.tenantry.api.v1alpha1.TenantPhase;

/**
 * Every reason the operator gives, in conditions and in events: one vocabulary, so that alerts
 * and scripts can match on a reason and a reader finds every place that sets it.
 */
public enum Reason {

  // Ready (tenants)
  /** Every database and app is rolled out and available. */
  Converged,
  NamespaceNotReady,
  DatabasesNotReady,
  AppsNotReady,
  /** Workloads scaled to zero. */
  Frozen,
  /** Workloads removed; volumes and secrets kept. */
  Archived,
  Purging,
  Purged,
  /** {@code spec.plan} names no plan of the operator's configuration. */
  UnknownPlan,
  /** A sync threw; the message says why. */
  SyncFailed,
  /** The tenant's namespace name is taken by a namespace Tenantry did not make. */
  NamespaceTaken,
  /** The tenant's workloads did not roll out within the rollout deadline. */
  RolloutTimedOut,
  /** An app's migration Job failed or timed out; the previous version keeps serving. */
  MigrationFailed,
  /**
   * A database's pooler does not fit its connection budget (the message names the field); nothing
   * but the guardrails is written until the spec or the plan changes.
   */
  PoolerRefused,
  /**
   * The API server refused a write of owned objects; the message names each and gives the
   * server's message. The others were written, and the sync is retried with backoff.
   */
  WriteFailed,

  // NamespaceReady
  Exists,
  Missing,
  Terminating,

  // DatabasesReady, AppsReady
  RolledOut,
  RollingOut,

  // SecretsSynced
  Synced,
  /** The namespace is being deleted: nothing can be written into it. */
  NamespaceTerminating,
  /** The last refresh of the template namespace from the store failed. */
  TemplateSyncFailed,
  /** The store or its key service could not be reached. */
  StoreUnavailable,
  /** The store's encryption key could not be used. */
  KeyUnavailable,
  /** A stored secret failed to decrypt or parse. */
  CorruptSecret,
  /** A conditional write of the store lost to a concurrent writer. */
  SecretConflict,
  /** An app names a template secret the template namespace does not have; the app keeps its last good spec. */
  TemplateSecretMissing,

  // Routed
  /** The tenant's hostnames are routed to its exposed apps. */
  Routed,
  /** A Frozen tenant's hostnames are answered by the paused backend. */
  Paused,
  /** No app of the tenant has routes ({@code spec.apps[].routes}), so nothing is exposed. */
  NotExposed,
  /** Another tenant holds one of the tenant's hostnames; that one is not routed to this tenant. */
  HostnameConflict,
  /** The Gateway refused the tenant's HTTPRoute (not Accepted, or its backends not resolved), as its status says. */
  RouteRefused,
  // BackedUp
  /** Every database that keeps data has a proven backup, the newest attempt included. */
  BackupCurrent,
  /** A database has no proven backup yet (its first is due or running). */
  NoBackupYet,
  /** pg_dump (or the snapshot before it) failed; the message has its first error line. */
  DumpFailed,
  /** The agent could not stream the backup to the transfer endpoint. */
  UploadFailed,
  /** The Job ended, but the store holds no object for it: nothing was backed up. */
  BackupNotInStore,
  /** The stored object does not match what the Job reported, or does not open with the backup's key. */
  BackupCorrupt,
  /** The database's engine has no backup in this version; it says so rather than pretend. */
  EngineNotSupported,
  // RestoreVerified
  /** The newest drill restored its backup into a scratch server and every table's row count matched. */
  DrillPassed,
  /** No drill has run yet: the first proven backup starts one. */
  NoDrillYet,
  /** The drill's restore failed: the object did not decrypt, pg_restore refused it, or row counts differ. */
  DrillFailed,
  /** The drill's Job ended without its agent reporting: nothing shows the backup restores. */
  DrillNotRun,
  /** The scratch space the drill needs is more than the tenant's quota has left; it did not start. */
  DrillDoesNotFit,
  // MajorUpgraded (and Ready while apps wait for an upgrade: Restoring)
  /** A database is being upgraded to another major through a backup and a restore; the apps wait. */
  Upgrading,
  /** Every major upgrade asked for is done. */
  UpgradeDone,
  /** The backup or the restore of an upgrade failed: the database runs its old version on its old volume. */
  UpgradeFailed,
  /** The spec names an older major than the data's: the data's version keeps running. */
  DowngradeRefused,
  /** The spec names a newer major without majorUpgrade: the data's version keeps running. */
  UpgradeNotAsked,
  // DataArchived (and the phase Archiving)
  /** The tenant's data is being archived: a step waits (its message says which). */
  Archiving,
  /** Every exported database is in the archive manifest, read back from the store; the volumes are released. */
  DataInStore,
  // Restored (and Ready while apps wait for a restore)
  /** Every database with spec.databases[].restoreFrom has its data from that backup. */
  RestoreDone,
  /** A restore waits for its database or runs; the tenant's apps wait for it. */
  Restoring,
  /** The restore failed (the backup did not decrypt, pg_restore refused it, counts differ, the swap failed). */
  RestoreFailed,
  /** restoreFrom names no proven backup in the store (an unknown id, or no backup yet for latest). */
  BackupNotFound,
  /** restoreFrom names another tenant's backup and the operator does not allow cross-tenant restores. */
  CrossTenantRestoreRefused,
  // Autoscaled
  /** Every autoscaled app's HPA has the bounds its spec asks for. */
  AsAsked,
  /** An autoscaled app asks for more pods than its plan's maxReplicasPerApp: its HPA stops there. */
  ClampedByPlan,

  // Ready (spare pools)
  BufferFull,
  Refilling,

  // Events: a phase entered is reported under the phase's name
  Provisioning,
  Ready,
  Progressing,
  Degraded,
  /** The operator acts on a new {@code spec.state}. */
  StateChanged,
  /** A Tenant was deleted while not Purged; its namespace and data are kept. */
  DeletedWithoutPurge;

  /** The reason of the event reporting that a tenant entered {@code phase}. */
  public static Reason entered(TenantPhase phase) {
    return switch (phase) {
      case Provisioning -> Provisioning;
      case Ready -> Ready;
      case Progressing -> Progressing;
      case Degraded -> Degraded;
      case Frozen -> Frozen;
      case Archiving -> Archiving;
      case Archived -> Archived;
      case Purging -> Purging;
      case Purged -> Purged;
    };
  }
}
