package io.tenantry.controller.lifecycle;

import io.fabric8.kubernetes.api.model.Namespace;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.api.model.autoscaling.v2.HorizontalPodAutoscaler;
import io.tenantry.api.v1alpha1.AppSpec;
import io.tenantry.api.v1alpha1.DatabaseSpec;
import io.tenantry.controller.cache.ClusterView;
import io.tenantry.controller.resources.Names;
import io.tenantry.controller.resources.TenantContext;
import io.tenantry.controller.status.StatusBuilder;
import java.util.HashMap;
import java.util.Map;

/** Reads a tenant's namespace and workloads from the cache. */
final class Observer {

  private Observer() {
  }

  static StatusBuilder.Observed observe(TenantContext ctx, ClusterView cache) {
    Map<String, Deployment> deployments = new HashMap<>();
    for (AppSpec app : ctx.tenant().getSpec().getApps()) {
      Deployment deployment = cache.get(Deployment.class, ctx.namespace(), Names.app(app.getName()));
      if (deployment != null) {
        deployments.put(app.getName(), deployment);
      }
    }
    Map<String, StatefulSet> statefulSets = new HashMap<>();
    Map<String, Deployment> poolers = new HashMap<>();
    for (DatabaseSpec db : ctx.tenant().getSpec().getDatabases()) {
      StatefulSet statefulSet = cache.get(StatefulSet.class, ctx.namespace(), Names.database(db.getName()));
      if (statefulSet != null) {
        statefulSets.put(db.getName(), statefulSet);
      }
      // Looked up whether the spec has one or not: a pooler still there keeps an Archived tenant archiving.
      Deployment pooler = cache.get(Deployment.class, ctx.namespace(), Names.pooler(db.getName()));
      if (pooler != null) {
        poolers.put(db.getName(), pooler);
      }
    }
    Map<String, HorizontalPodAutoscaler> autoscalers = new HashMap<>();
    for (AppSpec app : ctx.tenant().getSpec().getApps()) {
      HorizontalPodAutoscaler autoscaler = cache.get(HorizontalPodAutoscaler.class, ctx.namespace(), Names.app(app.getName()));
      if (autoscaler != null) {
        autoscalers.put(app.getName(), autoscaler);
      }
    }
    return new StatusBuilder.Observed(cache.get(Namespace.class, null, ctx.namespace()), deployments, statefulSets, poolers,
        autoscalers);
  }
}
