package io.tenantry.controller.pooling;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.tenantry.api.v1alpha1.DatabaseEngine;
import io.tenantry.api.v1alpha1.DatabaseSpec;
import io.tenantry.controller.resources.DatabaseCredentials;
import io.tenantry.controller.resources.TenantContext;
import io.tenantry.controller.resources.Workloads;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The poolers of a tenant, all or nothing: every database's pooler is checked against its budget
 * ({@link PoolerBudget}) before any object is built, so that a refused one leaves the tenant as it
 * is. What is built goes over the tenant's other desired objects ({@link #over}): the pooler's
 * own, the apps' binding Secret of a pooled database in place of the direct one, and the direct
 * binding its migration Jobs read instead.
 */
public final class Pooling {

  private Pooling() {
  }

  /** What {@link #desired} found. */
  public sealed interface Outcome {
  }

  /** The poolers fit: their objects and the pooled binding Secrets (none when no database has a pooler). */
  public record Desired(List<HasMetadata> objects) implements Outcome {
  }

  /** One pooler does not fit, or cannot be: nothing of any pooler should be written. */
  public record Refused(String field, String message) implements Outcome {
  }

  /**
   * @param credentials the credentials of each database by name; a pooled database's must be present
   * @param workloads Frozen puts the poolers at zero pods; Archived removes them and gives the binding back to the database
   */
  public static Outcome desired(TenantContext ctx, Map<String, DatabaseCredentials> credentials, Workloads workloads) {
    if (workloads == Workloads.REMOVED) {
      // Nothing of a pooler is made, so no budget can stand in the way of archiving.
      return new Desired(List.of());
    }
    List<DatabaseSpec> databases = ctx.tenant().getSpec().getDatabases();
    Map<DatabaseSpec, Integer> maxDbConnections = new LinkedHashMap<>();
    for (int i = 0; i < databases.size(); i++) {
      DatabaseSpec db = databases.get(i);
      if (db.getPooler() == null) {
        continue;
      }
      String path = "spec.databases[" + i + "].pooler";
      if (db.getEngine() != DatabaseEngine.POSTGRES) {
        return new Refused(path, "only a postgres database can have a pooler");
      }
      PoolerBudget.Outcome budget = PoolerBudget.check(path, db.getPooler(), ctx.plan().pooler().maxServerConnections(),
          ctx.plan().pooler().serverConnections());
      if (budget instanceof PoolerBudget.Refused refused) {
        return new Refused(refused.field(), refused.message());
      }
      maxDbConnections.put(db, ((PoolerBudget.Fits) budget).maxDbConnections());
    }
    List<HasMetadata> objects = new ArrayList<>();
    maxDbConnections.forEach((db, max) -> {
      DatabaseCredentials dbCredentials = credentials.get(db.getName());
      if (dbCredentials == null) {
        throw new IllegalArgumentException("no credentials for database " + db.getName());
      }
      objects.addAll(PoolerModel.objects(ctx, db, dbCredentials, workloads, max));
      objects.add(PoolerBinding.secret(ctx, db, dbCredentials));
      objects.add(PoolerBinding.directSecret(ctx, db, dbCredentials));
    });
    return new Desired(objects);
  }

  /** {@code desired} with each of {@code pooling} in place of the object of its kind and name, or added. */
  public static List<HasMetadata> over(List<HasMetadata> desired, List<HasMetadata> pooling) {
    Map<String, HasMetadata> byKey = new LinkedHashMap<>();
    desired.forEach(o -> byKey.put(key(o), o));
    pooling.forEach(o -> byKey.put(key(o), o));
    return List.copyOf(byKey.values());
  }

  private static String key(HasMetadata o) {
    return o.getKind() + "/" + o.getMetadata().getNamespace() + "/" + o.getMetadata().getName();
  }
}
