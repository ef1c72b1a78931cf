package io.tenantry.controller.lifecycle;

import static net.logstash.logback.argument.StructuredArguments.kv;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.tenantry.api.v1alpha1.Tenant;
import io.tenantry.api.v1alpha1.TenantPhase;
import io.tenantry.api.v1alpha1.TenantState;
import io.tenantry.api.v1alpha1.TenantStatus;
import io.tenantry.controller.apply.Applier;
import io.tenantry.controller.apply.Conflicts;
import io.tenantry.controller.apply.Converger;
import io.tenantry.controller.cache.InformerCache;
import io.tenantry.controller.config.OperatorConfig;
import io.tenantry.controller.config.Plan;
import io.tenantry.controller.resources.TenantContext;
import io.tenantry.controller.rollout.RolloutGate;
import io.tenantry.controller.secrets.TemplateDistribution;
import io.tenantry.controller.secrets.TenantSecrets;
import io.tenantry.controller.status.Clocks;
import io.tenantry.controller.status.EventRecorder;
import io.tenantry.controller.status.StatusBuilder;
import io.tenantry.controller.status.StatusWriter;
import java.time.Clock;
import java.util.EnumMap;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
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

  private final KubernetesClient client;
  private final InformerCache cache;
  private final OperatorConfig config;
  private final StatusWriter statusWriter;
  private final EventRecorder events;
  private final Clock clock;
  private final Provisioning provisioning;
  private final TemplateDistribution templates;
  private final Map<TenantState, StateHandler> handlers = new EnumMap<>(TenantState.class);
  /** Per tenant, the cache fingerprint of its last sync that found it converged and wrote nothing. */
  private final Map<String, Long> converged = new ConcurrentHashMap<>();

  /**
   * @param cleanup deletes a purged tenant's records outside the cluster (its stored secrets, fleet records)
   */
  public TenantReconciler(KubernetesClient client, InformerCache cache, OperatorConfig config, Applier applier,
      RolloutGate gate, TenantSecrets secrets, TemplateDistribution templates, TenantCleanup cleanup,
      EventRecorder events, Clock clock) {
    this.client = client;
    this.cache = cache;
    this.config = config;
    this.statusWriter = new StatusWriter(client);
    this.events = events;
    this.clock = clock;
    this.templates = templates;
    this.provisioning = new Provisioning(cache, new Converger(applier), gate, secrets, templates, clock);
    StateHandler active = new ActiveState(provisioning);
    handlers.put(TenantState.New, active);
    handlers.put(TenantState.Active, active);
    handlers.put(TenantState.Frozen, new FrozenState(provisioning));
    handlers.put(TenantState.Archived, new ArchivedState(provisioning));
    handlers.put(TenantState.Purged, new PurgedState(cache, applier, cleanup, clock));
  }

  /** Syncs the named tenant; throws when it must be retried with backoff. */
  public SyncResult sync(String name) {
    Tenant tenant = cache.tenant(name);
    if (tenant == null) {
      provisioning.forget(name);
      converged.remove(name);
      return SyncResult.done(); // Deleted: nothing of it remains to converge.
    }
    // Nothing about the tenant changed since a sync found it converged: it still is. This is the
    // resync of a converged tenant, the common case, and it reads a few cache entries only.
    long fingerprint = cache.fingerprint(name) * 31 + templates.stateVersion();
    Long last = converged.get(name);
    if (last != null && last == fingerprint) {
      return SyncResult.done();
    }
    TenantState state = tenant.getSpec().getState();
    if (tenant.getMetadata().getDeletionTimestamp() != null) {
      return finalizeDeletion(tenant);
    }
    if (!Finalizer.has(tenant)) {
      Finalizer.add(client, tenant);
      return SyncResult.done(); // The Tenant changed: its watch event brings it back with a fresh resourceVersion.
    }
    Plan plan = config.plans.get(tenant.getSpec().getPlan());
    if (plan == null && state != TenantState.Purged) {
      report(tenant, StatusBuilder.failed(tenant, "UnknownPlan", "spec.plan: the operator has no plan named '"
          + tenant.getSpec().getPlan() + "'; known plans: " + String.join(", ", config.plans.keySet()), Clocks.now(clock)));
      return SyncResult.done(); // Nothing to retry until the tenant or the configuration changes.
    }
    if (state == TenantState.Purged) {
      provisioning.forget(name);
    }
    Outcome outcome = handlers.get(state).reconcile(new TenantContext(tenant, config, plan));
    boolean wrote = report(tenant, outcome.status());
    if (outcome.converged() && !wrote) {
      converged.put(name, fingerprint);
    } else {
      converged.remove(name);
    }
    return outcome.next();
  }

  /** Forgets which tenants were found converged, so that the next sync of each compares everything again (benchmarks). */
  public void forgetConverged() {
    converged.clear();
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
      events.record(tenant, EventRecorder.WARNING, "DeletedWithoutPurge", "the Tenant was deleted while "
          + tenant.getSpec().getState() + "; namespace " + config.namespacePrefix + name
          + " and its data are kept. Recreate the Tenant to manage them again, or purge it.");
      LOG.warn("tenant deleted without purge, data kept {} {}", kv("tenant", name), kv("state", tenant.getSpec().getState()));
    }
    provisioning.forget(name);
    Finalizer.remove(client, tenant);
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
        report(tenant, StatusBuilder.failed(tenant, "SyncFailed", message, Clocks.now(clock)));
      } catch (RuntimeException e) {
        LOG.warn("could not record the failure in the status {} {}", kv("tenant", name), kv("error", describe(e)));
      }
    }
  }

  /** Writes the status if it changed (with events for a new state or phase); returns whether it wrote. */
  private boolean report(Tenant tenant, TenantStatus computed) {
    String now = Clocks.now(clock);
    TenantStatus status = StatusBuilder.enteredState(tenant, computed, now);
    TenantStatus previous = tenant.getStatus();
    if (!statusWriter.write(tenant, status)) {
      return false;
    }
    TenantState before = previous == null ? null : previous.getObservedState();
    if (before != status.getObservedState()) {
      events.record(tenant, EventRecorder.NORMAL, "StateChanged",
          "state " + (before == null ? "(none)" : before) + " -> " + status.getObservedState());
    }
    TenantPhase phaseBefore = previous == null ? null : previous.getPhase();
    if (!Objects.equals(phaseBefore, status.getPhase())) {
      String readyMessage = status.getConditions().isEmpty() ? "" : status.getConditions().get(0).getMessage();
      boolean warning = status.getPhase() == TenantPhase.Degraded;
      events.record(tenant, warning ? EventRecorder.WARNING : EventRecorder.NORMAL, String.valueOf(status.getPhase()),
          "phase " + (phaseBefore == null ? "(none)" : phaseBefore) + " -> " + status.getPhase() + ": " + readyMessage);
      LOG.info("phase changed {} {} {}", kv("tenant", tenant.getMetadata().getName()), kv("from", phaseBefore),
          kv("to", status.getPhase()));
    }
    return true;
  }

  /** A short cause for conditions and logs; API errors carry the server's message, not the request body. */
  static String describe(Exception error) {
    String message = error instanceof KubernetesClientException k && k.getStatus() != null && k.getStatus().getMessage() != null
        ? k.getStatus().getMessage() : error.getClass().getSimpleName() + ": " + error.getMessage();
    return message.length() > MAX_MESSAGE ? message.substring(0, MAX_MESSAGE) + "..." : message;
  }
}
