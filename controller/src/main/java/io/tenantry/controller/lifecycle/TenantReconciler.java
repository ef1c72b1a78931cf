package io.tenantry.controller.lifecycle;

import static net.logstash.logback.argument.StructuredArguments.kv;

import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.tenantry.api.Spares;
import io.tenantry.api.Timestamps;
import io.tenantry.api.v1alpha1.Tenant;
import io.tenantry.api.v1alpha1.TenantPhase;
import io.tenantry.api.v1alpha1.TenantState;
import io.tenantry.api.v1alpha1.TenantStatus;
import io.tenantry.controller.apply.Conflicts;
import io.tenantry.controller.apply.NamespaceTakenException;
import io.tenantry.controller.apply.TenantWriter;
import io.tenantry.controller.backup.TenantBackups;
import io.tenantry.controller.cache.ClusterView;
import io.tenantry.controller.config.OperatorConfig;
import io.tenantry.controller.config.Plan;
import io.tenantry.controller.events.EventRecorder;
import io.tenantry.controller.events.EventType;
import io.tenantry.controller.queue.SyncResult;
import io.tenantry.controller.resources.TenantContext;
import io.tenantry.controller.secrets.TemplateState;
import io.tenantry.controller.status.Conditions;
import io.tenantry.controller.status.Reason;
import io.tenantry.controller.status.StatusBuilder;
import java.time.Clock;
import java.time.Duration;
import java.util.EnumMap;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One sync of one tenant: observe (the cache), validate (what admission cannot check, such as
 * the plan existing in the operator's configuration), reconcile (the handler of the tenant's
 * state), report (status only when it changed, an event when the state or phase changes).
 *
 * <p>Deletion: a Tenant can only be deleted once Purged (the shipped admission policy refuses the
 * rest). If one disappears anyway (its CRD removed, the policy not installed), its namespace and
 * data are left untouched and only the finalizer is released: deleting a Tenant object never
 * cascades into customer data.
 */
public final class TenantReconciler {

  private static final Logger LOG = LoggerFactory.getLogger(TenantReconciler.class);
  private static final int MAX_MESSAGE = 1024;

  private final ClusterView cache;
  private final OperatorConfig config;
  private final TenantWriter writer;
  private final EventRecorder events;
  private final Provisioning provisioning;
  private final TemplateState templates;
  private final ConvergedTenants converged;
  private final Clock clock;
  private final Map<TenantState, StateHandler> handlers = new EnumMap<>(TenantState.class);
  /** Null when backups are off. */
  private final TenantBackups backups;

  /**
   * @param provisioning the work of the states that keep a namespace (New, Active, Frozen, Archived)
   * @param purged the work of the Purged state
   * @param templates whether the template namespace is fresh (part of what a converged tenant depends on)
   * @param converged the tenants found converged, whose next sync may end at once
   * @param backups the tenants' backups; null when backups are off
   */
  public TenantReconciler(ClusterView cache, OperatorConfig config, TenantWriter writer, EventRecorder events,
      Provisioning provisioning, PurgedState purged, TemplateState templates, ConvergedTenants converged,
      TenantBackups backups, Clock clock) {
    this.cache = cache;
    this.config = config;
    this.writer = writer;
    this.events = events;
    this.provisioning = provisioning;
    this.templates = templates;
    this.converged = converged;
    this.backups = backups;
    this.clock = clock;
    // The handlers of the states that keep a namespace are views of the one provisioning pipeline.
    StateHandler active = new ActiveState(provisioning);
    handlers.put(TenantState.New, active);
    handlers.put(TenantState.Active, active);
    handlers.put(TenantState.Frozen, new FrozenState(provisioning));
    handlers.put(TenantState.Archived, new ArchivedState(provisioning));
    handlers.put(TenantState.Purged, purged);
  }

  /** Syncs the named tenant; throws when it must be retried with backoff. */
  public SyncResult sync(String name) {
    Tenant tenant = cache.tenant(name);
    if (tenant == null) {
      provisioning.forget(name);
      if (backups != null) {
        backups.forget(name);
      }
      converged.forget(name);
      return SyncResult.done(); // Deleted: nothing of it remains to converge.
    }
    // Nothing about the tenant changed since a sync found it converged: it still is. This is the
    // resync of a converged tenant, the common case, and it reads a few cache entries only. Besides
    // its own objects, a sync reads the templates and, for a spare, whether it is next in line for a
    // signup (its route is written ahead then: a bind of another spare moves the line).
    long fingerprint = (cache.fingerprint(name) * 31 + templates.stateVersion()) * 31 + (nextInLine(tenant) ? 1 : 0);
    // A backup falling due is the one thing time changes about a converged tenant: read from its status.
    Optional<Duration> backupDue = backups == null ? Optional.empty()
        : backups.untilDue(tenant, config.plans().get(tenant.getSpec().getPlan()));
    if (converged.unchanged(name, fingerprint) && backupDue.map(due -> !due.isZero()).orElse(true)) {
      cache.converged(name); // Cheap when its objects are compact already; after a relist they came back decoded.
      return backupDue.map(SyncResult::after).orElse(SyncResult.done());
    }
    if (tenant.getMetadata().getDeletionTimestamp() != null) {
      return finalizeDeletion(tenant);
    }
    if (!Finalizer.has(tenant)) {
      writer.writeFinalizers(tenant, Finalizer.added(tenant));
      return SyncResult.done(); // The Tenant changed: its watch event brings it back with a fresh resourceVersion.
    }
    TenantState state = tenant.getSpec().getState();
    Plan plan = config.plans().get(tenant.getSpec().getPlan());
    if (plan == null && state != TenantState.Purged) {
      report(tenant, StatusBuilder.failed(tenant, Reason.UnknownPlan, "spec.plan: the operator has no plan named '"
          + tenant.getSpec().getPlan() + "'; known plans: " + String.join(", ", config.plans().keySet()), Timestamps.now(clock)));
      return SyncResult.done(); // Nothing to retry until the tenant or the configuration changes.
    }
    if (state == TenantState.Purged) {
      provisioning.forget(name);
    }
    TenantContext ctx = new TenantContext(tenant, config, plan);
    Outcome outcome = handlers.get(state).reconcile(ctx);
    if (backups != null && state != TenantState.Purged) {
      outcome = withBackups(ctx, outcome);
    }
    boolean wrote = report(tenant, outcome.status());
    if (outcome.converged() && !wrote) {
      converged.remember(name, fingerprint);
      cache.converged(name);
    } else {
      converged.forget(name);
    }
    return outcome.next();
  }

  private boolean nextInLine(Tenant tenant) {
    String pool = Spares.pool(tenant);
    return pool != null && Spares.isNextInLine(tenant, cache.spares(pool), config.routing().routesAhead());
  }

  /** The outcome with the tenant's backups: their status, and the next due time when nothing sooner is asked. */
  private Outcome withBackups(TenantContext ctx, Outcome outcome) {
    TenantBackups.Result result = backups.reconcile(ctx);
    TenantStatus status = StatusBuilder.withBackups(outcome.status(), ctx.tenant(), result.databases(),
        result.backedUp(), result.restoreVerified(), result.restored(), result.majorUpgraded(), result.archive(),
        result.dataArchived(), Timestamps.now(clock));
    SyncResult next = outcome.next();
    if (result.retry()) {
      next = SyncResult.withBackoff(); // the backup store is down: its commit is tried again
    } else if (!next.backoff() && result.next().isPresent()
        && (next.requeueAfter() == null || result.next().get().compareTo(next.requeueAfter()) < 0)) {
      next = SyncResult.after(result.next().get());
    }
    return new Outcome(status, next, outcome.converged() && !result.acted() && !result.retry());
  }

  private SyncResult finalizeDeletion(Tenant tenant) {
    String name = tenant.getMetadata().getName();
    if (!Finalizer.has(tenant)) {
      return SyncResult.done();
    }
    if (tenant.getSpec().getState() == TenantState.Purged) {
      Outcome outcome = handlers.get(TenantState.Purged).reconcile(new TenantContext(tenant, config, null));
      if (outcome.status().getPhase() != TenantPhase.Purged) {
        report(tenant, outcome.status());
        return outcome.next();
      }
    } else {
      events.record(tenant, EventType.Warning, Reason.DeletedWithoutPurge, "the Tenant was deleted while "
          + tenant.getSpec().getState() + "; namespace " + config.namespacePrefix() + name
          + " and its data are kept. Recreate the Tenant to manage them again, or purge it.");
      LOG.warn("tenant deleted without purge, data kept {} {}", kv("tenant", name), kv("state", tenant.getSpec().getState()));
    }
    provisioning.forget(name);
    writer.writeFinalizers(tenant, Finalizer.removed(tenant));
    return SyncResult.done();
  }

  /** Records a failed sync on the tenant (condition and event, once per distinct message); the caller retries with backoff. */
  public void failed(String name, Exception error) {
    if (Conflicts.isConflict(error)) {
      // A write raced with another change (usually the tenant's own): the cache is behind, the retry will see it.
      LOG.debug("conflict, retrying {}", kv("tenant", name));
      return;
    }
    Tenant tenant = cache.tenant(name);
    String message = describe(error);
    LOG.warn("sync failed {} {}", kv("tenant", name), kv("error", message));
    if (tenant != null && tenant.getMetadata().getDeletionTimestamp() == null) {
      try {
        Reason reason = error instanceof NamespaceTakenException ? Reason.NamespaceTaken : Reason.SyncFailed;
        report(tenant, StatusBuilder.failed(tenant, reason, message, Timestamps.now(clock)));
      } catch (RuntimeException e) {
        LOG.warn("could not record the failure in the status {} {}", kv("tenant", name), kv("error", describe(e)));
      }
    }
  }

  /** Writes the status if it changed (with events for a new state or phase); returns whether it wrote. */
  private boolean report(Tenant tenant, TenantStatus computed) {
    TenantStatus status = StatusBuilder.enteredState(tenant, computed, Timestamps.now(clock));
    TenantStatus previous = tenant.getStatus();
    if (status.equals(previous)) {
      return false;
    }
    writer.writeStatus(tenant, status);
    TenantState before = previous == null ? null : previous.getObservedState();
    // A tenant's first status is no change of state: its first phase's event names the state (one
    // Event less for every new tenant and spare).
    if (before != null && before != status.getObservedState()) {
      events.record(tenant, EventType.Normal, Reason.StateChanged, "state " + before + " -> " + status.getObservedState());
    }
    clampedByPlan(tenant, previous, status);
    TenantPhase phaseBefore = previous == null ? null : previous.getPhase();
    if (!Objects.equals(phaseBefore, status.getPhase())) {
      String readyMessage = status.getConditions().isEmpty() ? "" : status.getConditions().get(0).getMessage();
      EventType type = status.getPhase() == TenantPhase.Degraded ? EventType.Warning : EventType.Normal;
      String from = phaseBefore == null ? "(none)" : phaseBefore.toString();
      String state = before == null ? " (state " + status.getObservedState() + ")" : "";
      events.record(tenant, type, Reason.entered(status.getPhase()),
          "phase " + from + " -> " + status.getPhase() + state + ": " + readyMessage);
      LOG.info("phase changed {} {} {}", kv("tenant", tenant.getMetadata().getName()), kv("from", phaseBefore),
          kv("to", status.getPhase()));
    }
    return true;
  }

  /** A Warning Event when the plan starts lowering an autoscaled app's bounds, or lowers them otherwise. */
  private void clampedByPlan(Tenant tenant, TenantStatus previous, TenantStatus status) {
    Optional<Condition> clamp = Conditions.find(status.getConditions(), Conditions.AUTOSCALED)
        .filter(c -> Reason.ClampedByPlan.name().equals(c.getReason()));
    Optional<Condition> before = previous == null ? Optional.empty()
        : Conditions.find(previous.getConditions(), Conditions.AUTOSCALED);
    if (clamp.isPresent() && !(before.isPresent() && clamp.get().getReason().equals(before.get().getReason())
        && clamp.get().getMessage().equals(before.get().getMessage()))) {
      events.record(tenant, EventType.Warning, Reason.ClampedByPlan, clamp.get().getMessage());
    }
  }

  /** A short cause for conditions and logs; API errors carry the server's message, not the request body. */
  static String describe(Exception error) {
    String message = error instanceof KubernetesClientException k && k.getStatus() != null && k.getStatus().getMessage() != null
        ? k.getStatus().getMessage() : error.getClass().getSimpleName() + ": " + error.getMessage();
    return message.length() > MAX_MESSAGE ? message.substring(0, MAX_MESSAGE) + "..." : message;
  }
}
