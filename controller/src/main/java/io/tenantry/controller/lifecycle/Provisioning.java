package io.tenantry.controller.lifecycle;

import static net.logstash.logback.argument.StructuredArguments.kv;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Namespace;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.tenantry.api.v1alpha1.Tenant;
import io.tenantry.api.v1alpha1.TenantStatus;
import io.tenantry.controller.apply.ChangePlan;
import io.tenantry.controller.apply.Converger;
import io.tenantry.controller.cache.InformerCache;
import io.tenantry.controller.resources.DesiredState;
import io.tenantry.controller.resources.TenantContext;
import io.tenantry.controller.resources.Workloads;
import io.tenantry.controller.rollout.Readiness;
import io.tenantry.controller.rollout.RolloutGate;
import io.tenantry.controller.secrets.TemplateDistribution;
import io.tenantry.controller.secrets.TenantSecrets;
import io.tenantry.controller.status.SecretsStatus;
import io.tenantry.secretstore.SecretStoreException;
import io.tenantry.controller.status.Clocks;
import io.tenantry.controller.status.StatusBuilder;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Predicate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The work shared by the states that keep a tenant's namespace (Active, Frozen, Archived):
 * plan the changes against the cache, write them, and hold workload writes behind the rollout
 * gate. Health gating: a tenant writes workload changes only while holding a rollout slot, keeps
 * it until the workloads are observed rolled out, and past its deadline is marked Degraded and
 * gives the slot up; it then only looks again with backoff until it recovers or its spec changes.
 */
final class Provisioning {

  private static final Logger LOG = LoggerFactory.getLogger(Provisioning.class);
  private static final Predicate<HasMetadata> WORKLOAD = o -> o instanceof Deployment || o instanceof StatefulSet;

  private final InformerCache cache;
  private final Converger converger;
  private final RolloutGate gate;
  private final TenantSecrets secrets;
  private final TemplateDistribution templates;
  private final Clock clock;
  /** Tenants whose rollout passed its deadline, with the generation that did. */
  private final Map<String, Long> timedOut = new ConcurrentHashMap<>();

  Provisioning(InformerCache cache, Converger converger, RolloutGate gate, TenantSecrets secrets,
      TemplateDistribution templates, Clock clock) {
    this.cache = cache;
    this.converger = converger;
    this.gate = gate;
    this.secrets = secrets;
    this.templates = templates;
    this.clock = clock;
  }

  Outcome reconcile(TenantContext ctx, Workloads workloads) {
    String name = ctx.name();
    Tenant tenant = ctx.tenant();
    Namespace namespace = cache.get(Namespace.class, null, ctx.namespace());
    if (namespace != null && namespace.getMetadata().getDeletionTimestamp() != null) {
      // A terminating namespace is waited out: its deletion event brings the tenant back to recreate it.
      return new Outcome(status(ctx, workloads, SecretsStatus.failed("NamespaceTerminating", "namespace is terminating")),
          SyncResult.done());
    }
    TenantSecrets.Resolved resolved;
    try {
      resolved = secrets.resolve(ctx);
    } catch (SecretStoreException e) {
      // Nothing is written or deleted: the tenant keeps running on what it has until the store is back.
      LOG.warn("secret store unavailable {} {}", kv("tenant", name), kv("error", e.getMessage()));
      return new Outcome(status(ctx, workloads, SecretsStatus.failed(e.getClass().getSimpleName().replace("Exception", ""),
          e.getMessage())), SyncResult.withBackoff());
    }
    String templateError = templates.error();
    SecretsStatus secretsStatus = templateError != null
        ? SecretsStatus.failed("TemplateSyncFailed", templateError)
        : new SecretsStatus(true, "Synced", resolved.templates().size() + " template secrets and "
            + resolved.credentials().size() + " database credentials in place", resolved.version());
    List<HasMetadata> desired = DesiredState.of(ctx, resolved.credentials(), resolved.templates(), workloads);
    ChangePlan plan = Converger.plan(desired, cache.ownedBy(name));
    boolean workloadWrites = plan.writes(WORKLOAD);
    boolean rolledOut = desired.stream().filter(WORKLOAD).allMatch(this::rolledOut);

    if (!workloadWrites && rolledOut) {
      gate.release(name, true);
      timedOut.remove(name);
      converger.execute(plan, o -> false);
      return new Outcome(status(ctx, workloads, secretsStatus), SyncResult.done(), plan.isEmpty());
    }
    Long failedGeneration = timedOut.get(name);
    if (!workloadWrites && failedGeneration != null && failedGeneration.equals(tenant.getMetadata().getGeneration())) {
      converger.execute(plan, o -> false);
      return new Outcome(degraded(ctx, workloads, secretsStatus), SyncResult.withBackoff());
    }
    if (!gate.acquire(name)) {
      LOG.debug("waiting for a rollout slot {}", kv("tenant", name));
      converger.execute(plan, WORKLOAD);
      return new Outcome(status(ctx, workloads, secretsStatus), SyncResult.done());
    }
    Duration remaining = gate.remaining(name);
    if (remaining.isNegative() || remaining.isZero()) {
      gate.timedOut(name);
      timedOut.put(name, tenant.getMetadata().getGeneration());
      LOG.warn("rollout passed its deadline {} {}", kv("tenant", name), kv("deadlineSeconds", ctx.config().rolloutDeadlineSeconds));
      return new Outcome(degraded(ctx, workloads, secretsStatus), SyncResult.withBackoff());
    }
    timedOut.remove(name);
    converger.execute(plan, o -> false);
    return new Outcome(status(ctx, workloads, secretsStatus), SyncResult.after(remaining));
  }

  /** Forgets a tenant that is gone or purged: its slot goes to the next in line. */
  void forget(String tenant) {
    gate.release(tenant, false);
    timedOut.remove(tenant);
  }

  private boolean rolledOut(HasMetadata workload) {
    String ns = workload.getMetadata().getNamespace();
    String name = workload.getMetadata().getName();
    return workload instanceof Deployment
        ? Readiness.rolledOut(cache.get(Deployment.class, ns, name))
        : Readiness.rolledOut(cache.get(StatefulSet.class, ns, name));
  }

  private TenantStatus status(TenantContext ctx, Workloads workloads, SecretsStatus secretsStatus) {
    return StatusBuilder.provisioned(ctx.tenant(), ctx.namespace(), Observer.observe(ctx, cache), workloads, secretsStatus,
        Clocks.now(clock));
  }

  private TenantStatus degraded(TenantContext ctx, Workloads workloads, SecretsStatus secretsStatus) {
    TenantStatus observed = status(ctx, workloads, secretsStatus);
    return StatusBuilder.failed(observed, ctx.tenant().getMetadata().getGeneration(), "RolloutTimedOut",
        "not rolled out within " + ctx.config().rolloutDeadlineSeconds + "s: " + observed.getConditions().get(0).getMessage(),
        Clocks.now(clock));
  }

}
