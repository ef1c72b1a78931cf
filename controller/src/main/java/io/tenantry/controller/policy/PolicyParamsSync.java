package io.tenantry.controller.policy;

import static net.logstash.logback.argument.StructuredArguments.kv;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.tenantry.controller.apply.Applier;
import io.tenantry.controller.cache.ClusterView;
import io.tenantry.secretstore.sync.TemplateSync;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps {@link PolicyParams} in the cluster as the configuration wants it, cache-first: a check
 * reads the informer cache and writes (server-side apply) only when the ConfigMap is missing or
 * was changed by someone else. The operator checks once before it syncs anything and then with
 * every template refresh, so a hand edit or a deletion is put back within templateSyncSeconds.
 */
public final class PolicyParamsSync {

  private static final Logger LOG = LoggerFactory.getLogger(PolicyParamsSync.class);

  private final KubernetesClient client;
  private final ClusterView cache;
  private final ConfigMap desired;

  public PolicyParamsSync(KubernetesClient client, ClusterView cache, ConfigMap desired) {
    this.client = client;
    this.cache = cache;
    this.desired = desired;
  }

  /** One check; never throws (a failure is logged and the next check tries again). Returns whether it wrote. */
  public boolean refresh() {
    String namespace = desired.getMetadata().getNamespace();
    ConfigMap have = cache.get(ConfigMap.class, namespace, PolicyParams.NAME);
    if (PolicyParams.upToDate(have, desired)) {
      return false;
    }
    try {
      write(namespace);
      LOG.info("policy parameters written {} {} {}", kv("namespace", namespace), kv("name", PolicyParams.NAME),
          kv("created", have == null));
      return true;
    } catch (KubernetesClientException e) {
      LOG.warn("could not write the policy parameters {} {} {}", kv("namespace", namespace), kv("name", PolicyParams.NAME),
          kv("error", e.getMessage()));
      return false;
    }
  }

  private void write(String namespace) {
    try {
      apply(desired);
    } catch (KubernetesClientException e) {
      if (e.getCode() != 404) {
        throw e;
      }
      // The template namespace does not exist yet (no template Secret was ever copied): made as the template refresh makes it.
      apply(TemplateSync.templateNamespace(namespace));
      apply(desired);
    }
  }

  private void apply(HasMetadata object) {
    client.resource(object).fieldManager(Applier.FIELD_MANAGER).forceConflicts().serverSideApply();
  }
}
