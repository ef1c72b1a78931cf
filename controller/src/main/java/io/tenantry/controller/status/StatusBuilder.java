package io.tenantry.controller.status;

import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.Namespace;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.api.model.autoscaling.v2.HorizontalPodAutoscaler;
import io.tenantry.api.v1alpha1.AppSpec;
import io.tenantry.api.v1alpha1.AppStatus;
import io.tenantry.api.v1alpha1.ArchiveStatus;
import io.tenantry.api.v1alpha1.BackupStatus;
import io.tenantry.api.v1alpha1.DatabaseSpec;
import io.tenantry.api.v1alpha1.DatabaseStatus;
import io.tenantry.api.v1alpha1.StateTimestamps;
import io.tenantry.api.v1alpha1.Tenant;
import io.tenantry.api.v1alpha1.TenantPhase;
import io.tenantry.api.v1alpha1.TenantState;
import io.tenantry.api.v1alpha1.TenantStatus;
import io.tenantry.controller.autoscaling.Autoscaling;
import io.tenantry.controller.config.Plan;
import io.tenantry.controller.resources.Labels;
import io.tenantry.controller.resources.Workloads;
import io.tenantry.controller.rollout.Readiness;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * Pure: what a tenant's status should say, from what the cache shows. An app's version in the
 * status is the version that is fully rolled out, so it changes only once the new one is available.
 */
public final class StatusBuilder {

  /**
   * What the cache shows of a tenant's namespace and workloads, keyed by app and database name;
   * {@code poolers} by the name of the database they front, {@code autoscalers} by app name.
   */
  public record Observed(Namespace namespace, Map<String, Deployment> deployments, Map<String, StatefulSet> statefulSets,
      Map<String, Deployment> poolers, Map<String, HorizontalPodAutoscaler> autoscalers) {

    /** Without poolers or autoscalers. */
    public Observed(Namespace namespace, Map<String, Deployment> deployments, Map<String, StatefulSet> statefulSets) {
      this(namespace, deployments, statefulSets, Map.of(), Map.of());
    }
  }

  private StatusBuilder() {
  }

  /** The status of a tenant whose objects are in place, with its workloads as {@code workloads} asks. */
  public static TenantStatus provisioned(Tenant tenant, String namespace, Observed observed, Workloads workloads,
      SecretsStatus secrets, String now) {
    TenantStatus status = switch (workloads) {
      case RUNNING -> running(tenant, namespace, observed, now);
      case SCALED_TO_ZERO -> stopped(tenant, namespace, observed, TenantPhase.Frozen, Reason.Frozen,
          "workloads scaled to zero", observed.deployments().values().stream().allMatch(Readiness::rolledOut)
              && observed.statefulSets().values().stream().allMatch(Readiness::rolledOut)
              && observed.poolers().values().stream().allMatch(Readiness::rolledOut), now);
      case RESTORING -> tenant.getSpec().getState() == TenantState.Archived
          ? stopped(tenant, namespace, observed, TenantPhase.Archiving, Reason.Archiving,
              "the databases run for their archive, the apps are at zero (condition DataArchived)", true, now)
          : stopped(tenant, namespace, observed, TenantPhase.Progressing, Reason.Restoring,
          "apps wait for the restore or upgrade of " + String.join(", ", tenant.getSpec().getDatabases().stream()
              .filter(d -> d.getRestoreFrom() != null || upgrading(tenant, d.getName()))
              .map(d -> d.getName()).toList()) + " (conditions Restored, MajorUpgraded)", true, now);
      case REMOVED -> stopped(tenant, namespace, observed, TenantPhase.Archived, Reason.Archived,
          "workloads removed; volumes and secrets kept",
          observed.deployments().isEmpty() && observed.statefulSets().isEmpty() && observed.poolers().isEmpty(), now);
    };
    return withSecrets(status, tenant, secrets, now);
  }

  /**
   * Adds the SecretsSynced condition (after NamespaceReady) and, when the secrets are in place,
   * the version they are at; a failure keeps the version last applied. Readiness does not depend
   * on it: a tenant whose secrets cannot be refreshed keeps running on the ones it has.
   */
  static TenantStatus withSecrets(TenantStatus status, Tenant tenant, SecretsStatus secrets, String now) {
    List<Condition> previous = tenant.getStatus() == null ? List.of() : tenant.getStatus().getConditions();
    Condition condition = Conditions.condition(previous, Conditions.SECRETS_SYNCED, secrets.synced(), secrets.reason(),
        secrets.message(), tenant.getMetadata().getGeneration(), now);
    List<Condition> conditions = new ArrayList<>(status.getConditions());
    conditions.removeIf(c -> Conditions.SECRETS_SYNCED.equals(c.getType()));
    conditions.add(Math.min(2, conditions.size()), condition);
    status.setConditions(conditions);
    if (secrets.synced()) {
      status.setSecretsVersion(secrets.version());
    }
    return status;
  }

  /**
   * Adds the Routed condition (last) and status.urls, or removes both when routing does not
   * concern the tenant. Readiness does not depend on it: a tenant that lost a hostname to another
   * still serves its customer on the others.
   */
  public static TenantStatus withRouting(TenantStatus status, Tenant tenant, RoutingStatus routing, String now) {
    List<Condition> conditions = new ArrayList<>(status.getConditions());
    conditions.removeIf(c -> Conditions.ROUTED.equals(c.getType()));
    if (routing.applies()) {
      List<Condition> previous = tenant.getStatus() == null ? List.of() : tenant.getStatus().getConditions();
      conditions.add(Conditions.condition(previous, Conditions.ROUTED, routing.routed(), routing.reason(), routing.message(),
          tenant.getMetadata().getGeneration(), now));
    }
    status.setConditions(conditions);
    status.setUrls(routing.urls().isEmpty() ? null : routing.urls());
    return status;
  }

  /**
   * Adds each app's pods in short form ({@code status.replicas}) and, when an app is autoscaled,
   * the Autoscaled condition: True with each app's bounds, False naming each app whose bounds the
   * plan lowered.
   */
  public static TenantStatus withAutoscaling(TenantStatus status, Tenant tenant, Plan plan, Observed observed, String now) {
    TenantStatus result = copyOf(status);
    result.setReplicas(Autoscaling.summary(tenant.getSpec().getApps(), observed.deployments(), observed.autoscalers()));
    List<String> asAsked = new ArrayList<>();
    List<String> clamped = new ArrayList<>();
    for (AppSpec app : tenant.getSpec().getApps()) {
      Autoscaling.bounds(app, plan).ifPresent(b -> {
        if (b.clamped()) {
          clamped.add(app.getName() + ": maxReplicas " + app.getAutoscaling().getMaxReplicas() + " is above the plan's "
              + plan.maxReplicasPerApp() + ", its HPA scales " + b.min() + "-" + b.max());
        } else {
          asAsked.add(app.getName() + " " + b.min() + "-" + b.max() + " at " + b.targetCpu() + "% CPU");
        }
      });
    }
    if (asAsked.isEmpty() && clamped.isEmpty()) {
      return result;
    }
    List<Condition> previous = tenant.getStatus() == null ? List.of() : tenant.getStatus().getConditions();
    List<Condition> conditions = new ArrayList<>(result.getConditions());
    conditions.removeIf(c -> Conditions.AUTOSCALED.equals(c.getType()));
    conditions.add(clamped.isEmpty()
        ? Conditions.condition(previous, Conditions.AUTOSCALED, true, Reason.AsAsked, "scaled by their HPA: "
            + String.join(", ", asAsked), tenant.getMetadata().getGeneration(), now)
        : Conditions.condition(previous, Conditions.AUTOSCALED, false, Reason.ClampedByPlan, String.join("; ", clamped),
            tenant.getMetadata().getGeneration(), now));
    result.setConditions(conditions);
    return result;
  }

  /**
   * Adds each database's backup status and the BackedUp condition (after the others), or removes
   * the condition when no database of the tenant keeps data.
   *
   * @param backups each database's backup status, by name
   * @param backedUp the condition's status (True, False, Unknown), or null for none
   */
  public static TenantStatus withBackups(TenantStatus status, Tenant tenant, Map<String, BackupStatus> backups,
      Verdict backedUp, Verdict restoreVerified, Verdict restored, Verdict majorUpgraded, ArchiveStatus archive,
      Verdict dataArchived, String now) {
    TenantStatus result = copyOf(status);
    result.setDatabases(status.getDatabases().stream().map(d -> d.withBackup(backups.get(d.getName()))).toList());
    List<Condition> conditions = new ArrayList<>(status.getConditions());
    conditions.removeIf(c -> Conditions.BACKED_UP.equals(c.getType()) || Conditions.RESTORE_VERIFIED.equals(c.getType())
        || Conditions.RESTORED.equals(c.getType()) || Conditions.MAJOR_UPGRADED.equals(c.getType())
        || Conditions.DATA_ARCHIVED.equals(c.getType()));
    List<Condition> previous = tenant.getStatus() == null ? List.of() : tenant.getStatus().getConditions();
    if (backedUp != null) {
      conditions.add(Conditions.condition(previous, Conditions.BACKED_UP, backedUp.status(), backedUp.reason(),
          backedUp.message(), tenant.getMetadata().getGeneration(), now));
    }
    if (restoreVerified != null) {
      conditions.add(Conditions.condition(previous, Conditions.RESTORE_VERIFIED, restoreVerified.status(),
          restoreVerified.reason(), restoreVerified.message(), tenant.getMetadata().getGeneration(), now));
    }
    if (restored != null) {
      conditions.add(Conditions.condition(previous, Conditions.RESTORED, restored.status(), restored.reason(),
          restored.message(), tenant.getMetadata().getGeneration(), now));
    }
    if (majorUpgraded != null) {
      conditions.add(Conditions.condition(previous, Conditions.MAJOR_UPGRADED, majorUpgraded.status(), majorUpgraded.reason(),
          majorUpgraded.message(), tenant.getMetadata().getGeneration(), now));
    }
    if (dataArchived != null) {
      conditions.add(Conditions.condition(previous, Conditions.DATA_ARCHIVED, dataArchived.status(), dataArchived.reason(),
          dataArchived.message(), tenant.getMetadata().getGeneration(), now));
    }
    result.setArchive(archive);
    result.setConditions(conditions);
    return restoreFailed(restored) && result.getPhase() == TenantPhase.Progressing
        ? failed(result, tenant.getMetadata().getGeneration(), restored.reason(),
            "the apps wait for a restore that failed: " + restored.message(), now)
        : result;
  }

  /**
   * Whether a restore ended in a way no retry mends (a backup that does not restore, none to be
   * found, one refused): the apps it holds back would wait for ever, so the tenant is Degraded.
   */
  private static boolean restoreFailed(Verdict restored) {
    return restored != null && "False".equals(restored.status()) && (restored.reason() == Reason.RestoreFailed
        || restored.reason() == Reason.BackupNotFound || restored.reason() == Reason.CrossTenantRestoreRefused);
  }

  /** Whether the status records a major upgrade of {@code database} that has not ended. */
  private static boolean upgrading(Tenant tenant, String database) {
    return tenant.getStatus() != null && tenant.getStatus().getDatabases().stream()
        .anyMatch(d -> database.equals(d.getName()) && d.getBackup() != null && d.getBackup().getUpgrade() != null
            && d.getBackup().getUpgrade().running());
  }

  private static TenantStatus running(Tenant tenant, String namespace, Observed observed, String now) {
    TenantStatus previous = Optional.ofNullable(tenant.getStatus()).orElseGet(TenantStatus::new);
    Long generation = tenant.getMetadata().getGeneration();

    List<DatabaseStatus> databases = new ArrayList<>();
    for (DatabaseSpec db : tenant.getSpec().getDatabases()) {
      // A pooled database serves its apps through its pooler: ready once both are rolled out.
      databases.add(new DatabaseStatus(db.getName(), Readiness.rolledOut(observed.statefulSets().get(db.getName()))
          && (db.getPooler() == null || Readiness.rolledOut(observed.poolers().get(db.getName())))));
    }
    List<AppStatus> apps = new ArrayList<>();
    for (AppSpec app : tenant.getSpec().getApps()) {
      Deployment deployment = observed.deployments().get(app.getName());
      boolean ready = Readiness.rolledOut(deployment);
      String version = ready ? deployment.getSpec().getTemplate().getMetadata().getLabels().get(Labels.VERSION)
          : previous.getApps().stream().filter(a -> a.getName().equals(app.getName())).map(AppStatus::getVersion)
              .filter(v -> v != null).findFirst().orElse(null);
      apps.add(new AppStatus(app.getName(), version, ready, Readiness.availableReplicas(deployment)));
    }

    boolean namespaceReady = observed.namespace() != null && observed.namespace().getMetadata().getDeletionTimestamp() == null;
    List<String> waitingDatabases = databases.stream().filter(d -> !d.getReady()).map(DatabaseStatus::getName).toList();
    List<String> waitingApps = apps.stream().filter(a -> !a.getReady()).map(AppStatus::getName).toList();
    boolean ready = namespaceReady && waitingDatabases.isEmpty() && waitingApps.isEmpty();

    List<Condition> old = previous.getConditions();
    List<Condition> conditions = List.of(
        Conditions.condition(old, Conditions.READY, ready,
            ready ? Reason.Converged : !namespaceReady ? Reason.NamespaceNotReady : !waitingDatabases.isEmpty() ? Reason.DatabasesNotReady : Reason.AppsNotReady,
            ready ? "every database and app is rolled out and available" : waitingMessage(namespaceReady, namespace, waitingDatabases, waitingApps),
            generation, now),
        Conditions.condition(old, Conditions.NAMESPACE_READY, namespaceReady,
            namespaceReady ? Reason.Exists : observed.namespace() == null ? Reason.Missing : Reason.Terminating,
            "namespace " + namespace + (namespaceReady ? " exists" : observed.namespace() == null ? " does not exist yet" : " is terminating"),
            generation, now),
        Conditions.condition(old, Conditions.DATABASES_READY, waitingDatabases.isEmpty(),
            waitingDatabases.isEmpty() ? Reason.RolledOut : Reason.RollingOut,
            waitingDatabases.isEmpty() ? databases.size() + " of " + databases.size() + " databases ready"
                : "waiting for databases: " + String.join(", ", waitingDatabases),
            generation, now),
        Conditions.condition(old, Conditions.APPS_READY, waitingApps.isEmpty(),
            waitingApps.isEmpty() ? Reason.RolledOut : Reason.RollingOut,
            waitingApps.isEmpty() ? apps.size() + " of " + apps.size() + " apps available"
                : "waiting for apps: " + String.join(", ", waitingApps),
            generation, now));

    TenantStatus status = copyOf(previous);
    status.setPhase(ready ? TenantPhase.Ready
        : previous.getPhase() == null || previous.getPhase() == TenantPhase.Provisioning ? TenantPhase.Provisioning
        : TenantPhase.Progressing);
    status.setObservedGeneration(generation);
    status.setNamespace(namespace);
    status.setConditions(new ArrayList<>(conditions));
    status.setApps(apps);
    status.setDatabases(databases);
    status.setVersions(apps.stream().filter(a -> a.getVersion() != null)
        .map(a -> a.getName() + "=" + a.getVersion()).collect(Collectors.joining(",")));
    return status;
  }

  /**
   * A Frozen or Archived tenant: phase {@code done} once its workloads are scaled down or gone,
   * Progressing until then; never Ready. App versions stay as last rolled out.
   */
  private static TenantStatus stopped(Tenant tenant, String namespace, Observed observed, TenantPhase done, Reason reason,
      String message, boolean settled, String now) {
    TenantStatus previous = Optional.ofNullable(tenant.getStatus()).orElseGet(TenantStatus::new);
    Long generation = tenant.getMetadata().getGeneration();
    boolean namespaceReady = observed.namespace() != null && observed.namespace().getMetadata().getDeletionTimestamp() == null;
    TenantStatus status = copyOf(previous);
    status.setPhase(settled ? done : TenantPhase.Progressing);
    status.setObservedGeneration(generation);
    status.setNamespace(namespace);
    status.setConditions(new ArrayList<>(List.of(
        Conditions.condition(previous.getConditions(), Conditions.READY, false, reason,
            settled ? message : "scaling down: " + message, generation, now),
        Conditions.condition(previous.getConditions(), Conditions.NAMESPACE_READY, namespaceReady,
            namespaceReady ? Reason.Exists : Reason.Missing, "namespace " + namespace + (namespaceReady ? " exists" : " is missing"),
            generation, now))));
    status.setApps(previous.getApps().stream()
        .map(a -> new AppStatus(a.getName(), a.getVersion(), false, 0)).toList());
    status.setDatabases(previous.getDatabases().stream().map(d -> new DatabaseStatus(d.getName(), false)).toList());
    return status;
  }

  /** A Purged tenant: Purging while its namespace and external records are being deleted, then Purged. */
  public static TenantStatus purged(Tenant tenant, boolean done, String message, String now) {
    TenantStatus previous = Optional.ofNullable(tenant.getStatus()).orElseGet(TenantStatus::new);
    TenantStatus status = copyOf(previous);
    status.setPhase(done ? TenantPhase.Purged : TenantPhase.Purging);
    status.setObservedGeneration(tenant.getMetadata().getGeneration());
    status.setConditions(new ArrayList<>(List.of(Conditions.condition(previous.getConditions(), Conditions.READY, false,
        done ? Reason.Purged : Reason.Purging, message, tenant.getMetadata().getGeneration(), now))));
    status.setApps(List.of());
    status.setDatabases(List.of());
    status.setVersions(null);
    return status;
  }

  /**
   * Records that the operator now acts on the tenant's {@code spec.state}: the state's entry time
   * is set when it differs from the state the status last described.
   */
  public static TenantStatus enteredState(Tenant tenant, TenantStatus status, String now) {
    TenantState state = tenant.getSpec().getState();
    if (status.getObservedState() == state) {
      return status;
    }
    TenantStatus result = copyOf(status);
    result.setObservedState(state);
    result.setStateTimestamps(Optional.ofNullable(status.getStateTimestamps()).orElseGet(StateTimestamps::new)
        .entered(state, now));
    return result;
  }

  /**
   * The status of a tenant whose sync failed: Ready=False with the reason, phase Degraded; the rest is
   * kept. A purge that failed stays Purging: it is still under way, and is retried until done.
   */
  public static TenantStatus failed(Tenant tenant, Reason reason, String message, String now) {
    TenantStatus previous = Optional.ofNullable(tenant.getStatus()).orElseGet(TenantStatus::new);
    TenantStatus status = failed(previous, tenant.getMetadata().getGeneration(), reason, message, now);
    if (tenant.getSpec().getState() == TenantState.Purged && previous.getPhase() != TenantPhase.Purged) {
      status.setPhase(TenantPhase.Purging);
    }
    return status;
  }

  /** {@code base} with Ready=False for {@code reason} and phase Degraded. */
  public static TenantStatus failed(TenantStatus base, Long generation, Reason reason, String message, String now) {
    TenantStatus status = copyOf(base);
    List<Condition> conditions = new ArrayList<>(base.getConditions().stream()
        .filter(c -> !Conditions.READY.equals(c.getType())).toList());
    conditions.add(0, Conditions.condition(base.getConditions(), Conditions.READY, false, reason, message, generation, now));
    status.setConditions(conditions);
    status.setPhase(TenantPhase.Degraded);
    return status;
  }

  private static String waitingMessage(boolean namespaceReady, String namespace, List<String> databases, List<String> apps) {
    if (!namespaceReady) {
      return "waiting for namespace " + namespace;
    }
    List<String> parts = new ArrayList<>();
    if (!databases.isEmpty()) {
      parts.add("databases " + String.join(", ", databases));
    }
    if (!apps.isEmpty()) {
      parts.add("apps " + String.join(", ", apps));
    }
    return "waiting for " + String.join(" and ", parts) + " to roll out";
  }

  private static TenantStatus copyOf(TenantStatus previous) {
    TenantStatus status = new TenantStatus();
    status.setPhase(previous.getPhase());
    status.setObservedGeneration(previous.getObservedGeneration());
    status.setObservedState(previous.getObservedState());
    status.setNamespace(previous.getNamespace());
    status.setVersions(previous.getVersions());
    status.setReplicas(previous.getReplicas());
    status.setConditions(new ArrayList<>(previous.getConditions()));
    status.setApps(new ArrayList<>(previous.getApps()));
    status.setDatabases(new ArrayList<>(previous.getDatabases()));
    status.setSecretsVersion(previous.getSecretsVersion());
    status.setStateTimestamps(previous.getStateTimestamps());
    status.setUrls(previous.getUrls());
    status.setArchive(previous.getArchive());
    return status;
  }
}
