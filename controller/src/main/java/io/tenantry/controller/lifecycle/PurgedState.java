package io.tenantry.controller.lifecycle;

import static net.logstash.logback.argument.StructuredArguments.kv;

import io.fabric8.kubernetes.api.model.Namespace;
import io.tenantry.api.Timestamps;
import io.tenantry.api.v1alpha1.TenantPhase;
import io.tenantry.controller.apply.ObjectWriter;
import io.tenantry.controller.cache.ClusterView;
import io.tenantry.controller.queue.SyncResult;
import io.tenantry.controller.resources.TenantContext;
import io.tenantry.controller.status.StatusBuilder;
import java.time.Clock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Purged tenants (terminal): the namespace is deleted, and with it every object and volume claim
 * in it (the volumes follow their StorageClass's reclaim policy); then the tenant's entries
 * outside the cluster (secret store, fleet records) are removed. Phase Purging until all of it
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
    Namespace namespace = cache.get(Namespace.class, null, ctx.namespace());
    if (namespace != null) {
      if (namespace.getMetadata().getDeletionTimestamp() == null) {
        writer.delete(namespace);
      }
      // The namespace's deletion event brings the tenant back.
      return new Outcome(StatusBuilder.purged(ctx.tenant(), false, "deleting namespace " + ctx.namespace(),
          Timestamps.now(clock)), SyncResult.done());
    }
    if (ctx.tenant().getStatus() != null && ctx.tenant().getStatus().getPhase() == TenantPhase.Purged) {
      return new Outcome(ctx.tenant().getStatus(), SyncResult.done(), true); // Done before: nothing to call again.
    }
    try {
      cleanup.purge(ctx.name());
    } catch (Exception e) {
      throw new IllegalStateException("purging the tenant's records outside the cluster failed: " + e.getMessage(), e);
    }
    LOG.info("purged {}", kv("tenant", ctx.name()));
    return new Outcome(StatusBuilder.purged(ctx.tenant(), true,
        "namespace " + ctx.namespace() + ", its volumes and the tenant's records outside the cluster are deleted",
        Timestamps.now(clock)), SyncResult.done());
  }
}
