package io.tenantry.controller.backup;

import static net.logstash.logback.argument.StructuredArguments.kv;

import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaim;
import io.fabric8.kubernetes.api.model.ResourceQuota;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.tenantry.api.v1alpha1.ArchiveStatus;
import io.tenantry.api.v1alpha1.ArchivedDatabase;
import io.tenantry.api.v1alpha1.BackupRecord;
import io.tenantry.api.v1alpha1.BackupStatus;
import io.tenantry.api.v1alpha1.DatabaseEngine;
import io.tenantry.api.v1alpha1.DatabaseSpec;
import io.tenantry.api.v1alpha1.DatabaseStatus;
import io.tenantry.api.v1alpha1.RestoreRecord;
import io.tenantry.api.v1alpha1.Tenant;
import io.tenantry.api.v1alpha1.TenantState;
import io.tenantry.api.v1alpha1.UpgradeRecord;
import io.tenantry.backup.ArchiveManifest;
import io.tenantry.backup.BackupFormat;
import io.tenantry.backup.BackupHeader;
import io.tenantry.backup.BackupId;
import io.tenantry.backup.BackupListing;
import io.tenantry.backup.BackupLocation;
import io.tenantry.backup.DataKey;
import io.tenantry.backup.Manifest;
import io.tenantry.backup.Retention;
import io.tenantry.backup.agent.AgentReport;
import io.tenantry.backup.store.BackupStoreUnavailableException;
import io.tenantry.backup.store.NoSuchObjectException;
import io.tenantry.backup.store.ObjectExistsException;
import io.tenantry.backup.store.StoredObject;
import io.tenantry.backup.transfer.TransferHandler;
import io.tenantry.backup.transfer.TransferTokens.Access;
import io.tenantry.controller.archive.Archives;
import io.tenantry.controller.cache.ClusterView;
import io.tenantry.controller.config.BackupPolicy;
import io.tenantry.controller.config.Plan;
import io.tenantry.controller.events.EventRecorder;
import io.tenantry.controller.events.EventType;
import io.tenantry.controller.metrics.BackupOutcomes;
import io.tenantry.controller.resources.DatabaseVolume;
import io.tenantry.controller.resources.Labels;
import io.tenantry.controller.resources.Names;
import io.tenantry.controller.resources.TenantContext;
import io.tenantry.controller.status.Conditions;
import io.tenantry.controller.status.Reason;
import io.tenantry.controller.status.Verdict;
import io.tenantry.controller.upgrade.MajorUpgrades;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.security.GeneralSecurityException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A tenant's backups, one sync at a time: commits the backups whose Jobs ended, starts those that
 * are due, and says what the status reports. Observe, decide, act:
 *
 * <ul>
 *   <li>A Job that ended is judged by what is in the store, never by its own "Succeeded": the
 *       object must exist with the size and CRC32C the agent reported and must open with the
 *       backup's key; only then is the manifest written (create-only, so a commit repeated after a
 *       crash finds its own manifest and goes on). Then the Job and its Secret are deleted and the
 *       retention runs. The agent's report (what it sent, or its first error line) is read from
 *       the store too, where the agent put it beside the object: the operator never reads pods.
 *   <li>A backup is due by {@link BackupSchedule} from the status's last attempt, or when the
 *       annotation {@value #REQUESTED} names a time after it (tenantctl backup). It starts only for an
 *       Active tenant whose database is ready, and only with a slot ({@link BackupSlots}).
 *   <li>Between those, a converged tenant costs nothing: the next due time is a work-queue delay.
 * </ul>
 */
public final class TenantBackups {

  /** Annotation on a Tenant asking for a backup now: an RFC 3339 time, after the last attempt. */
  public static final String REQUESTED = "tenantry.io/backup-requested";
  private static final Logger LOG = LoggerFactory.getLogger(TenantBackups.class);
  /** How long a Job's token stays valid after its deadline: a slow upload that started in time still lands. */
  private static final Duration TOKEN_GRACE = Duration.ofMinutes(10);
  /** How long a backup taken before a restore is kept, whatever the plan's daily and weekly counts. */
  private static final Duration KEEP_PRE_RESTORE = Duration.ofDays(3);
  /** A pod's termination grace period when its template names none (the API server's default). */
  private static final long DEFAULT_GRACE_SECONDS = 30;
  /** An object without a manifest younger than this may still be committed; older, it is a leftover. */
  private static final Duration UNCOMMITTED_GRACE = Duration.ofHours(24);

  private final KubernetesClient client;
  private final ClusterView cache;
  private final Duration keepReplaced;
  private final BackupRuntime runtime;
  private final BackupSlots slots;
  private final EventRecorder events;
  private final BackupOutcomes outcomes;
  private final Clock clock;
  /**
   * What this process last decided per database: the cache shows its own status writes and deletes
   * a moment later, and a sync in between must neither start a second backup nor commit one twice.
   */
  private final Map<BackupSlots.Key, BackupStatus> decided = new java.util.concurrent.ConcurrentHashMap<>();
  /** The Job each database's last commit deleted, until the cache stops showing it. */
  private final Map<BackupSlots.Key, String> committedJobs = new java.util.concurrent.ConcurrentHashMap<>();
  /** The Job this process last created per database, until the cache shows it: its slot is held meanwhile. */
  private final Map<BackupSlots.Key, String> createdJobs = new java.util.concurrent.ConcurrentHashMap<>();
  /** Since when each database waiting for a quiesced backup (an upgrade's, an archive's) has seen its tenant's apps stopped. */
  private final Map<BackupSlots.Key, Instant> appsStoppedSince = new java.util.concurrent.ConcurrentHashMap<>();
  /** The major upgrade this process last recorded per database, until the cache shows it ({@link MajorUpgrades#newer}). */
  private final Map<BackupSlots.Key, UpgradeRecord> upgrades = new java.util.concurrent.ConcurrentHashMap<>();
  /** The archive this process wrote last per tenant, until the cache shows it. */
  private final Map<String, ArchiveStatus> archives = new java.util.concurrent.ConcurrentHashMap<>();
  /** Kinds of the manifests opened, by path. */
  private final Map<String, String> kinds = new java.util.concurrent.ConcurrentHashMap<>();
  private final DatabaseRestores restores;

  /**
   * What one sync found: each database's backup status, the BackedUp and RestoreVerified
   * conditions (null: none, no database keeping data), Restored (null: no restoreFrom), MajorUpgraded
   * (null: no upgrade asked or made), the archive and DataArchived (null: none in flight or in
   * force), whether it wrote anything, and when to look
   * again (empty: only on events; {@code retry}: with backoff, the store being down).
   */
  public record Result(Map<String, BackupStatus> databases, Verdict backedUp, Verdict restoreVerified, Verdict restored,
      Verdict majorUpgraded, ArchiveStatus archive, Verdict dataArchived, boolean acted, Optional<Duration> next,
      boolean retry) {
  }


  /** @param keepReplaced how long the data a restore or a major upgrade replaced is kept (backups.keepReplacedFor) */
  public TenantBackups(KubernetesClient client, ClusterView cache, BackupRuntime runtime, BackupSlots slots,
      EventRecorder events, BackupOutcomes outcomes, Duration keepReplaced, Clock clock) {
    this.client = client;
    this.cache = cache;
    this.keepReplaced = keepReplaced;
    this.runtime = runtime;
    this.slots = slots;
    this.events = events;
    this.outcomes = outcomes;
    this.clock = clock;
    this.restores = new DatabaseRestores(client, cache, runtime, events, clock);
  }

  /** Whether {@code object} is a backup Job or its Secret: only this class creates and deletes them. */
  public static boolean isBackupObject(HasMetadata object) {
    Map<String, String> labels = object.getMetadata().getLabels();
    return labels != null && Labels.COMPONENT_BACKUP.equals(labels.get(Labels.COMPONENT))
        && (object instanceof Job || object instanceof Secret);
  }

  /**
   * How long until a backup of the tenant is due, from its status alone (no API call): empty when
   * none is to start (not Active, or no database keeps data); zero when one is due now, or while a
   * major upgrade runs (its steps wait on the apps, the grace period, the backup and the restore).
   */
  public Optional<Duration> untilDue(Tenant tenant, Plan plan) {
    if (plan == null) {
      return Optional.empty();
    }
    ArchiveStatus archive = archive(tenant);
    if (backedUp(tenant).stream().anyMatch(db -> MajorUpgrades.inProgress(upgrade(tenant, db)))
        || tenant.getSpec().getState() == TenantState.Archived && (archive == null || archive.getReleased() == null)
        || Archives.reactivating(tenant, archive)) {
      return Optional.of(Duration.ZERO); // each step waits on something only a full sync looks at
    }
    if (drillsRun(tenant) && backedUp(tenant).stream().anyMatch(db -> drillWaiting(status(tenant, db.getName())))) {
      return Optional.of(Duration.ZERO);
    }
    Instant now = clock.instant();
    Optional<Duration> soonest = Optional.empty();
    for (DatabaseSpec db : backedUp(tenant)) { // an upgrade's old volume goes in any state
      Optional<Duration> release = MajorUpgrades.untilRelease(upgrade(tenant, db), keepReplaced, now);
      soonest = release.isPresent() ? earliest(soonest, release.get()) : soonest;
    }
    if (tenant.getSpec().getState() != TenantState.Active) {
      return soonest;
    }
    for (DatabaseSpec db : backedUp(tenant)) {
      if (Restores.owed(tenant).contains(db)) {
        continue; // no backup while its data is being replaced
      }
      Duration due = untilDue(tenant, plan.backup(), db, now);
      soonest = soonest.isEmpty() || due.compareTo(soonest.get()) < 0 ? Optional.of(due) : soonest;
    }
    return soonest;
  }

  /** Frees the slots of a tenant that is gone, and forgets what was decided about it. */
  public void forget(String tenant) {
    slots.forget(tenant);
    decided.keySet().removeIf(key -> key.tenant().equals(tenant));
    committedJobs.keySet().removeIf(key -> key.tenant().equals(tenant));
    createdJobs.keySet().removeIf(key -> key.tenant().equals(tenant));
    upgrades.keySet().removeIf(key -> key.tenant().equals(tenant));
    appsStoppedSince.keySet().removeIf(key -> key.tenant().equals(tenant));
    archives.remove(tenant);
    restores.forget(tenant);
  }

  public Result reconcile(TenantContext ctx) {
    Tenant tenant = ctx.tenant();
    Map<String, BackupStatus> statuses = new LinkedHashMap<>();
    Map<String, UpgradeRecord> upgraded = new LinkedHashMap<>();
    boolean acted = false;
    Optional<Duration> next = Optional.empty();
    String storeDown = null;
    ArchiveStatus archiveBefore = archive(tenant);
    ArchiveStatus archive = Archives.begin(tenant, archiveBefore, clock.instant());
    for (DatabaseSpec db : backedUp(tenant)) {
      BackupRecord attemptBefore = lastAttempt(tenant, db);
      DatabaseSync sync = sync(ctx, db, archive);
      BackupRecord attempt = sync.status() == null ? null : sync.status().getLastAttempt();
      if (Archives.wantsBackup(archive, db.getName()) && attempt != null && !attempt.equals(attemptBefore)) {
        archive = Archives.backupStarted(archive, db.getName(), attempt.getId(), tenant.getMetadata().getGeneration(),
            clock.instant());
      }
      if (sync.status() != null) {
        statuses.put(db.getName(), sync.status());
        decided.put(new BackupSlots.Key(ctx.name(), db.getName()), sync.status());
      }
      if (sync.upgrade() != null) {
        upgraded.put(db.getName(), sync.upgrade());
      }
      acted |= sync.acted();
      next = sync.next().isPresent() ? earliest(next, sync.next().get()) : next;
      storeDown = sync.storeDown() != null ? sync.storeDown() : storeDown;
    }
    RestoreSync restored = restore(ctx, statuses, upgraded, archive);
    UpgradeSync upgradeSync = upgrades(ctx, statuses, upgraded);
    acted |= upgradeSync.acted();
    next = upgradeSync.next().isPresent() ? earliest(next, upgradeSync.next().get()) : next;
    storeDown = storeDown != null ? storeDown : restored.storeDown();
    try {
      archive = archiveSteps(ctx, archive, statuses, restored.restores());
    } catch (BackupStoreUnavailableException e) { // the manifest is written or read back at the next try
      archive = Archives.held(archive, Reason.StoreUnavailable, "the backup store is unavailable: " + e.getMessage());
      storeDown = storeDown != null ? storeDown : e.getMessage();
    }
    if (!java.util.Objects.equals(archive, archiveBefore)) {
      acted = true;
    }
    remember(tenant, archive);
    List<DatabaseSpec> kept = backedUp(tenant); // none: no BackedUp, no RestoreVerified
    return new Result(statuses, kept.isEmpty() ? null : backedUp(kept, statuses, storeDown),
        kept.isEmpty() ? null : restoreVerified(tenant, kept, statuses),
        DatabaseRestores.verdict(tenant, restored.restores(), restored.wanted()),
        MajorUpgrades.verdict(tenant, upgraded, dataAt(ctx, upgraded)), archive, Archives.verdict(tenant, archive),
        acted || restored.acted(), next, storeDown != null);
  }

  /**
   * The archive's steps after the backups of this sync: drills judged, the manifest written and read
   * back once every database is drilled, the volumes released once it is (and again after a failed
   * reactivation), the reactivation done once every database is restored from it.
   */
  private ArchiveStatus archiveSteps(TenantContext ctx, ArchiveStatus archive, Map<String, BackupStatus> statuses,
      Map<String, RestoreRecord> restores) {
    Tenant tenant = ctx.tenant();
    Long generation = tenant.getMetadata().getGeneration();
    Instant now = clock.instant();
    archive = Archives.afterBackups(archive, statuses, generation, now);
    if (Archives.readyForManifest(archive)) {
      try {
        archive = Archives.manifestWritten(archive, writeArchiveManifest(ctx, archive), generation, now);
      } catch (NoSuchObjectException | GeneralSecurityException e) { // a backup's manifest went missing or does not open
        archive = Archives.held(archive, Reason.BackupCorrupt, "the archive manifest is not written: " + e.getMessage());
      }
    }
    if (tenant.getSpec().getState() == TenantState.Archived && archive != null && archive.getManifest() != null
        && releaseVolumes(ctx) && archive.getReleased() == null) {
      archive = Archives.released(archive, generation, now);
    }
    if (Archives.reactivating(tenant, archive) && archive.getDatabases().stream().allMatch(e -> restores.get(e.getName()) != null
        && restores.get(e.getName()).restored(e.getBackup()))) {
      archive = Archives.restored(archive, generation, now);
    }
    return archive;
  }

  /**
   * Writes the archive manifest (each database's archive backup, its object's hash, its row counts,
   * from the backup's own manifest), reads it back and checks it: its path, once it is known good.
   * Named by the archive's start, so a restart after the write finds the same one rather than adding another.
   */
  private String writeArchiveManifest(TenantContext ctx, ArchiveStatus archive) throws GeneralSecurityException {
    List<ArchiveManifest.Database> databases = new ArrayList<>();
    for (ArchivedDatabase entry : archive.getDatabases()) {
      BackupLocation location = new BackupLocation(runtime.cluster(), ctx.name(), ctx.tenant().getMetadata().getUid(),
          entry.getName());
      BackupId id = BackupId.parse(entry.getBackup());
      Manifest manifest = Manifest.open(runtime.store().read(location.manifestPath(id)), runtime.kek(), location.manifestPath(id));
      databases.add(new ArchiveManifest.Database(entry.getName(), entry.getBackup(), manifest.sha256(), manifest.tables()));
    }
    ArchiveManifest written = ArchiveManifest.of(runtime.cluster(), ctx.name(), ctx.tenant().getMetadata().getUid(),
        Instant.parse(archive.getStarted()), databases);
    if (runtime.store().stat(written.path()).isEmpty()) {
      runtime.store().create(written.path(), new ByteArrayInputStream(written.seal(runtime.kek())));
    }
    ArchiveManifest read = ArchiveManifest.open(runtime.store().read(written.path()), runtime.kek(), written.path());
    if (!read.equals(written)) {
      throw new GeneralSecurityException("the archive manifest read back from " + written.path() + " is not the one written");
    }
    LOG.info("archive written {} {}", kv("tenant", ctx.name()), kv("manifest", written.path()));
    return written.path();
  }

  /**
   * Deletes the volume claims of the databases an archive releases, each once its StatefulSet is
   * gone (its pod no longer mounts it): whether none of them is left.
   */
  private boolean releaseVolumes(TenantContext ctx) {
    boolean released = true;
    for (DatabaseSpec db : ctx.tenant().getSpec().getDatabases()) {
      if (!Archives.releasesVolumeOf(db)) {
        continue;
      }
      List<PersistentVolumeClaim> claims = cache.ownedBy(ctx.name()).stream()
          .filter(o -> o instanceof PersistentVolumeClaim && o.getMetadata().getLabels() != null
              && Labels.COMPONENT_DATABASE.equals(o.getMetadata().getLabels().get(Labels.COMPONENT))
              && db.getName().equals(o.getMetadata().getLabels().get(Labels.NAME)))
          .map(o -> (PersistentVolumeClaim) o).toList();
      if (statefulSet(ctx, db) != null) {
        released = false; // its StatefulSet goes first (Workloads.REMOVED)
        continue;
      }
      for (PersistentVolumeClaim claim : claims) {
        if (claim.getMetadata().getDeletionTimestamp() == null) {
          JobEnds.delete(client, claim);
          LOG.info("archived volume released {} {} {}", kv("tenant", ctx.name()), kv("database", db.getName()),
              kv("claim", claim.getMetadata().getName()));
        }
        released = false; // gone once the cache no longer shows it
      }
    }
    return released;
  }

  /** The tenant's archive: what this process wrote last, until the cache shows it; else the cache's. */
  private ArchiveStatus archive(Tenant tenant) {
    ArchiveStatus mine = archives.get(tenant.getMetadata().getName());
    ArchiveStatus cached = Archives.recorded(tenant);
    if (mine != null && mine.equals(cached)) {
      archives.remove(tenant.getMetadata().getName());
      return cached;
    }
    return mine != null ? mine : cached;
  }

  private void remember(Tenant tenant, ArchiveStatus archive) {
    if (archive == null || archive.equals(Archives.recorded(tenant))) {
      archives.remove(tenant.getMetadata().getName());
    } else {
      archives.put(tenant.getMetadata().getName(), archive);
    }
  }

  private BackupRecord lastAttempt(Tenant tenant, DatabaseSpec db) {
    BackupStatus status = status(tenant, db.getName());
    return status == null ? null : status.getLastAttempt();
  }

  /**
   * One database's sync: its backup status and major upgrade after it (null: none), whether it
   * wrote anything, when to look again, and the store's error if it was down.
   */
  private record DatabaseSync(BackupStatus status, UpgradeRecord upgrade, boolean acted, Optional<Duration> next,
      String storeDown) {

    static DatabaseSync idle(BackupStatus status, UpgradeRecord upgrade) {
      return new DatabaseSync(status, upgrade, false, Optional.empty(), null);
    }

    static DatabaseSync acted(BackupStatus status, UpgradeRecord upgrade) {
      return new DatabaseSync(status, upgrade, true, Optional.empty(), null);
    }
  }

  /** Commits the database's ended Job, or holds the slot of its running one, or starts what is due. */
  private DatabaseSync sync(TenantContext ctx, DatabaseSpec db, ArchiveStatus archive) {
    BackupSlots.Key key = new BackupSlots.Key(ctx.name(), db.getName());
    BackupStatus status = status(ctx.tenant(), db.getName());
    UpgradeRecord upgrade = takesBackupsOf(db) ? upgrade(ctx.tenant(), db) : null;
    Job job = runningJob(ctx, db, key);
    try {
      if (job != null && JobEnds.ended(job)) {
        BackupStatus ended = isDrill(job) ? judgeDrill(ctx, db, job, status) : commit(ctx, db, job, status);
        committedJobs.put(key, job.getMetadata().getUid());
        slots.release(key);
        return DatabaseSync.acted(ended, upgrade);
      } else if (job != null) {
        slots.hold(key);
        return DatabaseSync.idle(status, upgrade);
      }
      return takesBackupsOf(db) ? startWhatIsDue(ctx, db, key, status, upgrade, archive) : DatabaseSync.idle(status, upgrade);
    } catch (BackupStoreUnavailableException e) { // nothing decided: the Job stays, and the commit is tried again
      LOG.warn("backup store unavailable {} {} {}", kv("tenant", ctx.name()), kv("database", db.getName()),
          kv("error", e.getMessage()));
      return new DatabaseSync(status, upgrade, false, Optional.empty(), e.getMessage());
    }
  }

  /**
   * What a database with no Job starts, each only with a slot: a drill waiting, a major upgrade's
   * or an archive's backup once the apps are stopped, or a backup due (never while its data is
   * being replaced).
   */
  private DatabaseSync startWhatIsDue(TenantContext ctx, DatabaseSpec db, BackupSlots.Key key, BackupStatus status,
      UpgradeRecord upgrade, ArchiveStatus archive) {
    Tenant tenant = ctx.tenant();
    if (drillWaiting(status) && drillsRun(tenant)) {
      if (!slots.acquire(key)) {
        return DatabaseSync.idle(status, upgrade);
      }
      BackupStatus drilled = startDrill(ctx, db, status);
      if (drilled.getLastDrill().getFinished() != null) { // it could not start
        slots.release(key);
      }
      return DatabaseSync.acted(drilled, upgrade);
    }
    if (MajorUpgrades.wantsBackup(upgrade)) {
      DatabaseSync sync = quiescedBackup(ctx, db, key, status, upgrade, upgrade.getFromVolume(), "pre-upgrade");
      return sync.acted() // a refused Job fails the upgrade
          ? DatabaseSync.acted(sync.status(), upgrade.withBackup(sync.status().getLastAttempt().getId())) : sync;
    }
    if (Archives.wantsBackup(archive, db.getName())) {
      return quiescedBackup(ctx, db, key, status, upgrade, null, "archive");
    }
    if (tenant.getSpec().getState() != TenantState.Active || !databaseReady(ctx, db)
        || Restores.owed(tenant).contains(db) || MajorUpgrades.inProgress(upgrade)) { // its data is being replaced
      slots.release(key);
      return DatabaseSync.idle(status, upgrade);
    }
    Duration due = untilDue(tenant, ctx.plan().backup(), db, clock.instant());
    if (!due.isZero()) {
      slots.release(key);
      return new DatabaseSync(status, upgrade, false, Optional.of(due), null);
    }
    return slots.acquire(key) ? DatabaseSync.acted(start(ctx, db, status, null), upgrade) : DatabaseSync.idle(status, upgrade);
  }

  /**
   * What the restores of one sync found: each database's, the backups asked for (by restoreFrom or
   * a reactivation), whether one changed, the store's error if it was down.
   */
  private record RestoreSync(Map<String, RestoreRecord> restores, Map<String, String> wanted, boolean acted, String storeDown) {
  }

  /**
   * Runs each database's restore ({@link DatabaseRestores}) and puts it in {@code statuses}: the
   * spec's restoreFrom, or a major upgrade's backup into its fresh volume once the database runs on it.
   */
  private RestoreSync restore(TenantContext ctx, Map<String, BackupStatus> statuses, Map<String, UpgradeRecord> upgraded,
      ArchiveStatus archive) {
    Tenant tenant = ctx.tenant();
    Map<String, RestoreRecord> restored = new LinkedHashMap<>();
    Map<String, String> wanted = new LinkedHashMap<>();
    boolean acted = false;
    String storeDown = null;
    for (DatabaseSpec spec : tenant.getSpec().getDatabases()) {
      RestoreRecord before = Restores.recorded(tenant, spec.getName());
      UpgradeRecord upgrade = upgraded.get(spec.getName());
      String from = Archives.restoredFrom(tenant, archive) ? Archives.restoreFrom(tenant, archive, spec)
          : MajorUpgrades.restoreFrom(upgrade, statuses.get(spec.getName()), spec);
      if (from != null && (spec.getRestoreFrom() != null || Archives.restoredFrom(tenant, archive))) {
        wanted.put(spec.getName(), from); // what the Restored condition answers for: not an upgrade's
      }
      if (from == null && before == null) {
        continue;
      }
      DatabaseSpec db = withRestoreFrom(spec, from);
      boolean ready = databaseReady(ctx, db) && (!MajorUpgrades.inProgress(upgrade)
          || upgrade.getVolume().equals(MajorUpgrades.claim(statefulSet(ctx, db))));
      RestoreRecord restore = before;
      try {
        restore = drillsRun(tenant) ? restores.reconcile(ctx, db, ready) : before;
      } catch (BackupStoreUnavailableException e) {
        storeDown = e.getMessage();
      }
      if (restore != null) {
        restored.put(db.getName(), restore);
        BackupStatus status = statuses.get(db.getName());
        statuses.put(db.getName(), (status == null ? new BackupStatus() : status).withRestore(restore));
        acted |= !restore.equals(before);
      }
    }
    return new RestoreSync(restored, wanted, acted, storeDown);
  }

  /** {@code db} restored from {@code from} (the spec's own, or an upgrade's backup). */
  private static DatabaseSpec withRestoreFrom(DatabaseSpec db, String from) {
    if (java.util.Objects.equals(from, db.getRestoreFrom())) {
      return db;
    }
    DatabaseSpec copy = new DatabaseSpec(db.getName(), db.getEngine(), db.getVersion(), db.getStorage());
    copy.setEphemeral(db.getEphemeral());
    copy.setMajorUpgrade(db.getMajorUpgrade());
    copy.setPooler(db.getPooler());
    copy.setRestoreFrom(from);
    return copy;
  }

  /** What the upgrades of one sync did: whether a record changed, when an old volume is due to go. */
  private record UpgradeSync(boolean acted, Optional<Duration> next) {
  }

  /**
   * Each database's major upgrade after this sync ({@link MajorUpgrades#next}), in {@code statuses}
   * and {@code upgraded}, with an Event when one starts or ends, and its old volume released once due.
   */
  private UpgradeSync upgrades(TenantContext ctx, Map<String, BackupStatus> statuses, Map<String, UpgradeRecord> upgraded) {
    boolean acted = false;
    Optional<Duration> next = Optional.empty();
    for (DatabaseSpec db : backedUp(ctx.tenant()).stream().filter(TenantBackups::takesBackupsOf).toList()) {
      BackupSlots.Key key = new BackupSlots.Key(ctx.name(), db.getName());
      UpgradeRecord before = upgraded.get(db.getName());
      BackupStatus status = statuses.get(db.getName());
      UpgradeRecord after = MajorUpgrades.next(before, status, db, statefulSet(ctx, db), clock.instant());
      Optional<Duration> release = MajorUpgrades.untilRelease(after, keepReplaced, clock.instant());
      if (release.isPresent() && release.get().isZero()) {
        after = release(ctx, db, after);
      } else if (release.isPresent()) {
        next = earliest(next, release.get());
      }
      if (after == null) {
        upgraded.remove(db.getName());
        upgrades.remove(key);
      } else {
        upgraded.put(db.getName(), after);
        upgrades.put(key, after);
      }
      if (after != null || status != null) {
        statuses.put(db.getName(), (status == null ? new BackupStatus() : status).withUpgrade(after));
      }
      if (!java.util.Objects.equals(before, after)) {
        acted = true;
        announce(ctx, db, before, after);
      }
    }
    return new UpgradeSync(acted, next);
  }

  /**
   * Deletes a succeeded upgrade's old volume claim (its data is on the new volume, and in the
   * upgrade's backup), unless the StatefulSet mounts it: the record, released.
   */
  private UpgradeRecord release(TenantContext ctx, DatabaseSpec db, UpgradeRecord upgrade) {
    if (upgrade.getFromVolume().equals(MajorUpgrades.claim(statefulSet(ctx, db)))) {
      return upgrade; // never the claim in use
    }
    String claim = MajorUpgrades.oldClaim(upgrade, db.getName());
    PersistentVolumeClaim cached = cache.get(PersistentVolumeClaim.class, ctx.namespace(), claim);
    if (cached != null) {
      JobEnds.delete(client, cached);
      LOG.info("old volume released {} {} {}", kv("tenant", ctx.name()), kv("database", db.getName()), kv("claim", claim));
      events.record(ctx.tenant(), EventType.Normal, Reason.UpgradeDone, db.getName() + ": the volume before the upgrade to "
          + upgrade.getTo() + " (claim " + claim + ") is deleted, backups.keepReplacedFor after the upgrade");
    }
    return upgrade.withReleased(clock.instant().toString());
  }

  private void announce(TenantContext ctx, DatabaseSpec db, UpgradeRecord before, UpgradeRecord after) {
    if (after == null) {
      return;
    }
    if (before == null || !after.getStarted().equals(before.getStarted())) {
      LOG.info("upgrade started {} {} {} {}", kv("tenant", ctx.name()), kv("database", db.getName()), kv("from", after.getFrom()),
          kv("to", after.getTo()));
      events.record(ctx.tenant(), EventType.Normal, Reason.Upgrading, db.getName() + ": upgrading " + after.getFrom() + " to "
          + after.getTo() + " through a backup and a restore onto a fresh volume; the apps stop meanwhile");
    } else if (after.getFinished() != null && after.succeeded()) {
      LOG.info("upgrade done {} {} {}", kv("tenant", ctx.name()), kv("database", db.getName()), kv("to", after.getTo()));
      events.record(ctx.tenant(), EventType.Normal, Reason.UpgradeDone, db.getName() + ": upgraded to " + after.getTo()
          + "; the old volume's claim " + after.getFromVolume() + "-" + Names.database(db.getName()) + "-0 is kept");
    } else if (after.getFinished() != null) {
      LOG.warn("upgrade failed {} {} {}", kv("tenant", ctx.name()), kv("database", db.getName()), kv("error", after.getError()));
      events.record(ctx.tenant(), EventType.Warning, Reason.UpgradeFailed, db.getName() + ": " + after.getError()
          + "; back to " + after.getFrom() + " on the old volume");
    }
  }

  /** The database's upgrade: what this process recorded last, or the cache's if newer. */
  private UpgradeRecord upgrade(Tenant tenant, DatabaseSpec db) {
    return MajorUpgrades.newer(upgrades.get(new BackupSlots.Key(tenant.getMetadata().getName(), db.getName())),
        MajorUpgrades.recorded(tenant, db.getName()));
  }

  /** A backup of {@code kind} once the database is quiesced ({@link #untilQuiesced}) and a slot is free. */
  private DatabaseSync quiescedBackup(TenantContext ctx, DatabaseSpec db, BackupSlots.Key key, BackupStatus status,
      UpgradeRecord upgrade, String claim, String kind) {
    Optional<Duration> wait = untilQuiesced(ctx, db, key, claim);
    if (wait.isEmpty() || !wait.get().isZero()) {
      slots.release(key);
      return new DatabaseSync(status, upgrade, false, wait, null);
    } else if (!slots.acquire(key)) {
      return DatabaseSync.idle(status, upgrade);
    }
    BackupStatus started = start(ctx, db, status, kind);
    appsStoppedSince.remove(key);
    return DatabaseSync.acted(started, upgrade);
  }

  /**
   * How long until a backup of a quiesced database may start, a major upgrade's or an archive's (no
   * write after the dump's snapshot may be lost): zero once every app's Deployment has counted no
   * pod for its pods' termination grace period (a Deployment does not count a terminating pod,
   * which may still write until then) and the database is ready, on {@code claim} unless null;
   * empty while that is not so.
   */
  private Optional<Duration> untilQuiesced(TenantContext ctx, DatabaseSpec db, BackupSlots.Key key, String claim) {
    List<Deployment> apps = cache.ownedBy(ctx.name()).stream().filter(o -> o instanceof Deployment)
        .map(o -> (Deployment) o).toList();
    boolean stopped = apps.stream().allMatch(d -> d.getSpec().getReplicas() != null && d.getSpec().getReplicas() == 0
        && (d.getStatus() == null || d.getStatus().getReplicas() == null || d.getStatus().getReplicas() == 0));
    if (!stopped || !databaseReady(ctx, db) || claim != null && !claim.equals(MajorUpgrades.claim(statefulSet(ctx, db)))) {
      appsStoppedSince.remove(key);
      return Optional.empty();
    }
    Instant since = appsStoppedSince.computeIfAbsent(key, k -> clock.instant());
    long grace = apps.stream().map(d -> d.getSpec().getTemplate().getSpec().getTerminationGracePeriodSeconds())
        .filter(java.util.Objects::nonNull).max(Long::compare).orElse(DEFAULT_GRACE_SECONDS);
    Duration left = Duration.between(clock.instant(), since.plusSeconds(grace));
    return Optional.of(left.isNegative() ? Duration.ZERO : left);
  }

  /** The version and volume each database's data is at, for the MajorUpgraded condition. */
  private Map<String, DatabaseVolume> dataAt(TenantContext ctx, Map<String, UpgradeRecord> upgraded) {
    Map<String, DatabaseVolume> data = new LinkedHashMap<>();
    for (DatabaseSpec db : backedUp(ctx.tenant()).stream().filter(TenantBackups::takesBackupsOf).toList()) {
      data.put(db.getName(), MajorUpgrades.dataAt(upgraded.get(db.getName()), db, statefulSet(ctx, db)));
    }
    return data;
  }

  private StatefulSet statefulSet(TenantContext ctx, DatabaseSpec db) {
    return cache.get(StatefulSet.class, ctx.namespace(), Names.database(db.getName()));
  }

  private static Verdict backedUp(List<DatabaseSpec> kept, Map<String, BackupStatus> statuses, String storeDown) {
    if (storeDown != null) {
      return new Verdict("Unknown", Reason.StoreUnavailable, storeDown);
    }
    List<String> unsupported = kept.stream().filter(db -> !takesBackupsOf(db))
        .map(db -> db.getName() + " (" + db.getEngine() + ")").toList();
    for (DatabaseSpec db : kept) {
      BackupStatus status = statuses.get(db.getName());
      BackupRecord attempt = status == null ? null : status.getLastAttempt();
      if (attempt != null && attempt.getReason() != null) {
        return new Verdict("False", Reason.valueOf(attempt.getReason()),
            db.getName() + ": backup " + attempt.getId() + " failed: " + attempt.getError());
      }
    }
    if (!unsupported.isEmpty()) {
      return new Verdict("False", Reason.EngineNotSupported, "no backups for " + String.join(", ", unsupported)
          + " in this version; mark a database that keeps no data spec.databases[].ephemeral: true");
    }
    List<String> never = kept.stream().filter(db -> statuses.get(db.getName()) == null
        || statuses.get(db.getName()).getLast() == null).map(DatabaseSpec::getName).toList();
    if (!never.isEmpty()) {
      return new Verdict("Unknown", Reason.NoBackupYet, "no proven backup yet of " + String.join(", ", never));
    }
    List<String> lasts = kept.stream().map(db -> db.getName() + " " + statuses.get(db.getName()).getLast().getId()).toList();
    return new Verdict("True", Reason.BackupCurrent, "newest proven backups: " + String.join(", ", lasts));
  }

  /**
   * RestoreVerified, from each database's newest drill: False when one failed, True when every
   * database's passed. While a drill waits or runs, the condition stays what it was (its record now
   * names the new drill, not the result before it).
   */
  private static Verdict restoreVerified(Tenant tenant, List<DatabaseSpec> kept, Map<String, BackupStatus> statuses) {
    List<String> passed = new ArrayList<>();
    boolean inFlight = false;
    for (DatabaseSpec db : kept.stream().filter(TenantBackups::takesBackupsOf).toList()) {
      BackupStatus status = statuses.get(db.getName());
      BackupRecord drill = status == null ? null : status.getLastDrill();
      if (drill != null && drill.getFinished() != null && drill.getReason() != null) {
        return new Verdict("False", Reason.valueOf(drill.getReason()),
            db.getName() + ": drill of backup " + drill.getId() + " failed: " + drill.getError());
      } else if (drill != null && drill.getFinished() != null) {
        passed.add(db.getName() + " " + drill.getId());
      } else if (drill != null) {
        inFlight = true;
      }
    }
    if (passed.isEmpty() && !inFlight) {
      return kept.stream().anyMatch(TenantBackups::takesBackupsOf)
          ? new Verdict("Unknown", Reason.NoDrillYet, "no restore drill has run yet; the first proven backup starts one")
          : null;
    }
    Condition previous = tenant.getStatus() == null ? null : tenant.getStatus().getConditions().stream()
        .filter(c -> Conditions.RESTORE_VERIFIED.equals(c.getType())).findFirst().orElse(null);
    if (inFlight && previous != null) {
      return new Verdict(previous.getStatus(), Reason.valueOf(previous.getReason()), previous.getMessage());
    }
    if (inFlight || passed.size() < kept.stream().filter(TenantBackups::takesBackupsOf).count()) {
      return new Verdict("Unknown", Reason.NoDrillYet, "a restore drill is waiting or running");
    }
    return new Verdict("True", Reason.DrillPassed, "restored into a scratch server, every table's row count as backed up: "
        + String.join(", ", passed));
  }

  /** Starts a backup of {@code kind}, or of the kind its cause says when null (on-demand, scheduled). */
  private BackupStatus start(TenantContext ctx, DatabaseSpec db, BackupStatus status, String kind) {
    Instant now = clock.instant();
    BackupId id = BackupId.next(db.getName(), now);
    String path = location(ctx, db).objectPath(id);
    BackupPolicy policy = ctx.plan().backup();
    kind = kind != null ? kind : requestPending(ctx.tenant(), lastAttempt(status), now) ? "on-demand" : "scheduled";
    String token = runtime.tokens().issue(Access.UPLOAD, path, policy.deadlineDuration().plus(TOKEN_GRACE));
    Secret secret = BackupJob.secret(ctx, BackupJob.name(id), db.getName(), DataKey.generate().cleartext(),
        runtime.transferUrl() + TransferHandler.PATH + token);
    // The exact start, not the id's second: a request made later in that second is still to answer.
    BackupRecord attempt = new BackupRecord(id.toString(), now.toString(), null, null, null, null);
    try {
      // The Secret first: the pod mounts it. If the Job is refused, the Secret goes at once.
      client.resource(secret).create();
      try {
        client.resource(BackupJob.job(ctx, db, id, path, kind, policy.deadlineDuration())).create();
        createdJobs.put(new BackupSlots.Key(ctx.name(), db.getName()), BackupJob.name(id));
      } catch (KubernetesClientException e) {
        JobEnds.delete(client, secret);
        throw e;
      }
    } catch (KubernetesClientException e) {
      // Refused (a quota, an admission policy): reported, retried at the next slot; the rest of the sync goes on.
      String message = e.getStatus() != null && e.getStatus().getMessage() != null ? e.getStatus().getMessage() : e.getMessage();
      slots.release(new BackupSlots.Key(ctx.name(), db.getName()));
      events.record(ctx.tenant(), EventType.Warning, Reason.WriteFailed, db.getName() + ": backup Job refused: " + message);
      outcomes.failed(Reason.WriteFailed);
      attempt = new BackupRecord(id.toString(), now.toString(), now.toString(), null, Reason.WriteFailed.name(),
          "the backup Job was refused: " + message);
      return attempted(status, status == null ? null : status.getLast(), attempt);
    }
    LOG.info("backup started {} {} {}", kv("tenant", ctx.name()), kv("database", db.getName()), kv("backup", id.toString()));
    return attempted(status, status == null ? null : status.getLast(), attempt);
  }

  /**
   * Judges an ended Job by the store, writes the manifest if the backup is proven, and deletes the
   * Job and its Secret either way.
   */
  private BackupStatus commit(TenantContext ctx, DatabaseSpec db, Job job, BackupStatus status) {
    Map<String, String> annotations = job.getMetadata().getAnnotations();
    BackupId id = BackupId.parse(annotations.get(BackupJob.BACKUP_ID));
    String path = annotations.get(BackupJob.OBJECT_PATH);
    String now = clock.instant().toString();
    String started = status != null && status.getLastAttempt() != null && id.toString().equals(status.getLastAttempt().getId())
        ? status.getLastAttempt().getStarted() : id.started().toString();
    Secret secret = cache.get(Secret.class, ctx.namespace(), job.getMetadata().getName());
    BackupRecord attempt;
    try {
      long bytes = prove(ctx, db, job, id, path, annotations.get(BackupJob.KIND), secret);
      attempt = new BackupRecord(id.toString(), started, now, bytes, null, null);
      LOG.info("backup proven {} {} {} {}", kv("tenant", ctx.name()), kv("database", db.getName()), kv("backup", id.toString()),
          kv("bytes", bytes));
      outcomes.proven();
      prune(ctx, location(ctx, db));
    } catch (Unproven e) {
      attempt = new BackupRecord(id.toString(), started, now, null, e.reason.name(), e.getMessage());
      LOG.warn("backup failed {} {} {} {} {}", kv("tenant", ctx.name()), kv("database", db.getName()),
          kv("backup", id.toString()), kv("reason", e.reason), kv("error", e.getMessage()));
      events.record(ctx.tenant(), EventType.Warning, e.reason, db.getName() + ": backup " + id + " failed: " + e.getMessage());
      outcomes.failed(e.reason);
    }
    JobEnds.delete(client, job);
    if (secret != null) {
      JobEnds.delete(client, secret);
    }
    if (attempt.getReason() != null) {
      return attempted(status, status == null ? null : status.getLast(), attempt);
    }
    BackupStatus proven = attempted(status, attempt, attempt);
    return "archive".equals(annotations.get(BackupJob.KIND)) // an archive's backup is always drilled
        ? new BackupStatus(proven.getLast(), proven.getLastAttempt(), new BackupRecord(id.toString(), null, null, null, null, null), 0)
        : drillAfter(proven, ctx.plan().backup());
  }

  /** {@code status} with a new backup attempt (and newest proven backup), its drills as they were. */
  private static BackupStatus attempted(BackupStatus status, BackupRecord last, BackupRecord attempt) {
    return new BackupStatus(last, attempt, status == null ? null : status.getLastDrill(),
        status == null ? null : status.getProvenSinceDrill());
  }

  /**
   * After a proven backup: one more since the last drill, and a drill of it waiting for a slot when
   * none ran yet, the last one failed, or the plan's {@code drillEvery} backups were proven since
   * (none with drillEvery 0). A drill still waiting is moved to the newer backup.
   */
  static BackupStatus drillAfter(BackupStatus status, BackupPolicy policy) {
    int since = (status.getProvenSinceDrill() == null ? 0 : status.getProvenSinceDrill()) + 1;
    BackupRecord drill = status.getLastDrill();
    boolean due = policy.drillEvery() > 0
        && (drill == null || drill.getReason() != null || drill.getStarted() == null || since >= policy.drillEvery());
    BackupRecord next = due ? new BackupRecord(status.getLast().getId(), null, null, null, null, null) : drill;
    return new BackupStatus(status.getLast(), status.getLastAttempt(), next, since);
  }

  /** The object's size once proven and its manifest committed; else {@link Unproven} with the reason. */
  private long prove(TenantContext ctx, DatabaseSpec db, Job job, BackupId id, String path, String kind, Secret secret) {
    AgentReport report = JobEnds.report(runtime.store(), BackupLocation.reportPathOf(path));
    if (report != null && !report.succeeded()) {
      throw new Unproven("dumpFailed".equals(report.outcome()) ? Reason.DumpFailed : Reason.UploadFailed, report.error());
    }
    StoredObject object = runtime.store().stat(path).orElseThrow(() -> new Unproven(Reason.BackupNotInStore,
        "the Job ended but " + runtime.store().describe() + " holds no " + path
            + (report == null ? "; the agent reported nothing (" + jobFailure(job) + ")" : "")));
    if (report == null) {
      throw new Unproven(Reason.BackupCorrupt, "the agent reported nothing to check " + path + " against");
    }
    if (object.size() != report.objectBytes() || !object.crc32c().equals(report.crc32c())) {
      throw new Unproven(Reason.BackupCorrupt, "the store holds " + object.size() + " bytes (crc32c " + object.crc32c()
          + ") at " + path + "; the agent sent " + report.objectBytes() + " (crc32c " + report.crc32c() + ")");
    }
    byte[] keyBytes = BackupJob.dataKey(secret);
    if (keyBytes == null) {
      throw new Unproven(Reason.BackupCorrupt, "the backup's key is gone with its Secret " + BackupJob.name(id));
    }
    BackupLocation location = location(ctx, db);
    try (InputStream in = runtime.store().open(path)) {
      DataKey key = DataKey.fromCleartext(keyBytes);
      BackupHeader header = BackupFormat.open(in, key, path).header();
      Manifest manifest = new Manifest(Manifest.FORMAT, id.toString(), location.cluster(), location.tenant(),
          location.tenantUid(), location.database(), kind == null ? "scheduled" : kind, header.engine(), header.serverVersion(),
          id.started(), clock.instant(), report.plaintextBytes(), object.size(), report.sha256(), object.crc32c(),
          Base64.getEncoder().encodeToString(key.wrap(runtime.kek(), path)), header.tables(), header.databaseBytes());
      try {
        runtime.store().create(location.manifestPath(id), new ByteArrayInputStream(manifest.seal(runtime.kek())));
      } catch (ObjectExistsException e) {
        // Committed by an earlier sync that died before deleting the Job: that manifest stands.
        Manifest.open(runtime.store().read(location.manifestPath(id)), runtime.kek(), location.manifestPath(id));
      }
      return object.size();
    } catch (IOException | GeneralSecurityException e) {
      throw new Unproven(Reason.BackupCorrupt, path + " does not open with the backup's key: " + e.getMessage());
    }
  }

  /**
   * Starts the drill waiting in {@code status}: opens the backup's manifest (its key, its size),
   * checks the scratch space fits the quota, then creates the Secret (the key, a download token
   * for the one object, the report path) and the Job. What cannot start is a finished, failed
   * drill, reported; the next proven backup is drilled again.
   */
  private BackupStatus startDrill(TenantContext ctx, DatabaseSpec db, BackupStatus status) {
    String now = clock.instant().toString();
    String backupId = status.getLastDrill().getId();
    BackupLocation location = location(ctx, db);
    BackupId id = BackupId.parse(backupId);
    Manifest manifest;
    try {
      manifest = Manifest.open(runtime.store().read(location.manifestPath(id)), runtime.kek(), location.manifestPath(id));
    } catch (NoSuchObjectException | GeneralSecurityException e) {
      return drillEnded(ctx, db, status, now, Reason.DrillFailed, "the manifest of " + backupId + " does not open: "
          + e.getMessage());
    }
    long scratch = BackupJob.scratchBytes(manifest);
    Optional<String> shortfall = ScratchQuota.shortfall(cache.get(ResourceQuota.class, ctx.namespace(), Names.QUOTA), scratch);
    if (shortfall.isPresent()) {
      return drillEnded(ctx, db, status, now, Reason.DrillDoesNotFit, shortfall.get());
    }
    String name = BackupJob.drillName(backupId);
    BackupPolicy policy = ctx.plan().backup();
    String token = runtime.tokens().issue(Access.DOWNLOAD, location.objectPath(id), location.restoreReportPath(name),
        policy.deadlineDuration().plus(TOKEN_GRACE));
    try {
      Secret secret = BackupJob.secret(ctx, name, db.getName(), manifest.dataKey(runtime.kek()).cleartext(),
          runtime.transferUrl() + TransferHandler.PATH + token);
      client.resource(secret).create();
      try {
        client.resource(BackupJob.drill(ctx, db, manifest, policy.deadlineDuration())).create();
        createdJobs.put(new BackupSlots.Key(ctx.name(), db.getName()), name);
      } catch (KubernetesClientException e) {
        JobEnds.delete(client, secret);
        throw e;
      }
    } catch (GeneralSecurityException e) {
      return drillEnded(ctx, db, status, now, Reason.DrillFailed, "the key of " + backupId + " does not unwrap: "
          + e.getMessage());
    } catch (KubernetesClientException e) {
      String message = e.getStatus() != null && e.getStatus().getMessage() != null ? e.getStatus().getMessage() : e.getMessage();
      return drillEnded(ctx, db, status, now, Reason.WriteFailed, "the drill Job was refused: " + message);
    }
    LOG.info("drill started {} {} {} {}", kv("tenant", ctx.name()), kv("database", db.getName()), kv("backup", backupId),
        kv("scratchBytes", scratch));
    return new BackupStatus(status.getLast(), status.getLastAttempt(), new BackupRecord(backupId, now, null, null, null, null), 0);
  }

  /**
   * Judges an ended drill Job by its agent's report in the store (a Job's "Succeeded" proves
   * nothing: one that ran nothing reports nothing), then deletes the report, the Job and its Secret.
   */
  private BackupStatus judgeDrill(TenantContext ctx, DatabaseSpec db, Job job, BackupStatus status) {
    String backupId = job.getMetadata().getAnnotations().get(BackupJob.DRILL_OF);
    String reportPath = location(ctx, db).restoreReportPath(job.getMetadata().getName());
    AgentReport report = JobEnds.report(runtime.store(), reportPath);
    BackupRecord drill = status == null ? null : status.getLastDrill();
    String started = drill != null && backupId.equals(drill.getId()) && drill.getStarted() != null ? drill.getStarted()
        : job.getMetadata().getCreationTimestamp();
    String now = clock.instant().toString();
    BackupStatus judged;
    if (report != null && report.succeeded()) {
      judged = new BackupStatus(status == null ? null : status.getLast(), status == null ? null : status.getLastAttempt(),
          new BackupRecord(backupId, started, now, report.objectBytes(), null, null),
          status == null ? null : status.getProvenSinceDrill());
      LOG.info("drill passed {} {} {}", kv("tenant", ctx.name()), kv("database", db.getName()), kv("backup", backupId));
      outcomes.drilled(null);
    } else {
      BackupStatus base = status == null ? new BackupStatus() : status;
      base = new BackupStatus(base.getLast(), base.getLastAttempt(), new BackupRecord(backupId, started, null, null, null, null),
          base.getProvenSinceDrill());
      judged = report == null
          ? drillEnded(ctx, db, base, now, Reason.DrillNotRun, "the drill Job ended but its agent reported nothing ("
              + jobFailure(job) + ")")
          : drillEnded(ctx, db, base, now, Reason.DrillFailed, report.outcome() + ": " + report.error());
    }
    runtime.store().delete(reportPath);
    JobEnds.delete(client, job);
    Secret secret = cache.get(Secret.class, ctx.namespace(), job.getMetadata().getName());
    if (secret != null) {
      JobEnds.delete(client, secret);
    }
    return judged;
  }

  /** The drill in {@code status} as failed for {@code reason}: reported, counted and logged. */
  private BackupStatus drillEnded(TenantContext ctx, DatabaseSpec db, BackupStatus status, String now, Reason reason,
      String error) {
    BackupRecord drill = status.getLastDrill();
    LOG.warn("drill failed {} {} {} {} {}", kv("tenant", ctx.name()), kv("database", db.getName()),
        kv("backup", drill.getId()), kv("reason", reason), kv("error", error));
    events.record(ctx.tenant(), EventType.Warning, reason, db.getName() + ": drill of backup " + drill.getId() + " failed: "
        + error);
    outcomes.drilled(reason);
    return new BackupStatus(status.getLast(), status.getLastAttempt(), new BackupRecord(drill.getId(),
        drill.getStarted() == null ? now : drill.getStarted(), now, null, reason.name(), error), status.getProvenSinceDrill());
  }

  /**
   * Deletes what the plan no longer keeps ({@link Retention}), after a commit: from a complete
   * listing only, and not at all when a manifest does not open (a committed backup would look
   * uncommitted). A failure here leaves everything in place for the next commit.
   */
  private void prune(TenantContext ctx, BackupLocation location) {
    try {
      BackupListing listing = BackupListing.of(location, runtime.store().list(location.prefix()));
      List<Retention.Backup> backups = new ArrayList<>();
      for (Map.Entry<BackupId, BackupListing.Entry> entry : listing.entries().entrySet()) {
        if (entry.getValue().committed()) {
          backups.add(Retention.Backup.committed(entry.getKey(), kind(location, entry.getKey())));
        } else {
          backups.add(Retention.Backup.uncommitted(entry.getKey()));
        }
      }
      BackupPolicy policy = ctx.plan().backup();
      Retention.Decision decision = Retention.decide(backups, new Retention.Policy(policy.keepDaily(), policy.keepWeekly(),
          KEEP_PRE_RESTORE, UNCOMMITTED_GRACE), clock.instant(), keepsArchive(ctx));
      for (BackupId id : decision.delete()) {
        for (String path : listing.deletionOrder(id)) {
          runtime.store().delete(path);
        }
        LOG.info("backup pruned {} {} {}", kv("tenant", ctx.name()), kv("database", location.database()), kv("backup", id.toString()));
      }
    } catch (BackupStoreUnavailableException | GeneralSecurityException e) {
      LOG.warn("backups not pruned {} {} {}", kv("tenant", ctx.name()), kv("database", location.database()),
          kv("error", e.getMessage()));
    }
  }

  /**
   * Whether the tenant's archive backups are kept whatever the plan's retention: while an archive is
   * made or in force, and for backups.keepArchiveFor after a reactivation restored the tenant from it.
   */
  private boolean keepsArchive(TenantContext ctx) {
    ArchiveStatus archive = archive(ctx.tenant());
    return archive != null && (archive.getRestored() == null
        || clock.instant().isBefore(Instant.parse(archive.getRestored()).plus(ctx.config().backups().keepArchiveForDuration())));
  }

  /** The kind a committed backup's manifest names; manifests never change, so each is opened once. */
  private String kind(BackupLocation location, BackupId id) throws GeneralSecurityException {
    String path = location.manifestPath(id);
    String kind = kinds.get(path);
    if (kind == null) {
      kind = Manifest.open(runtime.store().read(path), runtime.kek(), path).kind();
      kinds.put(path, kind);
    }
    return kind;
  }

  private static String jobFailure(Job job) {
    return job.getStatus() == null || job.getStatus().getConditions() == null ? "no Job condition"
        : job.getStatus().getConditions().stream().filter(c -> "True".equals(c.getStatus()))
            .map(c -> c.getType() + (c.getReason() == null ? "" : ": " + c.getReason())).findFirst().orElse("no Job condition");
  }

  /**
   * The database's backup or drill Job. The one the last commit deleted is still in the cache for a
   * moment: it is not running, and the guard against committing it again goes only once the cache
   * no longer shows it. The one this process just created may not be in the cache yet: it is read
   * from the API server until the cache shows it (or it is gone), so its slot is not given away.
   */
  private Job runningJob(TenantContext ctx, DatabaseSpec db, BackupSlots.Key key) {
    String gone = committedJobs.get(key);
    List<Job> jobs = jobs(ctx, db);
    if (jobs.stream().noneMatch(j -> j.getMetadata().getUid().equals(gone))) {
      committedJobs.remove(key);
    }
    Job job = jobs.stream().filter(j -> !j.getMetadata().getUid().equals(gone)).findFirst().orElse(null);
    String created = createdJobs.get(key);
    if (created == null || jobs.stream().anyMatch(j -> j.getMetadata().getName().equals(created))) {
      createdJobs.remove(key);
      return job;
    }
    Job fresh = client.batch().v1().jobs().inNamespace(ctx.namespace()).withName(created).get();
    if (fresh == null || fresh.getMetadata().getUid().equals(gone)) {
      createdJobs.remove(key);
      return null;
    }
    return fresh;
  }

  /** The database's backup and drill Jobs the cache shows, the one the last commit deleted included. */
  private List<Job> jobs(TenantContext ctx, DatabaseSpec db) {
    List<Job> jobs = new ArrayList<>();
    for (HasMetadata object : cache.ownedBy(ctx.name())) {
      if (object instanceof Job job && isBackupObject(job)
          && db.getName().equals(job.getMetadata().getLabels().get(Labels.NAME))
          && job.getMetadata().getAnnotations() != null && (job.getMetadata().getAnnotations().containsKey(BackupJob.BACKUP_ID)
              || isDrill(job))) {
        jobs.add(job);
      }
    }
    return jobs;
  }

  private static boolean isDrill(Job job) {
    return job.getMetadata().getAnnotations().containsKey(BackupJob.DRILL_OF);
  }

  /** Whether a drill is waiting for a slot: named, not started. */
  private static boolean drillWaiting(BackupStatus status) {
    return status != null && status.getLastDrill() != null && status.getLastDrill().getStarted() == null;
  }

  /** Drills run while the tenant keeps its data in the cluster, or archives it; they never touch the tenant's database. */
  private static boolean drillsRun(Tenant tenant) {
    TenantState state = tenant.getSpec().getState();
    ArchiveStatus archive = Archives.recorded(tenant);
    return state == TenantState.Active || state == TenantState.Frozen
        || state == TenantState.Archived && archive != null && archive.getManifest() == null; // an archive's drill
  }

  private boolean databaseReady(TenantContext ctx, DatabaseSpec db) {
    StatefulSet set = statefulSet(ctx, db);
    return set != null && set.getStatus() != null && set.getStatus().getReadyReplicas() != null
        && set.getStatus().getReadyReplicas() >= 1;
  }

  /**
   * The schedule's delay, or the request's: a requested time not yet reached (a requester's clock
   * ahead of ours) is waited for, so the attempt starts after it and answers it once.
   */
  private Duration untilDue(Tenant tenant, BackupPolicy policy, DatabaseSpec db, Instant now) {
    Instant last = lastAttempt(status(tenant, db.getName()));
    Duration scheduled = BackupSchedule.untilDue(policy, tenant.getMetadata().getUid(), last, now);
    Instant at = requested(tenant);
    if (at == null || last != null && !last.isBefore(at)) {
      return scheduled;
    }
    Duration wait = at.isAfter(now) ? Duration.between(now, at) : Duration.ZERO;
    return wait.compareTo(scheduled) < 0 ? wait : scheduled;
  }

  /** Whether the tenant asks for a backup (its annotation's time) that no attempt since answered. */
  private static boolean requestPending(Tenant tenant, Instant lastAttempt, Instant now) {
    Instant at = requested(tenant);
    return at != null && !at.isAfter(now) && (lastAttempt == null || lastAttempt.isBefore(at));
  }

  private static Instant requested(Tenant tenant) {
    Map<String, String> annotations = tenant.getMetadata().getAnnotations();
    return parse(annotations == null ? null : annotations.get(REQUESTED));
  }

  private static Instant lastAttempt(BackupStatus status) {
    return status == null || status.getLastAttempt() == null ? null : parse(status.getLastAttempt().getStarted());
  }

  private static Instant parse(String time) {
    try {
      return time == null ? null : Instant.parse(time);
    } catch (DateTimeParseException e) {
      return null;
    }
  }

  /**
   * Whether backups of {@code db} are taken: it keeps data and this version dumps its engine
   * (PostgreSQL). Public for tenantctl, which waits only for the backups a request starts.
   */
  public static boolean takesBackupsOf(DatabaseSpec db) {
    return db.keepsData() && db.getEngine() == DatabaseEngine.POSTGRES;
  }

  /** The databases that keep data: every database but those marked ephemeral. */
  private static List<DatabaseSpec> backedUp(Tenant tenant) {
    return tenant.getSpec().getDatabases().stream().filter(DatabaseSpec::keepsData).toList();
  }

  /**
   * The database's backup status: the tenant's, or what this process decided since if the cache
   * does not show it yet (an attempt that started later, the same attempt now finished, or its
   * drill further along).
   */
  private BackupStatus status(Tenant tenant, String database) {
    BackupStatus cached = previous(tenant, database);
    BackupStatus mine = decided.get(new BackupSlots.Key(tenant.getMetadata().getName(), database));
    if (mine == null || mine.getLastAttempt() == null) {
      return cached;
    }
    BackupRecord seen = cached == null ? null : cached.getLastAttempt();
    if (seen == null) {
      return mine;
    }
    Instant seenStarted = parse(seen.getStarted());
    Instant mineStarted = parse(mine.getLastAttempt().getStarted());
    boolean sameAttempt = seen.getId() != null && seen.getId().equals(mine.getLastAttempt().getId());
    boolean mineNewer = seenStarted == null || mineStarted != null && mineStarted.isAfter(seenStarted)
        || sameAttempt && seen.getFinished() == null && mine.getLastAttempt().getFinished() != null
        || sameAttempt && compareDrills(mine.getLastDrill(), cached.getLastDrill()) > 0;
    return mineNewer ? mine : cached;
  }

  /**
   * Which of two records of a database's newest drill is further along: the one of the later backup
   * (ids sort by time), else waiting, started, then ended. A cache that lags behind this process's
   * own writes must not make an ended drill look waiting again.
   */
  private static int compareDrills(BackupRecord a, BackupRecord b) {
    if (a == null || b == null) {
      return a == null ? (b == null ? 0 : -1) : 1;
    }
    int byBackup = a.getId().compareTo(b.getId());
    return byBackup != 0 ? byBackup : Integer.compare(drillStage(a), drillStage(b));
  }

  private static int drillStage(BackupRecord drill) {
    return drill.getFinished() != null ? 2 : drill.getStarted() != null ? 1 : 0;
  }

  private static BackupStatus previous(Tenant tenant, String database) {
    if (tenant.getStatus() == null) {
      return null;
    }
    return tenant.getStatus().getDatabases().stream().filter(d -> database.equals(d.getName()))
        .map(DatabaseStatus::getBackup).filter(b -> b != null).findFirst().orElse(null);
  }

  private BackupLocation location(TenantContext ctx, DatabaseSpec db) {
    return new BackupLocation(runtime.cluster(), ctx.name(), ctx.tenant().getMetadata().getUid(), db.getName());
  }

  private static Optional<Duration> earliest(Optional<Duration> current, Duration candidate) {
    return current.isEmpty() || candidate.compareTo(current.get()) < 0 ? Optional.of(candidate) : current;
  }

  /** A backup that is not proven, and why. */
  private static final class Unproven extends RuntimeException {
    private final Reason reason;

    Unproven(Reason reason, String message) {
      super(message, null, false, false);
      this.reason = reason;
    }
  }
}
