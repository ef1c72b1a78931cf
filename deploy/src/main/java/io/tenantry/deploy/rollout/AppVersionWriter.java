package io.tenantry.deploy.rollout;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.tenantry.api.v1alpha1.AppSpec;
import io.tenantry.api.v1alpha1.SparePool;
import io.tenantry.api.v1alpha1.Tenant;
import java.util.List;
import java.util.Optional;
import java.util.function.Function;

/**
 * Writes an app's version into Tenants and SparePools with {@link AppVersionPatch}, as field
 * manager {@value #FIELD_MANAGER} (so {@code managedFields} say who set it). Writes nothing when the
 * version is already there.
 */
public final class AppVersionWriter {

  public static final String FIELD_MANAGER = "tenantctl";
  /** A list reordered this many times in a row under us is not a race but a fight; give up. */
  private static final int MAX_ATTEMPTS = 5;

  /** The version found before the write, and the generation that carries the new one. */
  public record Written(String fromVersion, long generation) {
  }

  private AppVersionWriter() {
  }

  /** Empty when the tenant does not exist. */
  public static Optional<Written> setTenant(KubernetesClient client, String tenant, String app, String version) {
    return set(client, Tenant.class, tenant, "/spec/apps", t -> t.getSpec().getApps(), app, version);
  }

  /** Empty when the pool does not exist. */
  public static Optional<Written> setPool(KubernetesClient client, String pool, String app, String version) {
    return set(client, SparePool.class, pool, "/spec/template/apps", p -> p.getSpec().getTemplate().getApps(), app,
        version);
  }

  private static <T extends HasMetadata> Optional<Written> set(KubernetesClient client, Class<T> type, String name,
      String listPath, Function<T, List<AppSpec>> apps, String app, String version) {
    String previousPatch = null;
    for (int attempt = 1; ; attempt++) {
      T current = client.resources(type).withName(name).get();
      if (current == null) {
        return Optional.empty();
      }
      Optional<AppSpec> entry = apps.apply(current).stream().filter(a -> app.equals(a.getName())).findFirst();
      if (entry.isEmpty()) {
        throw new IllegalStateException(type.getSimpleName() + " " + name + " has no app " + app);
      }
      String from = entry.get().getVersion();
      if (version.equals(from)) {
        return Optional.of(new Written(from, current.getMetadata().getGeneration()));
      }
      String patch = AppVersionPatch.of(listPath, apps.apply(current), app, version);
      try {
        T written = client.resources(type).withName(name).patch(new PatchContext.Builder()
            .withPatchType(PatchType.JSON).withFieldManager(FIELD_MANAGER).build(), patch);
        return Optional.of(new Written(from, written.getMetadata().getGeneration()));
      } catch (KubernetesClientException e) {
        // 422 is also how a failed JSON patch "test" answers: the list changed between our read
        // and our write. Read again; the same patch failing twice is a real refusal.
        boolean listMoved = e.getCode() == 422 && !patch.equals(previousPatch) && attempt < MAX_ATTEMPTS;
        if (e.getCode() == 404) {
          return Optional.empty();
        }
        if (!listMoved) {
          throw e;
        }
        previousPatch = patch;
      }
    }
  }
}
