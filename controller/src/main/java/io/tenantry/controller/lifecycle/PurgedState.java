package io.tenantry.controller.lifecycle;

import static net.logstash.logback.argument.StructuredArguments.kv;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Namespace;
import io.tenantry.api.Timestamps;
import io.tenantry.api.WellKnown;
import io.tenantry.api.v1alpha1.TenantPhase;
import io.tenantry.api.v1alpha1.TenantState;
import io.tenantry.controller.apply.ObjectWriter;
import io.tenantry.controller.cache.ClusterView;
import io.tenantry.controller.queue.SyncResult;
import io.tenantry.controller.resources.NamespaceModel;
import io.tenantry.controller.resources.TenantContext;
import io.tenantry.controller.status.StatusBuilder;
import java.time.Clock;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Purged tenants (terminal): what the tenant owns outside its namespace is deleted, then the
 * namespace, and with it every object and volume claim in it (the volumes follow their
 * StorageClass's reclaim policy); then the tenant's entries outside the cluster (secret store,
 * fleet records and hostname claims) are removed. Phase Purging until all of it
 * is gone, then Purged.
 */
public final class PurgedState implements StateHandler {

  private static final Logger LOG = LoggerFactory.getLogger(PurgedState.class);

  private final ClusterView cache;
  private final ObjectWriter writer;
  private final TenantCleanup cleanup;
  private final Clock clock;

  public PurgedState(ClusterView cache, ObjectWriter writer, TenantCleanup cleanup, Clock clock) {
    this.cache = cache;
    this.writer = writer;
    this.cleanup = cleanup;
    this.clock = clock;
  }

  @Override
  public Outcome reconcile(TenantContext ctx) {
    // What the tenant owns outside its namespace (a Frozen tenant's route in the edge namespace) goes first.
    for (HasMetadata owned : cache.ownedBy(ctx.name())) {
      String ns = owned.getMetadata().getNamespace();
      if (ns != null && !ns.equals(ctx.namespace())) {
        writer.delete(owned);
      }
    }
    Namespace namespace = cache.get(Namespace.class, null, ctx.namespace());
    if (namespace != null) {
      return deleteNamespace(ctx, namespace);
    }
    if (ctx.tenant().getStatus() != null && ctx.tenant().getStatus().getPhase() == TenantPhase.Purged) {
      return new Outcome(ctx.tenant().getStatus(), SyncResult.done(), true); // Done before: nothing to call again.
    }
    try {
      cleanup.purge(ctx.name(), ctx.tenant().getMetadata().getUid());
    } catch (Exception e) {
      throw new IllegalStateException("purging the tenant's records outside the cluster failed: " + e.getMessage(), e);
    }
    LOG.info("purged {}", kv("tenant", ctx.name()));
    return new Outcome(StatusBuilder.purged(ctx.tenant(), true,
        "namespace " + ctx.namespace() + ", its volumes and the tenant's records outside the cluster are deleted",
        Timestamps.now(clock)), SyncResult.done());
  }

  /**
   * Deletes the namespace in two steps: first it is labelled Purged (the deletion policy refuses
   * deleting a tenant namespace labelled otherwise), then, once the cache shows the label, deleted.
   * A namespace stamped with another Tenant's UID (made for an earlier Tenant of this name) is left
   * alone: purging this Tenant must not delete what it never held.
   */
  private Outcome deleteNamespace(TenantContext ctx, Namespace namespace) {
    Map<String, String> annotations = namespace.getMetadata().getAnnotations();
    String stamp = annotations == null ? null : annotations.get(WellKnown.TENANT_UID);
    String message = "deleting namespace " + ctx.namespace();
    if (stamp != null && !stamp.equals(ctx.tenant().getMetadata().getUid())) {
      message = "namespace " + ctx.namespace() + " was made for another Tenant (uid " + stamp + ") and is not deleted;"
          + " delete it by hand if its data is no longer needed";
    } else if (namespace.getMetadata().getDeletionTimestamp() == null) {
      Map<String, String> labels = namespace.getMetadata().getLabels();
      if (labels != null && TenantState.Purged.name().equals(labels.get(WellKnown.STATE))) {
        writer.delete(namespace);
      } else {
        writer.write(NamespaceModel.namespace(ctx, TenantState.Purged), false);
      }
    }
    // The namespace's events (labelled, deleted) bring the tenant back.
    return new Outcome(StatusBuilder.purged(ctx.tenant(), false, message, Timestamps.now(clock)), SyncResult.done());
  }
}
