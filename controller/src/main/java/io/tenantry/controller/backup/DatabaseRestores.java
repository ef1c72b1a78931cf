package io.tenantry.controller.backup;

import static net.logstash.logback.argument.StructuredArguments.kv;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.tenantry.api.v1alpha1.DatabaseEngine;
import io.tenantry.api.v1alpha1.DatabaseSpec;
import io.tenantry.api.v1alpha1.RestoreRecord;
import io.tenantry.api.v1alpha1.Tenant;
import io.tenantry.backup.BackupId;
import io.tenantry.backup.BackupListing;
import io.tenantry.backup.BackupLocation;
import io.tenantry.backup.Manifest;
import io.tenantry.backup.agent.AgentReport;
import io.tenantry.backup.store.NoSuchObjectException;
import io.tenantry.backup.transfer.TransferHandler;
import io.tenantry.backup.transfer.TransferTokens.Access;
import io.tenantry.controller.cache.ClusterView;
import io.tenantry.controller.events.EventRecorder;
import io.tenantry.controller.events.EventType;
import io.tenantry.controller.resources.DatabaseModel;
import io.tenantry.controller.resources.Labels;
import io.tenantry.controller.resources.TenantContext;
import io.tenantry.controller.status.Reason;
import io.tenantry.controller.status.Verdict;
import java.security.GeneralSecurityException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Restores from {@code spec.databases[].restoreFrom}, once per value: resolves the backup (latest,
 * an id, another tenant's when allowed), then a Job restores it into a side database on the
 * tenant's server, checks every table's row count against the backup, and swaps it in, keeping the
 * replaced data under another name. Judged by the agent's report in the store, as drills are; the
 * tenant's apps wait meanwhile ({@link Restores}). The database must be ready: a Frozen tenant's is
 * brought up for it.
 */
final class DatabaseRestores {

  private static final Logger LOG = LoggerFactory.getLogger(DatabaseRestores.class);
  private static final Duration TOKEN_GRACE = Duration.ofMinutes(10);
  private static final DateTimeFormatter STAMP = DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss").withZone(ZoneOffset.UTC);

  private final KubernetesClient client;
  private final ClusterView cache;
  private final BackupRuntime runtime;
  private final EventRecorder events;
  private final Clock clock;
  /** What this process last decided per database, until the cache shows the tenant's status with it. */
  private final Map<BackupSlots.Key, RestoreRecord> decided = new ConcurrentHashMap<>();

  DatabaseRestores(KubernetesClient client, ClusterView cache, BackupRuntime runtime, EventRecorder events, Clock clock) {
    this.client = client;
    this.cache = cache;
    this.runtime = runtime;
    this.events = events;
    this.clock = clock;
  }

  /** A restore that cannot start, and why. */
  private static final class Refused extends Exception {
    private final Reason reason;

    Refused(Reason reason, String message) {
      super(message, null, false, false);
      this.reason = reason;
    }
  }

  /** The database's restore after this sync: judged, started, or as it was. */
  RestoreRecord reconcile(TenantContext ctx, DatabaseSpec db, boolean databaseReady) {
    BackupSlots.Key key = new BackupSlots.Key(ctx.name(), db.getName());
    RestoreRecord restore = current(ctx.tenant(), db.getName());
    Job job = job(ctx, db);
    String wanted = db.getRestoreFrom();
    if (job != null && JobEnds.ended(job) && restore != null && restore.getFinished() == null) {
      restore = judge(ctx, db, job, restore);
    } else if (job == null && wanted != null && (restore == null || !wanted.equals(restore.getRequested())) && databaseReady) {
      restore = start(ctx, db, wanted);
    }
    if (restore != null) {
      decided.put(key, restore);
    }
    return restore;
  }

  void forget(String tenant) {
    decided.keySet().removeIf(key -> key.tenant().equals(tenant));
  }

  /**
   * The Restored condition: null when no database asks for a restore.
   *
   * @param wanted the backup each database is to be restored from (its restoreFrom, or its archive's)
   */
  static Verdict verdict(Tenant tenant, Map<String, RestoreRecord> restores, Map<String, String> wanted) {
    List<String> done = new ArrayList<>();
    List<String> waiting = new ArrayList<>();
    for (DatabaseSpec db : tenant.getSpec().getDatabases()) {
      String from = wanted.get(db.getName());
      if (from == null) {
        continue;
      }
      RestoreRecord restore = restores.get(db.getName());
      if (restore == null || !from.equals(restore.getRequested()) || restore.getFinished() == null) {
        waiting.add(db.getName() + " from " + from);
      } else if (restore.getReason() != null) {
        return new Verdict("False", Reason.valueOf(restore.getReason()), db.getName() + ": restore from "
            + restore.getRequested() + " failed: " + restore.getError() + "; its apps wait"
            + (db.getRestoreFrom() != null ? ": change or remove restoreFrom" : ", the archive is kept"));
      } else {
        done.add(db.getName() + " from " + restore.getBackup() + " (the data it replaced is kept as " + restore.getReplaced() + ")");
      }
    }
    if (!waiting.isEmpty()) {
      return new Verdict("Unknown", Reason.Restoring, "restoring " + String.join(", ", waiting) + "; the apps wait");
    }
    return done.isEmpty() ? null : new Verdict("True", Reason.RestoreDone, "restored " + String.join(", ", done));
  }

  private RestoreRecord start(TenantContext ctx, DatabaseSpec db, String wanted) {
    Instant now = clock.instant();
    String stamp = STAMP.format(now);
    String name = BackupJob.restoreName(db.getName(), stamp);
    String backup = wanted;
    try {
      if (db.getEngine() != DatabaseEngine.POSTGRES) {
        throw new Refused(Reason.EngineNotSupported, "this version restores PostgreSQL databases only");
      }
      Manifest manifest = resolve(ctx, db, wanted);
      backup = (manifest.tenant().equals(ctx.name()) ? "" : manifest.tenant() + "/") + manifest.id();
      String base = DatabaseModel.defaultUsername(db.getEngine());
      String digits = stamp.replace("-", "");
      String keepAs = base + "_before_" + digits;
      BackupLocation own = location(ctx, db, ctx.name(), ctx.tenant().getMetadata().getUid());
      Duration deadline = ctx.plan().backup().deadlineDuration();
      String token = runtime.tokens().issue(Access.DOWNLOAD, manifest.location().objectPath(manifest.backupId()),
          own.restoreReportPath(name), deadline.plus(TOKEN_GRACE));
      Secret secret = BackupJob.secret(ctx, name, db.getName(), manifest.dataKey(runtime.kek()).cleartext(),
          runtime.transferUrl() + TransferHandler.PATH + token);
      client.resource(secret).create();
      try {
        client.resource(BackupJob.restore(ctx, db, manifest, wanted, backup, name, base + "_restore_" + digits, keepAs,
            deadline)).create();
      } catch (KubernetesClientException e) {
        JobEnds.delete(client, secret);
        throw e;
      }
      LOG.info("restore started {} {} {} {}", kv("tenant", ctx.name()), kv("database", db.getName()), kv("restoreFrom", wanted),
          kv("backup", backup));
      return new RestoreRecord(wanted, backup, now.toString(), null, keepAs, null, null);
    } catch (Refused e) {
      return failed(ctx, db, new RestoreRecord(wanted, backup, now.toString(), null, null, null, null), e.reason, e.getMessage());
    } catch (GeneralSecurityException e) {
      return failed(ctx, db, new RestoreRecord(wanted, backup, now.toString(), null, null, null, null), Reason.RestoreFailed,
          "the backup's key does not unwrap: " + e.getMessage());
    } catch (KubernetesClientException e) {
      String message = e.getStatus() != null && e.getStatus().getMessage() != null ? e.getStatus().getMessage() : e.getMessage();
      return failed(ctx, db, new RestoreRecord(wanted, backup, now.toString(), null, null, null, null), Reason.WriteFailed,
          "the restore Job was refused: " + message);
    }
  }

  /** The manifest restoreFrom names, opened (and so checked to belong where it was read). */
  private Manifest resolve(TenantContext ctx, DatabaseSpec db, String wanted) throws Refused {
    int slash = wanted.indexOf('/');
    String tenant = slash < 0 ? ctx.name() : wanted.substring(0, slash);
    String which = wanted.substring(slash + 1);
    String uid = ctx.tenant().getMetadata().getUid();
    if (!tenant.equals(ctx.name())) {
      if (!ctx.config().backups().crossTenantRestores()) {
        throw new Refused(Reason.CrossTenantRestoreRefused, "restoreFrom names tenant " + tenant
            + "'s backup; the operator's backups.crossTenantRestores is off");
      }
      Tenant other = cache.tenant(tenant);
      if (other == null) {
        throw new Refused(Reason.BackupNotFound, "there is no tenant " + tenant + " in this cluster");
      }
      uid = other.getMetadata().getUid();
    }
    BackupLocation location = location(ctx, db, tenant, uid);
    BackupId id;
    if (which.equals("latest")) {
      id = BackupListing.of(location, runtime.store().list(location.prefix())).entries().entrySet().stream()
          .filter(e -> e.getValue().committed()).map(Map.Entry::getKey).reduce((a, b) -> b)
          .orElseThrow(() -> new Refused(Reason.BackupNotFound, "no proven backup of " + tenant + "/" + db.getName()
              + " is in " + runtime.store().describe()));
    } else {
      id = BackupId.parse(which);
    }
    String path = location.manifestPath(id);
    try {
      return Manifest.open(runtime.store().read(path), runtime.kek(), path);
    } catch (NoSuchObjectException e) {
      throw new Refused(Reason.BackupNotFound, "no proven backup " + id + " of " + tenant + "/" + db.getName() + " is in "
          + runtime.store().describe());
    } catch (GeneralSecurityException e) {
      throw new Refused(Reason.RestoreFailed, "the manifest of " + id + " does not open at " + path + ": " + e.getMessage());
    }
  }

  private RestoreRecord judge(TenantContext ctx, DatabaseSpec db, Job job, RestoreRecord restore) {
    String reportPath = location(ctx, db, ctx.name(), ctx.tenant().getMetadata().getUid())
        .restoreReportPath(job.getMetadata().getName());
    AgentReport report = JobEnds.report(runtime.store(), reportPath);
    RestoreRecord judged;
    if (report != null && report.succeeded()) {
      judged = new RestoreRecord(restore.getRequested(), restore.getBackup(), restore.getStarted(), clock.instant().toString(),
          restore.getReplaced(), null, null);
      LOG.info("restore done {} {} {} {}", kv("tenant", ctx.name()), kv("database", db.getName()),
          kv("backup", restore.getBackup()), kv("replaced", restore.getReplaced()));
    } else {
      RestoreRecord unswapped = new RestoreRecord(restore.getRequested(), restore.getBackup(), restore.getStarted(), null, null,
          null, null);
      judged = failed(ctx, db, unswapped, Reason.RestoreFailed, report == null
          ? "the restore Job ended but its agent reported nothing" : report.outcome() + ": " + report.error());
    }
    runtime.store().delete(reportPath);
    JobEnds.delete(client, job);
    Secret secret = cache.get(Secret.class, ctx.namespace(), job.getMetadata().getName());
    if (secret != null) {
      JobEnds.delete(client, secret);
    }
    return judged;
  }

  private RestoreRecord failed(TenantContext ctx, DatabaseSpec db, RestoreRecord restore, Reason reason, String error) {
    LOG.warn("restore failed {} {} {} {} {}", kv("tenant", ctx.name()), kv("database", db.getName()),
        kv("restoreFrom", restore.getRequested()), kv("reason", reason), kv("error", error));
    events.record(ctx.tenant(), EventType.Warning, reason, db.getName() + ": restore from " + restore.getRequested()
        + " failed: " + error);
    return new RestoreRecord(restore.getRequested(), restore.getBackup(), restore.getStarted(), clock.instant().toString(),
        null, reason.name(), error);
  }

  /** The status's restore, or what this process decided since if the cache does not show it yet. */
  private RestoreRecord current(Tenant tenant, String database) {
    RestoreRecord cached = Restores.recorded(tenant, database);
    RestoreRecord mine = decided.get(new BackupSlots.Key(tenant.getMetadata().getName(), database));
    if (mine == null) {
      return cached;
    }
    if (cached == null) {
      return mine;
    }
    if (mine.getStarted().equals(cached.getStarted())) {
      return cached.getFinished() == null ? mine : cached; // the same restore, judged since
    }
    return Instant.parse(mine.getStarted()).isAfter(Instant.parse(cached.getStarted())) ? mine : cached;
  }

  private Job job(TenantContext ctx, DatabaseSpec db) {
    for (HasMetadata object : cache.ownedBy(ctx.name())) {
      if (object instanceof Job job && TenantBackups.isBackupObject(job)
          && db.getName().equals(job.getMetadata().getLabels().get(Labels.NAME))
          && job.getMetadata().getAnnotations() != null && job.getMetadata().getAnnotations().containsKey(BackupJob.RESTORE_OF)
          && job.getMetadata().getDeletionTimestamp() == null) {
        return job;
      }
    }
    return null;
  }

  private BackupLocation location(TenantContext ctx, DatabaseSpec db, String tenant, String uid) {
    return new BackupLocation(runtime.cluster(), tenant, uid, db.getName());
  }
}
