package io.tenantry.controller.lifecycle;

import static net.logstash.logback.argument.StructuredArguments.kv;

import io.fabric8.kubernetes.client.KubernetesClientException;
import io.tenantry.api.v1alpha1.Tenant;
import io.tenantry.api.v1alpha1.TenantPhase;
import io.tenantry.api.v1alpha1.TenantStatus;
import io.tenantry.controller.apply.Converger;
import io.tenantry.controller.cache.InformerCache;
import io.tenantry.controller.config.OperatorConfig;
import io.tenantry.controller.config.Plan;
import io.tenantry.controller.resources.TenantContext;
import io.tenantry.controller.status.Clocks;
import io.tenantry.controller.status.EventRecorder;
import io.tenantry.controller.status.StatusBuilder;
import io.tenantry.controller.status.StatusWriter;
import java.time.Clock;
import java.util.Objects;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One sync of one tenant: observe (the cache), validate (what admission cannot check, such as
 * the plan existing in the operator's configuration), reconcile (the handler of the tenant's
 * state), report (status only when it changed, an event when the phase changes).
 */
public final class TenantReconciler {

  private static final Logger LOG = LoggerFactory.getLogger(TenantReconciler.class);
  private static final int MAX_MESSAGE = 1024;

  private final InformerCache cache;
  private final OperatorConfig config;
  private final StatusWriter statusWriter;
  private final EventRecorder events;
  private final Clock clock;
  private final StateHandler active;

  public TenantReconciler(InformerCache cache, OperatorConfig config, Converger converger, StatusWriter statusWriter,
      EventRecorder events, Clock clock) {
    this.cache = cache;
    this.config = config;
    this.statusWriter = statusWriter;
    this.events = events;
    this.clock = clock;
    this.active = new ActiveState(cache, converger, clock);
  }

  /** Syncs the named tenant; throws when it must be retried with backoff. */
  public void sync(String name) {
    Tenant tenant = cache.tenant(name);
    if (tenant == null) {
      return; // Deleted: nothing of it remains to converge.
    }
    Plan plan = config.plans.get(tenant.getSpec().getPlan());
    if (plan == null) {
      report(tenant, StatusBuilder.failed(tenant, "UnknownPlan", "spec.plan: the operator has no plan named '"
          + tenant.getSpec().getPlan() + "'; known plans: " + String.join(", ", config.plans.keySet()), Clocks.now(clock)));
      return; // Nothing to retry until the tenant or the configuration changes.
    }
    TenantContext ctx = new TenantContext(tenant, config, plan);
    StateHandler handler = switch (tenant.getSpec().getState()) {
      case New, Active -> active;
      case Frozen, Archived, Purged -> null;
    };
    if (handler == null) {
      LOG.warn("state not handled yet {} {}", kv("tenant", name), kv("state", tenant.getSpec().getState()));
      return;
    }
    report(tenant, handler.reconcile(ctx));
  }

  /** Records a failed sync on the tenant (condition and event, once per distinct message); the caller retries with backoff. */
  public void failed(String name, Exception error) {
    if (error instanceof KubernetesClientException k && k.getCode() == 409) {
      // A write raced with another change (usually the tenant's own): the cache is behind, the retry will see it.
      LOG.debug("conflict, retrying {}", kv("tenant", name));
      return;
    }
    Tenant tenant = cache.tenant(name);
    String message = describe(error);
    LOG.warn("sync failed {} {}", kv("tenant", name), kv("error", message));
    if (tenant != null) {
      try {
        report(tenant, StatusBuilder.failed(tenant, "SyncFailed", message, Clocks.now(clock)));
      } catch (RuntimeException e) {
        LOG.warn("could not record the failure in the status {} {}", kv("tenant", name), kv("error", describe(e)));
      }
    }
  }

  private void report(Tenant tenant, TenantStatus status) {
    TenantStatus previous = tenant.getStatus();
    if (!statusWriter.write(tenant, status)) {
      return;
    }
    TenantPhase before = previous == null ? null : previous.getPhase();
    if (!Objects.equals(before, status.getPhase())) {
      String readyMessage = status.getConditions().isEmpty() ? "" : status.getConditions().get(0).getMessage();
      boolean warning = status.getPhase() == TenantPhase.Degraded;
      events.record(tenant, warning ? EventRecorder.WARNING : EventRecorder.NORMAL, String.valueOf(status.getPhase()),
          "phase " + before + " -> " + status.getPhase() + ": " + readyMessage);
      LOG.info("phase changed {} {} {}", kv("tenant", tenant.getMetadata().getName()), kv("from", before), kv("to", status.getPhase()));
    }
  }

  /** A short cause for conditions and logs; API errors carry the server's message, not the request body. */
  static String describe(Exception error) {
    String message = error instanceof KubernetesClientException k && k.getStatus() != null && k.getStatus().getMessage() != null
        ? k.getStatus().getMessage() : error.getClass().getSimpleName() + ": " + error.getMessage();
    return message.length() > MAX_MESSAGE ? message.substring(0, MAX_MESSAGE) + "..." : message;
  }
}
