package io.tenantry.secretstore.sync;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Namespace;
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
import java.util.ArrayList;
import java.util.Base64;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Fills the reserved template namespace from the store's template scope: creates, updates and
 * deletes only the Secrets that differ (content hash and store version, compared without reading
 * values from the store), every one labelled as managed. A Secret edited by hand differs too: its
 * own data is hashed and compared, so changed, added or removed keys are found even when the
 * annotations were left alone. The operator runs it periodically against its cache; the CLI runs
 * it on demand.
 *
 * <p>Deleting is guarded, since each template Secret deleted here is then deleted from every tenant:
 * a sync that would delete every template Secret of the namespace because the store lists none, or
 * more than {@code maxDeletionShare} of them, changes nothing and fails with
 * {@link TemplateDeletionRefusedException} saying why and what to do. An emptied, unmounted or
 * mistyped store thus stops the sync instead of wiping every tenant's secrets.
 */
public final class TemplateSync {

  public static final String FIELD_MANAGER = "tenantry";
  /** The share of the namespace's template Secrets one sync may delete unless told otherwise. */
  public static final double DEFAULT_MAX_DELETION_SHARE = 0.5;
  private static final int MAX_NAMES_SHOWN = 10;

  private final SecretStore store;
  private final KubernetesClient client;
  private final String namespace;
  private final double maxDeletionShare;

  /** A sync that may delete at most {@link #DEFAULT_MAX_DELETION_SHARE} of the template Secrets at once. */
  public TemplateSync(SecretStore store, KubernetesClient client, String namespace) {
    this(store, client, namespace, DEFAULT_MAX_DELETION_SHARE);
  }

  /**
   * @param maxDeletionShare the largest share (0 to 1) of the namespace's template Secrets one sync may
   *     delete; 0: none, 1: any number, as long as the store lists at least one template secret
   */
  public TemplateSync(SecretStore store, KubernetesClient client, String namespace, double maxDeletionShare) {
    if (!(maxDeletionShare >= 0 && maxDeletionShare <= 1)) {
      throw new IllegalArgumentException("maxDeletionShare must be between 0 and 1: " + maxDeletionShare);
    }
    this.store = store;
    this.client = client;
    this.namespace = namespace;
    this.maxDeletionShare = maxDeletionShare;
  }

  /** What a sync changed. */
  public record Result(int created, int updated, int deleted, int unchanged) {
    public boolean changed() {
      return created + updated + deleted > 0;
    }
  }

  /**
   * The template namespace as whoever makes it first makes it: Pod Security restricted like every
   * namespace the operator makes (no pod runs here; the policy confining the operator's account
   * admits no other namespace of its making).
   */
  public static Namespace templateNamespace(String name) {
    return new NamespaceBuilder().withNewMetadata().withName(name)
        .addToLabels(WellKnown.MANAGED_BY, WellKnown.MANAGER)
        .addToLabels("pod-security.kubernetes.io/enforce", "restricted").endMetadata().build();
  }

  /** The template Secrets now in the namespace, listed from the API server (for one-off runs). */
  public List<Secret> listCurrent() {
    return client.secrets().inNamespace(namespace).withLabel(WellKnown.TEMPLATE, "true").list().getItems();
  }

  /**
   * Makes the namespace hold exactly the store's template secrets.
   *
   * @param current the template Secrets the namespace holds now (from an informer cache, or {@link #listCurrent()})
   * @throws TemplateDeletionRefusedException when that would delete too many of them; nothing was written
   */
  public Result sync(List<Secret> current) {
    Map<String, Secret> existing = new HashMap<>();
    current.forEach(s -> existing.put(s.getMetadata().getName(), s));
    List<SecretMetadata> listed = store.list(Scope.template());
    refuseMassDeletion(existing, listed);
    int created = 0;
    int updated = 0;
    int unchanged = 0;
    boolean namespaceEnsured = !current.isEmpty();
    for (SecretMetadata meta : listed) {
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
        apply(templateNamespace(namespace));
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

  /** Throws, before anything is written, if the sync would delete too many of the {@code existing} Secrets. */
  private void refuseMassDeletion(Map<String, Secret> existing, List<SecretMetadata> listed) {
    Set<String> inStore = new HashSet<>();
    listed.forEach(meta -> inStore.add(meta.name()));
    List<String> doomed = new ArrayList<>(existing.keySet());
    doomed.removeAll(inStore);
    if (doomed.isEmpty()) {
      return;
    }
    Collections.sort(doomed);
    if (listed.isEmpty()) {
      throw new TemplateDeletionRefusedException(namespace, doomed, existing.size(), "refusing to delete "
          + (existing.size() == 1 ? "the only template Secret" : "all " + existing.size() + " template Secrets")
          + " of namespace " + namespace + ": the secret store " + store.location()
          + " lists no template secret. Nothing was changed. An emptied, unmounted or wrong store must not delete"
          + " the templates, and with them every tenant's copies: check the store and its location. If every"
          + " template is really to go, delete them by hand: kubectl delete secrets -n " + namespace + " -l "
          + WellKnown.TEMPLATE + "=true");
    }
    if (doomed.size() > maxDeletionShare * existing.size()) {
      throw new TemplateDeletionRefusedException(namespace, doomed, existing.size(), "refusing to delete "
          + doomed.size() + " of the " + existing.size() + " template Secrets of namespace " + namespace + " ("
          + names(doomed) + "): more than the allowed share of " + maxDeletionShare + " at once, as they are not in"
          + " the secret store " + store.location() + ". Nothing was changed. Check the store; if these templates"
          + " are really to go, delete them by hand (kubectl delete secrets -n " + namespace + " "
          + (doomed.size() <= MAX_NAMES_SHOWN ? String.join(" ", doomed) : "NAME...") + ") or allow a larger share (the operator's"
          + " secretStore.maxTemplateDeletionShare, or sync-templates --max-deletion-share)");
    }
  }

  private static String names(List<String> names) {
    int shown = Math.min(names.size(), MAX_NAMES_SHOWN);
    return String.join(", ", names.subList(0, shown)) + (shown < names.size() ? ", and " + (names.size() - shown)
        + " more" : "");
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
