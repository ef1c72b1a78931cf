package io.tenantry.controller.lifecycle;

import static net.logstash.logback.argument.StructuredArguments.kv;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.LimitRange;
import io.fabric8.kubernetes.api.model.Namespace;
import io.fabric8.kubernetes.api.model.ResourceQuota;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicy;
import io.fabric8.kubernetes.api.model.rbac.RoleBinding;
import io.tenantry.api.Timestamps;
import io.tenantry.api.v1alpha1.BackupStatus;
import io.tenantry.api.v1alpha1.DatabaseSpec;
import io.tenantry.api.v1alpha1.DatabaseStatus;
import io.tenantry.api.v1alpha1.Tenant;
import io.tenantry.api.v1alpha1.TenantStatus;
import io.tenantry.controller.apply.ChangePlan;
import io.tenantry.controller.apply.Converger;
import io.tenantry.controller.apply.ObjectKey;
import io.tenantry.controller.apply.WriteFailure;
import io.tenantry.controller.backup.TenantBackups;
import io.tenantry.controller.cache.ClusterView;
import io.tenantry.controller.migration.MigrationDecision;
import io.tenantry.controller.migration.MigrationJob;
import io.tenantry.controller.pooling.Pooling;
import io.tenantry.controller.queue.SyncResult;
import io.tenantry.controller.resources.DatabaseVolume;
import io.tenantry.controller.resources.DesiredState;
import io.tenantry.controller.resources.Names;
import io.tenantry.controller.resources.TenantContext;
import io.tenantry.controller.resources.Workloads;
import io.tenantry.controller.rollout.Readiness;
import io.tenantry.controller.rollout.RolloutDecision;
import io.tenantry.controller.rollout.RolloutDecision.DeadlinePassed;
import io.tenantry.controller.rollout.RolloutDecision.Decision;
import io.tenantry.controller.rollout.RolloutDecision.Held;
import io.tenantry.controller.rollout.RolloutDecision.Proceed;
import io.tenantry.controller.rollout.RolloutDecision.Settled;
import io.tenantry.controller.rollout.RolloutDecision.StillDegraded;
import io.tenantry.controller.rollout.RolloutGate;
import io.tenantry.controller.routing.EdgeGate;
import io.tenantry.controller.routing.RouteModel;
import io.tenantry.controller.routing.RoutesInFlight;
import io.tenantry.controller.routing.SpareGate;
import io.tenantry.controller.routing.TenantRouting;
import io.tenantry.controller.secrets.TemplateState;
import io.tenantry.controller.secrets.TenantSecrets;
import io.tenantry.controller.status.Conditions;
import io.tenantry.controller.status.Reason;
import io.tenantry.controller.status.RoutingStatus;
import io.tenantry.controller.status.SecretsStatus;
import io.tenantry.controller.status.StatusBuilder;
import io.tenantry.controller.upgrade.MajorUpgrades;
import io.tenantry.secretstore.SecretStoreException;
import java.time.Clock;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Predicate;
import java.util.function.Supplier;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The work shared by the states that keep a tenant's namespace (Active, Frozen, Archived), as a
 * pipeline: put the guardrails in place, resolve the secrets, plan the changes against the cache,
 * decide about the rollout ({@link RolloutDecision}, pure), execute, and report the outcome (with
 * the writes the API server refused, {@link WriteFailures}). Health gating: a tenant
 * writes workload changes only while holding a rollout slot, keeps it until the workloads are
 * observed rolled out, and past its deadline is marked Degraded and gives the slot up; it then
 * only looks again with backoff until it recovers or its spec changes.
 */
public final class Provisioning {

  private static final Logger LOG = LoggerFactory.getLogger(Provisioning.class);
  /** What a rollout slot bounds: workloads and the migrations that precede them. */
  private static final Predicate<HasMetadata> WORKLOAD = o -> o instanceof Deployment || o instanceof StatefulSet || o instanceof Job;
  private static final Predicate<HasMetadata> NOTHING = o -> false;
  /** The kinds only guardrails are made of: whatever of them a tenant owns is planned with the guardrails. */
  private static final Predicate<HasMetadata> GUARDRAIL_KIND = o -> o instanceof RoleBinding || o instanceof NetworkPolicy
      || o instanceof ResourceQuota || o instanceof LimitRange;
  private static final java.time.Duration HOSTNAME_RECHECK = java.time.Duration.ofSeconds(60);

  private final ClusterView cache;
  private final Converger converger;
  private final RolloutGate gate;
  private final TenantSecrets secrets;
  private final TemplateState templates;
  private final TenantRouting routing;
  private final RoutesInFlight boundRoutes;
  private final Clock clock;
  /**
   * Tenants whose rollout passed its deadline, with the generation that did: until the cache shows
   * that in the tenant's status (which outlives this process, see {@link #failedThisGeneration}).
   */
  private final Map<String, Long> timedOut = new ConcurrentHashMap<>();

  public Provisioning(ClusterView cache, Converger converger, RolloutGate gate, TenantSecrets secrets,
      TemplateState templates, TenantRouting routing, RoutesInFlight boundRoutes, Clock clock) {
    this.cache = cache;
    this.converger = converger;
    this.gate = gate;
    this.secrets = secrets;
    this.templates = templates;
    this.routing = routing;
    this.boundRoutes = boundRoutes;
    this.clock = clock;
  }

  Outcome reconcile(TenantContext ctx, Workloads workloads) {
    if (namespaceTerminating(ctx)) {
      // Waited out: the namespace's deletion event brings the tenant back to recreate it.
      SecretsStatus terminating = SecretsStatus.failed(Reason.NamespaceTerminating, "namespace is terminating");
      return new Outcome(status(ctx, workloads, terminating, RoutingStatus.NONE), SyncResult.done());
    }
    TenantRouting.Routes routes = routing.of(ctx, cache);
    Outcome outcome = reconcile(ctx, workloads, routes);
    if (routes.claimAgain() && outcome.next().requeueAfter() == null && !outcome.next().backoff()) {
      // A lost hostname is asked for again now and then: it is won once its holder lets it go.
      return new Outcome(outcome.status(), SyncResult.after(HOSTNAME_RECHECK));
    }
    return outcome;
  }

  /**
   * The guardrails first, from the spec alone: nothing the namespace holds, no store outage and no
   * other refused write keeps the tenant's role bindings, policies, quota and limits from being put
   * back. Then the rest, each object written on its own; what was refused is reported at the end.
   */
  private Outcome reconcile(TenantContext ctx, Workloads workloads, TenantRouting.Routes routes) {
    List<HasMetadata> owned = cache.ownedBy(ctx.name());
    List<HasMetadata> guardrails = DesiredState.guardrails(ctx);
    Set<ObjectKey> guardrailKeys = guardrails.stream().map(ObjectKey::of).collect(Collectors.toCollection(HashSet::new));
    // Owned guardrails no longer desired (the admin's binding of a tenant that was frozen) go with them.
    owned.stream().filter(GUARDRAIL_KIND).map(ObjectKey::of).forEach(guardrailKeys::add);
    ChangePlan guardrailPlan = Converger.plan(guardrails,
        owned.stream().filter(o -> guardrailKeys.contains(ObjectKey.of(o))).toList());
    List<WriteFailure> failures = new ArrayList<>(converger.execute(guardrailPlan, NOTHING));
    Step step = plan(ctx, workloads, routes, owned, guardrailKeys);
    // A just-bound tenant's route, opened Services and identity may be on their way from the bind's own thread:
    // written once, by it, and not deleted or closed again by a plan made from the Tenant before its bind.
    // Asked once per sync, on its first such object: the answer holds for all of them.
    AtomicReference<Boolean> held = new AtomicReference<>();
    Predicate<HasMetadata> boundRoute = o -> SpareGate.writtenOnBind(o)
        && held.updateAndGet(answer -> answer != null ? answer : boundRoutes.holds(ctx.name()));
    ChangePlan plan = step.plan();
    plan = new ChangePlan(plan.writes(), plan.deletes().stream().filter(boundRoute.negate()).toList());
    failures.addAll(converger.execute(plan, step.held().or(boundRoute)));
    Outcome outcome = step.outcome().get();
    if (!guardrailPlan.isEmpty() && outcome.converged()) {
      outcome = new Outcome(outcome.status(), outcome.next());
    }
    return WriteFailures.reported(ctx, outcome, failures, clock);
  }

  /**
   * What a sync writes besides the guardrails: the plan, which of its writes wait (for a rollout
   * slot), and the outcome to report once the writes are made (the status reads the cache after them).
   */
  private record Step(ChangePlan plan, Predicate<HasMetadata> held, Supplier<Outcome> outcome) {

    static Step nothing(Outcome outcome) {
      return new Step(new ChangePlan(List.of(), List.of()), NOTHING, () -> outcome);
    }
  }

  private Step plan(TenantContext ctx, Workloads workloads, TenantRouting.Routes routes, List<HasMetadata> owned,
      Set<ObjectKey> guardrails) {
    TenantSecrets.Resolved resolved;
    try {
      resolved = secrets.resolve(ctx);
    } catch (SecretStoreException e) {
      // Nothing else is written or deleted: the tenant keeps running on what it has until the store is back.
      LOG.warn("secret store unavailable {} {}", kv("tenant", ctx.name()), kv("error", e.getMessage()));
      return Step.nothing(new Outcome(status(ctx, workloads, SecretsStatus.failed(TenantSecrets.reason(e), e.getMessage()),
          routes.status()), SyncResult.withBackoff()));
    }
    AppVersions apps = AppVersions.of(ctx, cache, workloads, DesiredState.byName(resolved.templates()));
    Pooling.Outcome pooling = Pooling.desired(ctx, resolved.credentials(), workloads);
    if (pooling instanceof Pooling.Refused refused) {
      return poolerRefused(ctx, workloads, refused, secretsStatus(resolved, apps), routes.status());
    }
    List<HasMetadata> desired = new ArrayList<>(routes.gate(ctx, Pooling.over(
        DesiredState.of(ctx, resolved.credentials(), resolved.templates(), workloads, apps.versions(), volumes(ctx)),
        ((Pooling.Desired) pooling).objects())));
    desired.removeIf(o -> guardrails.contains(ObjectKey.of(o)));
    desired.addAll(apps.jobs());
    desired.addAll(routes.objects());
    Set<ObjectKey> kept = new HashSet<>(apps.kept());
    kept.addAll(guardrails);
    // Backup Jobs and their Secrets come and go with their backups (TenantBackups), not with the spec.
    owned.stream().filter(TenantBackups::isBackupObject).map(ObjectKey::of).forEach(kept::add);
    if (routes.keep()) {
      owned.stream().filter(o -> RouteModel.isRoute(o) || EdgeGate.isGate(o)).map(ObjectKey::of).forEach(kept::add);
    }
    ChangePlan plan = Converger.plan(desired, owned, kept);
    SecretsStatus secretsStatus = secretsStatus(resolved, apps);
    if (!apps.failures().isEmpty()) {
      return migrationFailed(ctx, workloads, plan, apps, secretsStatus, routes.status());
    }
    Decision decision = decide(ctx, plan, desired);
    return decided(ctx, workloads, plan, decision, secretsStatus, routes.status());
  }

  /**
   * A failed migration stops the tenant's rollout where it is: the previous version keeps
   * serving, the Job stays for its logs, the slot goes to the next tenant, and the tenant is
   * looked at again with backoff (a new version, or deleting the Job, retries).
   */
  private Step migrationFailed(TenantContext ctx, Workloads workloads, ChangePlan plan, AppVersions apps,
      SecretsStatus secretsStatus, RoutingStatus routingStatus) {
    gate.release(ctx.name(), false);
    LOG.warn("migration failed {} {}", kv("tenant", ctx.name()), kv("failures", apps.failures()));
    return new Step(plan, WORKLOAD, () -> new Outcome(StatusBuilder.failed(status(ctx, workloads, secretsStatus, routingStatus),
        ctx.tenant().getMetadata().getGeneration(), Reason.MigrationFailed, String.join("; ", apps.failures()),
        Timestamps.now(clock)), SyncResult.withBackoff()));
  }

  /**
   * A pooler that does not fit its budget: nothing but the guardrails is written, so the tenant
   * keeps running as it is until its spec or plan changes (which syncs it again).
   */
  private Step poolerRefused(TenantContext ctx, Workloads workloads, Pooling.Refused refused, SecretsStatus secretsStatus,
      RoutingStatus routingStatus) {
    gate.release(ctx.name(), false);
    LOG.warn("pooler refused {} {}", kv("tenant", ctx.name()), kv("field", refused.field()));
    return Step.nothing(new Outcome(StatusBuilder.failed(status(ctx, workloads, secretsStatus, routingStatus),
        ctx.tenant().getMetadata().getGeneration(), Reason.PoolerRefused, refused.field() + ": " + refused.message(),
        Timestamps.now(clock)), SyncResult.done()));
  }

  /** The version and volume each database runs at ({@link MajorUpgrades#runAt}). */
  private Map<String, DatabaseVolume> volumes(TenantContext ctx) {
    Map<String, DatabaseVolume> volumes = new java.util.HashMap<>();
    for (DatabaseSpec db : ctx.tenant().getSpec().getDatabases()) {
      StatefulSet cached = cache.get(StatefulSet.class, ctx.namespace(), Names.database(db.getName()));
      volumes.put(db.getName(), MajorUpgrades.runAt(MajorUpgrades.recorded(ctx.tenant(), db.getName()),
          backups(ctx.tenant(), db.getName()), db, cached));
    }
    return volumes;
  }

  private static BackupStatus backups(Tenant tenant, String database) {
    return tenant.getStatus() == null ? null : tenant.getStatus().getDatabases().stream()
        .filter(d -> database.equals(d.getName())).map(DatabaseStatus::getBackup).filter(java.util.Objects::nonNull)
        .findFirst().orElse(null);
  }

  /** Forgets a tenant that is gone or purged: its slot goes to the next in line. */
  void forget(String tenant) {
    gate.release(tenant, false);
    timedOut.remove(tenant);
  }

  private boolean namespaceTerminating(TenantContext ctx) {
    Namespace namespace = cache.get(Namespace.class, null, ctx.namespace());
    return namespace != null && namespace.getMetadata().getDeletionTimestamp() != null;
  }

  private SecretsStatus secretsStatus(TenantSecrets.Resolved resolved, AppVersions apps) {
    String templateError = templates.error();
    return templateError != null ? SecretsStatus.failed(Reason.TemplateSyncFailed, templateError)
        : !apps.missingSecrets().isEmpty() ? SecretsStatus.failed(Reason.TemplateSecretMissing, String.join("; ", apps.missingSecrets()))
        : new SecretsStatus(true, Reason.Synced, resolved.templates().size() + " template secrets and "
            + resolved.credentials().size() + " database credentials in place", resolved.version());
  }

  /** Asks the gate for a slot only when the decision needs one. */
  private Decision decide(TenantContext ctx, ChangePlan plan, List<HasMetadata> desired) {
    String name = ctx.name();
    boolean rolledOut = desired.stream().filter(WORKLOAD).allMatch(this::rolledOut);
    return RolloutDecision.withoutSlot(plan.writes(WORKLOAD), rolledOut, failedThisGeneration(ctx))
        .orElseGet(() -> RolloutDecision.withSlot(gate.acquire(name) ? Optional.of(gate.remaining(name)) : Optional.empty()));
  }

  /**
   * Whether the tenant's current generation passed its rollout deadline. Read from its status too:
   * after a restart, a Degraded tenant must not take a slot and wait out a second deadline. Not
   * while it holds a slot: it is rolling out again (the plan wrote a workload), and a lagging cache
   * still shows the old verdict.
   */
  private boolean failedThisGeneration(TenantContext ctx) {
    Long generation = ctx.tenant().getMetadata().getGeneration();
    if (generation == null) {
      return false;
    }
    if (generation.equals(timedOut.get(ctx.name()))) {
      return true;
    }
    TenantStatus status = ctx.tenant().getStatus();
    return status != null && !gate.holds(ctx.name()) && Conditions.find(status.getConditions(), Conditions.READY)
        .filter(ready -> Reason.RolloutTimedOut.name().equals(ready.getReason()) && generation.equals(ready.getObservedGeneration()))
        .isPresent();
  }

  private Step decided(TenantContext ctx, Workloads workloads, ChangePlan plan, Decision decision,
      SecretsStatus secretsStatus, RoutingStatus routingStatus) {
    String name = ctx.name();
    if (decision instanceof Settled) {
      gate.release(name, true);
      timedOut.remove(name);
      return new Step(plan, NOTHING, () -> new Outcome(status(ctx, workloads, secretsStatus, routingStatus), SyncResult.done(),
          plan.isEmpty()));
    }
    if (decision instanceof Held) {
      LOG.debug("waiting for a rollout slot {}", kv("tenant", name));
      return new Step(plan, WORKLOAD, () -> new Outcome(status(ctx, workloads, secretsStatus, routingStatus), SyncResult.done()));
    }
    if (decision instanceof DeadlinePassed) {
      gate.timedOut(name);
      timedOut.put(name, ctx.tenant().getMetadata().getGeneration());
      LOG.warn("rollout passed its deadline {} {}", kv("tenant", name), kv("deadlineSeconds", ctx.config().rolloutDeadlineSeconds()));
      return Step.nothing(new Outcome(degraded(ctx, workloads, secretsStatus, routingStatus), SyncResult.withBackoff()));
    }
    if (decision instanceof StillDegraded) {
      return new Step(plan, NOTHING, () -> new Outcome(degraded(ctx, workloads, secretsStatus, routingStatus),
          SyncResult.withBackoff()));
    }
    Proceed proceed = (Proceed) decision; // The last of the sealed five.
    timedOut.remove(name);
    return new Step(plan, NOTHING, () -> new Outcome(status(ctx, workloads, secretsStatus, routingStatus),
        SyncResult.after(proceed.remaining())));
  }

  /** A migration Job counts as rolled out once it succeeded. */
  private boolean rolledOut(HasMetadata workload) {
    String ns = workload.getMetadata().getNamespace();
    String name = workload.getMetadata().getName();
    if (workload instanceof Job) {
      return MigrationJob.state(cache.get(Job.class, ns, name)) == MigrationDecision.JobState.SUCCEEDED;
    }
    return workload instanceof Deployment
        ? Readiness.rolledOut(cache.get(Deployment.class, ns, name))
        : Readiness.rolledOut(cache.get(StatefulSet.class, ns, name));
  }

  private TenantStatus status(TenantContext ctx, Workloads workloads, SecretsStatus secretsStatus, RoutingStatus routingStatus) {
    String now = Timestamps.now(clock);
    StatusBuilder.Observed observed = Observer.observe(ctx, cache);
    return StatusBuilder.withAutoscaling(StatusBuilder.withRouting(StatusBuilder.provisioned(ctx.tenant(), ctx.namespace(), observed,
        workloads, secretsStatus, now), ctx.tenant(), routingStatus, now), ctx.tenant(), ctx.plan(), observed, now);
  }

  private TenantStatus degraded(TenantContext ctx, Workloads workloads, SecretsStatus secretsStatus, RoutingStatus routingStatus) {
    TenantStatus observed = status(ctx, workloads, secretsStatus, routingStatus);
    return StatusBuilder.failed(observed, ctx.tenant().getMetadata().getGeneration(), Reason.RolloutTimedOut,
        "not rolled out within " + ctx.config().rolloutDeadlineSeconds() + "s: " + observed.getConditions().get(0).getMessage(),
        Timestamps.now(clock));
  }
}
