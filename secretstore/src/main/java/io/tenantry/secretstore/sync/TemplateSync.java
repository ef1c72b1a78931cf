package io.tenantry.secretstore.sync;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.SecretBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.tenantry.api.WellKnown;
import io.tenantry.secretstore.Scope;
import io.tenantry.secretstore.SecretFormat;
import io.tenantry.secretstore.SecretMetadata;
import io.tenantry.secretstore.SecretStore;
import io.tenantry.secretstore.StoredSecret;
import java.util.Base64;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Fills the reserved template namespace from the store's template scope: creates, updates and
 * deletes only the Secrets that differ (content hash and store version, compared without reading
 * values from the store), every one labelled as managed. A Secret edited by hand differs too: its
 * own data is hashed and compared, so changed, added or removed keys are found even when the
 * annotations were left alone. The operator runs it periodically against its cache; the CLI runs
 * it on demand.
 */
public final class TemplateSync {

  public static final String FIELD_MANAGER = "tenantry";

  private final SecretStore store;
  private final KubernetesClient client;
  private final String namespace;

  public TemplateSync(SecretStore store, KubernetesClient client, String namespace) {
    this.store = store;
    this.client = client;
    this.namespace = namespace;
  }

  /** What a sync changed. */
  public record Result(int created, int updated, int deleted, int unchanged) {
    public boolean changed() {
      return created + updated + deleted > 0;
    }
  }

  /** The template Secrets now in the namespace, listed from the API server (for one-off runs). */
  public List<Secret> listCurrent() {
    return client.secrets().inNamespace(namespace).withLabel(WellKnown.TEMPLATE, "true").list().getItems();
  }

  /**
   * Makes the namespace hold exactly the store's template secrets.
   *
   * @param current the template Secrets the namespace holds now (from an informer cache, or {@link #listCurrent()})
   */
  public Result sync(List<Secret> current) {
    Map<String, Secret> existing = new HashMap<>();
    current.forEach(s -> existing.put(s.getMetadata().getName(), s));
    int created = 0;
    int updated = 0;
    int unchanged = 0;
    boolean namespaceEnsured = !current.isEmpty();
    for (SecretMetadata meta : store.list(Scope.template())) {
      Secret have = existing.remove(meta.name());
      if (have != null && upToDate(have, meta)) {
        unchanged++;
        continue;
      }
      StoredSecret stored = store.get(Scope.template(), meta.name()).orElse(null);
      if (stored == null) {
        continue; // Deleted since it was listed: the next sync removes its copy.
      }
      if (!namespaceEnsured) {
        apply(new NamespaceBuilder().withNewMetadata().withName(namespace)
            .addToLabels(WellKnown.MANAGED_BY, WellKnown.MANAGER).endMetadata().build());
        namespaceEnsured = true;
      }
      Secret desired = templateSecret(namespace, stored);
      if (have == null) {
        apply(desired);
        created++;
      } else {
        replace(have, desired);
        updated++;
      }
    }
    for (Secret gone : existing.values()) {
      client.resource(gone).delete();
    }
    return new Result(created, updated, existing.size(), unchanged);
  }

  private static boolean upToDate(Secret secret, SecretMetadata meta) {
    Map<String, String> annotations = secret.getMetadata().getAnnotations();
    return annotations != null && meta.contentHash().equals(annotations.get(WellKnown.CONTENT_HASH))
        && meta.version().equals(annotations.get(WellKnown.SECRET_VERSION))
        && meta.contentHash().equals(contentHash(secret));
  }

  /** The hash of the data the Secret really holds, as the store computes it; null if it cannot be read. */
  private static String contentHash(Secret secret) {
    Map<String, byte[]> data = new HashMap<>();
    try {
      if (secret.getData() != null) {
        secret.getData().forEach((key, value) -> data.put(key, Base64.getDecoder().decode(value)));
      }
      return SecretFormat.contentHash(data);
    } catch (IllegalArgumentException e) {
      // Not base64 or not a valid key: not what the store holds, so the Secret is rewritten.
      return null;
    }
  }

  /** The Secret holding a template secret in the template namespace. */
  static Secret templateSecret(String namespace, StoredSecret stored) {
    Map<String, String> data = new LinkedHashMap<>();
    stored.data().forEach((key, value) -> data.put(key, Base64.getEncoder().encodeToString(value)));
    return new SecretBuilder()
        .withNewMetadata().withName(stored.name()).withNamespace(namespace)
        .addToLabels(WellKnown.MANAGED_BY, WellKnown.MANAGER)
        .addToLabels(WellKnown.TEMPLATE, "true")
        .addToAnnotations(WellKnown.CONTENT_HASH, stored.contentHash())
        .addToAnnotations(WellKnown.SECRET_VERSION, stored.version())
        .endMetadata()
        .withType("Opaque")
        .withData(data)
        .build();
  }

  /**
   * Replaces a Secret that differs as a whole (a PUT at the resourceVersion it was listed with).
   * Unlike an apply, this also drops data keys, labels and annotations someone else added by hand,
   * which server-side apply would leave alone as theirs, so the Secret ends up exactly as the store
   * says. If it changed since it was listed the write fails with a conflict, and the next sync
   * starts from the new state.
   */
  private void replace(Secret have, Secret desired) {
    desired.getMetadata().setResourceVersion(have.getMetadata().getResourceVersion());
    client.resource(desired).update();
  }

  private void apply(HasMetadata object) {
    client.resource(object).fieldManager(FIELD_MANAGER).forceConflicts().serverSideApply();
  }
}
