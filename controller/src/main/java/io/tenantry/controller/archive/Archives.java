package io.tenantry.controller.archive;

import io.tenantry.api.v1alpha1.ArchiveStatus;
import io.tenantry.api.v1alpha1.ArchiveStep;
import io.tenantry.api.v1alpha1.ArchivedDatabase;
import io.tenantry.api.v1alpha1.BackupRecord;
import io.tenantry.api.v1alpha1.BackupStatus;
import io.tenantry.api.v1alpha1.DatabaseEngine;
import io.tenantry.api.v1alpha1.DatabaseSpec;
import io.tenantry.api.v1alpha1.Tenant;
import io.tenantry.api.v1alpha1.TenantState;
import io.tenantry.controller.resources.Workloads;
import io.tenantry.controller.status.Reason;
import io.tenantry.controller.status.Verdict;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Pure: a tenant's archive ({@code status.archive}) as a sequence of steps, each decided from the
 * record, the databases' backup statuses and the spec. Archiving (spec.state Archived):
 * <ol>
 *   <li>the apps go to zero, the databases run (a Frozen tenant's too): {@link #workloads};
 *   <li>each exported database (PostgreSQL, keeping data) gets a backup of kind {@code archive},
 *       taken once the apps are stopped ({@link #wantsBackup}), then a drill of it, always;
 *   <li>every one drilled, the archive manifest is written and read back ({@link #readyForManifest});
 *   <li>only then the StatefulSets and the claims of exported and ephemeral databases go
 *       ({@link #releasesVolumeOf}); databases of an engine not exported keep theirs, and say so.
 * </ol>
 * A failed backup or drill names its reason and is taken again. Archived → Active or Frozen
 * restores each exported database from its archive backup onto fresh volumes before the apps
 * start ({@link #restoreFrom}); the archive is superseded only once that restore succeeded, so a
 * failed reactivation followed by another archive keeps the last good one. Going back before the
 * volumes were released abandons the archive: nothing was deleted.
 */
public final class Archives {

  public static final String APPS_STOPPED = "AppsStopped";
  public static final String BACKED_UP = "BackedUp";
  public static final String DRILLED = "Drilled";
  public static final String MANIFEST_WRITTEN = "ManifestWritten";
  public static final String VOLUMES_RELEASED = "VolumesReleased";
  public static final String RESTORED = "Restored";

  private Archives() {
  }

  /** The tenant's archive as its status records it, or null. */
  public static ArchiveStatus recorded(Tenant tenant) {
    return tenant.getStatus() == null ? null : tenant.getStatus().getArchive();
  }

  /**
   * The archive this sync starts from: a new one when the tenant asks to be Archived and has none
   * (or only one a reactivation restored); none when it returned to Active or Frozen before its
   * volumes were released; else the one recorded.
   */
  public static ArchiveStatus begin(Tenant tenant, ArchiveStatus archive, Instant now) {
    TenantState state = tenant.getSpec().getState();
    if (state == TenantState.Archived && (archive == null || archive.getRestored() != null)) {
      ArchiveStatus fresh = new ArchiveStatus();
      fresh.setStarted(now.toString());
      fresh.setGeneration(tenant.getMetadata().getGeneration());
      for (DatabaseSpec db : tenant.getSpec().getDatabases()) {
        if (exported(db)) {
          ArchivedDatabase entry = new ArchivedDatabase();
          entry.setName(db.getName());
          fresh.getDatabases().add(entry);
        } else if (db.keepsData()) {
          fresh.getKept().add(db.getName());
        }
      }
      return fresh;
    }
    if ((state == TenantState.Active || state == TenantState.Frozen) && archive != null && archive.getReleased() == null) {
      return null;
    }
    return archive;
  }

  /** Whether {@code db} goes into an archive: PostgreSQL keeping data (what backups export). */
  public static boolean exported(DatabaseSpec db) {
    return db.keepsData() && db.getEngine() == DatabaseEngine.POSTGRES;
  }

  /** Whether {@code db}'s volume is released with the archive: exported, or keeping no data. */
  public static boolean releasesVolumeOf(DatabaseSpec db) {
    return exported(db) || !db.keepsData();
  }

  /**
   * How the state runs the workloads while an archive is made or restored: databases up and apps
   * at zero until the manifest is read back (then removed), and while a reactivation restores.
   */
  public static Workloads workloads(Tenant tenant, ArchiveStatus archive, Workloads usual) {
    if (tenant.getSpec().getState() == TenantState.Archived) {
      return archive != null && archive.getManifest() != null ? Workloads.REMOVED : Workloads.RESTORING;
    }
    return reactivating(tenant, archive) ? Workloads.RESTORING : usual;
  }

  /** Whether the tenant is back to Active or Frozen and its databases are still to be restored from the archive. */
  public static boolean reactivating(Tenant tenant, ArchiveStatus archive) {
    TenantState state = tenant.getSpec().getState();
    return (state == TenantState.Active || state == TenantState.Frozen) && archive != null && archive.getReleased() != null
        && archive.getRestored() == null;
  }

  /** Whether the archive waits for a backup of {@code database} to start. */
  public static boolean wantsBackup(ArchiveStatus archive, String database) {
    ArchivedDatabase entry = entry(archive, database);
    return archive != null && archive.getManifest() == null && entry != null && entry.getBackup() == null;
  }

  /**
   * Whether the tenant's databases came back from its archive: Active or Frozen after the archive's
   * volumes were released (its restore runs, or ran: Restored answers for it until another archive).
   */
  public static boolean restoredFrom(Tenant tenant, ArchiveStatus archive) {
    TenantState state = tenant.getSpec().getState();
    return (state == TenantState.Active || state == TenantState.Frozen) && archive != null && archive.getReleased() != null;
  }

  /**
   * The backup to restore {@code db} from: its archive backup while the tenant is reactivated, and
   * after unless the spec names another; else the spec's restoreFrom.
   */
  public static String restoreFrom(Tenant tenant, ArchiveStatus archive, DatabaseSpec db) {
    ArchivedDatabase entry = entry(archive, db.getName());
    if (entry == null || !restoredFrom(tenant, archive) || db.getRestoreFrom() != null && !reactivating(tenant, archive)) {
      return db.getRestoreFrom();
    }
    return entry.getBackup();
  }

  /** The archive with {@code backup} started for {@code database} (the apps were stopped for it). */
  public static ArchiveStatus backupStarted(ArchiveStatus archive, String database, String backup, Long generation, Instant now) {
    ArchiveStatus next = copy(archive);
    entry(next, database).setBackup(backup);
    return step(next, APPS_STOPPED, generation, now);
  }

  /**
   * The archive after its databases' backups and drills: a backup or a drill that failed clears the
   * database's backup (another is taken) and names why; a drill that passed marks it drilled. Steps
   * BackedUp and Drilled once every database's backup is proven, or drilled.
   */
  public static ArchiveStatus afterBackups(ArchiveStatus archive, Map<String, BackupStatus> backups, Long generation,
      Instant now) {
    if (archive == null || archive.getManifest() != null) {
      return archive;
    }
    ArchiveStatus next = copy(archive);
    for (ArchivedDatabase entry : next.getDatabases()) {
      BackupStatus status = backups.get(entry.getName());
      if (entry.getBackup() == null || entry.getDrilled() != null || status == null) {
        continue;
      }
      BackupRecord attempt = status.getLastAttempt();
      BackupRecord drill = status.getLastDrill();
      if (attempt != null && entry.getBackup().equals(attempt.getId()) && attempt.getReason() != null) {
        failed(next, entry, attempt.getReason(), "the archive backup of " + entry.getName() + " failed: " + attempt.getError());
      } else if (drill != null && entry.getBackup().equals(drill.getId()) && drill.getFinished() != null) {
        if (drill.getReason() == null) {
          entry.setDrilled(drill.getFinished());
        } else {
          failed(next, entry, drill.getReason(), "the drill of " + entry.getName() + "'s archive backup failed: " + drill.getError());
        }
      }
    }
    if (next.getDatabases().stream().allMatch(e -> e.getBackup() != null && proven(backups.get(e.getName()), e.getBackup()))) {
      next = step(next, BACKED_UP, generation, now);
    }
    if (readyForManifest(next)) {
      next = step(next, DRILLED, generation, now);
    }
    return next;
  }

  /** Whether every exported database's archive backup passed its drill, and no manifest is written yet. */
  public static boolean readyForManifest(ArchiveStatus archive) {
    return archive != null && archive.getManifest() == null && archive.getDatabases().stream().allMatch(e -> e.getDrilled() != null);
  }

  /** The archive with its manifest at {@code path}, read back. */
  public static ArchiveStatus manifestWritten(ArchiveStatus archive, String path, Long generation, Instant now) {
    ArchiveStatus next = copy(archive);
    next.setManifest(path);
    next.setReason(null);
    next.setError(null);
    return step(next, MANIFEST_WRITTEN, generation, now);
  }

  /** The archive with its volumes released at {@code now}. */
  public static ArchiveStatus released(ArchiveStatus archive, Long generation, Instant now) {
    ArchiveStatus next = copy(archive);
    next.setReleased(now.toString());
    return step(next, VOLUMES_RELEASED, generation, now);
  }

  /** The archive, its reactivation done: every exported database restored from it. */
  public static ArchiveStatus restored(ArchiveStatus archive, Long generation, Instant now) {
    ArchiveStatus next = copy(archive);
    next.setRestored(now.toString());
    next.setReason(null);
    next.setError(null);
    return step(next, RESTORED, generation, now);
  }

  /** The archive, held by {@code reason} (null: by nothing). */
  public static ArchiveStatus held(ArchiveStatus archive, Reason reason, String error) {
    ArchiveStatus next = copy(archive);
    next.setReason(reason == null ? null : reason.name());
    next.setError(error);
    return next;
  }

  /** The DataArchived condition: null when the tenant has no archive in flight or in force. */
  public static Verdict verdict(Tenant tenant, ArchiveStatus archive) {
    if (archive == null || archive.getRestored() != null) {
      return null;
    }
    if (archive.getReleased() == null) {
      String step = archive.getSteps().isEmpty() ? "the apps are stopping"
          : "done: " + String.join(", ", archive.getSteps().stream().map(ArchiveStep::getName).toList());
      return new Verdict("False", archive.getReason() == null ? Reason.Archiving : Reason.valueOf(archive.getReason()),
          archive.getError() == null ? "archiving; " + step : archive.getError() + "; the volumes are kept, it is tried again");
    }
    if (!archive.getKept().isEmpty()) {
      return new Verdict("False", Reason.EngineNotSupported, "volumes kept for " + String.join(", ", archive.getKept())
          + " (not exported in this version); the rest is in " + archive.getManifest());
    }
    return new Verdict("True", Reason.DataInStore, "every database is in " + archive.getManifest() + "; the volumes are released");
  }

  private static void failed(ArchiveStatus archive, ArchivedDatabase entry, String reason, String error) {
    entry.setBackup(null);
    archive.setReason(reason);
    archive.setError(error);
  }

  private static boolean proven(BackupStatus status, String backup) {
    return status != null && status.getLast() != null && backup.equals(status.getLast().getId());
  }

  private static ArchivedDatabase entry(ArchiveStatus archive, String database) {
    return archive == null ? null
        : archive.getDatabases().stream().filter(e -> database.equals(e.getName())).findFirst().orElse(null);
  }

  /** {@code archive} with step {@code name} appended, unless it is there already. */
  private static ArchiveStatus step(ArchiveStatus archive, String name, Long generation, Instant now) {
    if (archive.getSteps().stream().noneMatch(s -> name.equals(s.getName()))) {
      ArchiveStep step = new ArchiveStep();
      step.setName(name);
      step.setGeneration(generation);
      step.setAt(now.toString());
      archive.getSteps().add(step);
    }
    return archive;
  }

  /** A deep copy: the records are mutable beans, and what the cache holds is never changed in place. */
  private static ArchiveStatus copy(ArchiveStatus archive) {
    ArchiveStatus copy = new ArchiveStatus();
    copy.setStarted(archive.getStarted());
    copy.setGeneration(archive.getGeneration());
    List<ArchiveStep> steps = new ArrayList<>();
    for (ArchiveStep s : archive.getSteps()) {
      ArchiveStep c = new ArchiveStep();
      c.setName(s.getName());
      c.setGeneration(s.getGeneration());
      c.setAt(s.getAt());
      steps.add(c);
    }
    copy.setSteps(steps);
    List<ArchivedDatabase> databases = new ArrayList<>();
    for (ArchivedDatabase d : archive.getDatabases()) {
      ArchivedDatabase c = new ArchivedDatabase();
      c.setName(d.getName());
      c.setBackup(d.getBackup());
      c.setDrilled(d.getDrilled());
      databases.add(c);
    }
    copy.setDatabases(databases);
    copy.setKept(new ArrayList<>(archive.getKept()));
    copy.setManifest(archive.getManifest());
    copy.setReleased(archive.getReleased());
    copy.setRestored(archive.getRestored());
    copy.setReason(archive.getReason());
    copy.setError(archive.getError());
    return copy;
  }
}
