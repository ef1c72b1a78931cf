package io.tenantry.deploy.cli;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.tenantry.api.v1alpha1.BackupRecord;
import io.tenantry.api.v1alpha1.BackupStatus;
import io.tenantry.api.v1alpha1.DatabaseSpec;
import io.tenantry.api.v1alpha1.DatabaseStatus;
import io.tenantry.api.v1alpha1.Tenant;
import io.tenantry.api.v1alpha1.TenantState;
import io.tenantry.controller.backup.TenantBackups;
import io.tenantry.deploy.rollout.AppVersionWriter;
import io.tenantry.spares.fleet.Cluster;
import io.tenantry.spares.fleet.FleetInputException;
import io.tenantry.spares.fleet.FleetNames;
import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;

/**
 * {@code backup TENANT [--cluster C] [--wait DURATION]}: asks the operator for a backup now, through
 * the annotation it reads ({@value TenantBackups#REQUESTED}), set to the current time by a JSON merge
 * patch so that no other field of the Tenant is written. The request is the tenant's: the operator
 * answers it with a backup of every database it backs up, so there is no per-database request to
 * make. With {@code --wait}, waits for each of those databases' attempt that answers the request
 * (started at or after it) to finish, and prints how each ended.
 */
record BackupCommand(String tenant, String cluster, Duration waitFor) implements Command {

  static final String NAME = "backup";
  /** Exit status of a {@code --wait} that saw a database's backup fail. */
  static final int BACKUP_FAILED = 6;
  static final Duration POLL_INTERVAL = Duration.ofSeconds(1);

  static BackupCommand parse(Args args) {
    args.allowOnly(NAME, "--cluster", "--wait");
    String tenant = args.positionals(NAME, 1, "TENANT").get(0);
    String cluster = args.one("--cluster");
    try {
      FleetNames.requireDnsLabel("TENANT", tenant);
      if (cluster != null) {
        FleetNames.requireDnsLabel("--cluster", cluster);
      }
    } catch (FleetInputException e) {
      throw new UsageException(NAME + ": " + e.getMessage());
    }
    Duration waitFor = args.duration("--wait", null);
    if (waitFor != null && waitFor.isZero()) {
      throw new UsageException("--wait: must be longer than 0s (such as 10m)");
    }
    return new BackupCommand(tenant, cluster, waitFor);
  }

  /** The tenant as read, and the registered cluster it is on. */
  private record Found(String cluster, Tenant tenant) {
  }

  @Override
  public int run(Fleet fleet, Terminal terminal) throws InterruptedException {
    Found found = locate(fleet, terminal);
    String where = found.cluster();
    KubernetesClient client = fleet.client(where);
    Tenant current = found.tenant();
    TenantState state = current.getSpec().getState();
    if (state != TenantState.Active) {
      throw new UsageException(NAME + ": tenant " + tenant + " is " + state + "; backups run for Active tenants only");
    }
    List<String> databases = databases(current, terminal);
    Instant requested = Instant.now();
    String patch = "{\"metadata\":{\"annotations\":{\"" + TenantBackups.REQUESTED + "\":\"" + requested + "\"}}}";
    try {
      client.resources(Tenant.class).withName(tenant).patch(new PatchContext.Builder().withPatchType(PatchType.JSON_MERGE)
          .withFieldManager(AppVersionWriter.FIELD_MANAGER).build(), patch);
    } catch (KubernetesClientException e) {
      if (e.getCode() == 404) {
        throw new CommandFailure(NAME + ": tenant " + tenant + " was deleted from cluster " + where);
      }
      throw e;
    }
    terminal.out().println("backup of tenant " + tenant + " (cluster " + where + ") requested at " + requested + ": "
        + String.join(", ", databases));
    return waitFor == null ? 0 : await(client, databases, requested, terminal);
  }

  /**
   * The registered cluster holding the tenant: {@code --cluster}, else the one of them that has a
   * tenant of that name (a name is one tenant's across the fleet). A cluster that cannot be reached
   * is named on standard error, and is an error only when no other has the tenant.
   */
  private Found locate(Fleet fleet, Terminal terminal) {
    List<String> registered = fleet.records().listClusters().stream().map(Cluster::name).toList();
    if (registered.isEmpty()) {
      throw new UsageException(NAME + ": no cluster is registered; register one with"
          + " tenantctl clusters register NAME --context CONTEXT");
    }
    if (cluster != null && !registered.contains(cluster)) {
      throw new UsageException("--cluster: unknown cluster " + cluster + "; registered: " + String.join(", ", registered));
    }
    List<Found> holders = new ArrayList<>();
    List<String> unreachable = new ArrayList<>();
    for (String name : cluster != null ? List.of(cluster) : registered) {
      try {
        Tenant held = fleet.client(name).resources(Tenant.class).withName(tenant).get();
        if (held != null) {
          holders.add(new Found(name, held));
        }
      } catch (KubernetesClientException e) {
        if (cluster != null) {
          throw e;
        }
        terminal.err().println("tenantctl: cluster " + name + ": cannot look for tenant " + tenant + ": " + e.getMessage());
        unreachable.add(name);
      }
    }
    if (holders.size() > 1) {
      throw new UsageException(NAME + ": a tenant named " + tenant + " is on each of "
          + String.join(", ", holders.stream().map(Found::cluster).toList()) + "; name one with --cluster");
    }
    if (holders.isEmpty() && !unreachable.isEmpty()) {
      throw new CommandFailure(NAME + ": no tenant named " + tenant + " on the clusters reached; cannot reach "
          + String.join(", ", unreachable));
    }
    if (holders.isEmpty()) {
      throw new UsageException(NAME + ": no tenant named " + tenant
          + (cluster != null ? " on cluster " + cluster : " on any registered cluster (" + String.join(", ", registered) + ")"));
    }
    return holders.get(0);
  }

  /**
   * The databases a request backs up, in spec order; refused when there is none. Databases that keep
   * data in an engine this version does not dump are named on standard error: no backup answers them.
   */
  private List<String> databases(Tenant current, Terminal terminal) {
    List<DatabaseSpec> all = current.getSpec().getDatabases();
    List<String> taken = all.stream().filter(TenantBackups::takesBackupsOf).map(DatabaseSpec::getName).toList();
    List<String> ephemeral = all.stream().filter(db -> !db.keepsData()).map(DatabaseSpec::getName).toList();
    List<String> unsupported = all.stream().filter(db -> db.keepsData() && !TenantBackups.takesBackupsOf(db))
        .map(db -> db.getName() + " (" + db.getEngine().name().toLowerCase(Locale.ROOT) + ")").toList();
    if (taken.isEmpty()) {
      List<String> why = new ArrayList<>();
      if (!ephemeral.isEmpty()) {
        why.add("ephemeral: " + String.join(", ", ephemeral));
      }
      if (!unsupported.isEmpty()) {
        why.add("engine not backed up by this version: " + String.join(", ", unsupported));
      }
      throw new UsageException(NAME + ": tenant " + tenant + " has no database to back up ("
          + (all.isEmpty() ? "it has no database" : String.join("; ", why)) + ")");
    }
    if (!unsupported.isEmpty()) {
      terminal.err().println("tenantctl: not backed up by this version (engine): " + String.join(", ", unsupported));
    }
    return taken;
  }

  /**
   * Reads the tenant every {@link #POLL_INTERVAL} until each database's last attempt answers the
   * request and has finished, then prints each outcome: 0 when all succeeded, {@value #BACKUP_FAILED}
   * when one failed. Running out of time, or the tenant leaving Active before a backup started, is a
   * failure (1); the outcomes so far are printed first.
   */
  private int await(KubernetesClient client, List<String> databases, Instant requested, Terminal terminal)
      throws InterruptedException {
    Instant deadline = Instant.now().plus(waitFor);
    terminal.err().println("waiting up to " + describe(waitFor) + " for the backups to finish");
    while (true) {
      Tenant current = client.resources(Tenant.class).withName(tenant).get();
      if (current == null) {
        throw new CommandFailure(NAME + ": tenant " + tenant + " was deleted while its backups were awaited");
      }
      Map<String, BackupRecord> answers = answers(current, databases, requested);
      List<String> unfinished = databases.stream()
          .filter(db -> answers.get(db) == null || answers.get(db).getFinished() == null).toList();
      if (unfinished.isEmpty()) {
        outcomes(answers).forEach(terminal.out()::println);
        return answers.values().stream().anyMatch(r -> r.getReason() != null) ? BACKUP_FAILED : 0;
      }
      List<String> notStarted = databases.stream().filter(db -> answers.get(db) == null).toList();
      if (current.getSpec().getState() != TenantState.Active && !notStarted.isEmpty()) {
        outcomes(answers).forEach(terminal.out()::println);
        throw new CommandFailure(NAME + ": tenant " + tenant + " is now " + current.getSpec().getState()
            + "; backups run for Active tenants only, so " + String.join(", ", notStarted) + " will not be backed up");
      }
      Duration left = Duration.between(Instant.now(), deadline);
      if (left.isNegative() || left.isZero()) {
        outcomes(answers).forEach(terminal.out()::println);
        throw new CommandFailure(NAME + ": not finished within " + describe(waitFor) + ": " + String.join(", ", unfinished)
            + (notStarted.isEmpty() ? "" : " (a backup starts once its database is ready, with backups.enabled in the"
                + " operator's configuration and a free slot)")
            + "; the request stands and the operator still answers it");
      }
      Thread.sleep(Math.min(POLL_INTERVAL.toMillis(), left.toMillis()));
    }
  }

  /** Each database's last attempt if it answers the request (started at or after it), else null. */
  private static Map<String, BackupRecord> answers(Tenant tenant, List<String> databases, Instant requested) {
    Map<String, BackupRecord> answers = new LinkedHashMap<>();
    for (String db : databases) {
      BackupRecord attempt = tenant.getStatus() == null ? null : tenant.getStatus().getDatabases().stream()
          .filter(d -> db.equals(d.getName())).map(DatabaseStatus::getBackup).filter(Objects::nonNull)
          .map(BackupStatus::getLastAttempt).filter(Objects::nonNull).findFirst().orElse(null);
      Instant started = attempt == null ? null : instant(attempt.getStarted());
      answers.put(db, started != null && !started.isBefore(requested) ? attempt : null);
    }
    return answers;
  }

  private static List<String> outcomes(Map<String, BackupRecord> answers) {
    Table table = new Table("DATABASE", "BACKUP", "BYTES", "RESULT");
    answers.forEach((db, r) -> table.row(db, r == null ? null : r.getId(), r == null ? null : r.getBytes(),
        r == null ? "not started" : r.getFinished() == null ? "running"
            : r.getReason() == null ? "succeeded" : "failed: " + r.getReason() + ": " + r.getError()));
    return table.lines();
  }

  private static Instant instant(String time) {
    try {
      return time == null ? null : Instant.parse(time);
    } catch (DateTimeParseException e) {
      return null;
    }
  }

  /** 10m, 1h30m, 90s → 1m30s: as the option is written. */
  private static String describe(Duration duration) {
    return duration.toString().substring(2).toLowerCase(Locale.ROOT);
  }
}
