package io.tenantry.controller.secrets;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.SecretBuilder;
import io.tenantry.api.WellKnown;
import io.tenantry.controller.config.OperatorConfig;
import io.tenantry.controller.fakes.FakeCluster;
import io.tenantry.controller.fakes.InMemorySecretStore;
import io.tenantry.secretstore.Scope;
import io.tenantry.secretstore.SecretMetadata;
import io.tenantry.secretstore.sync.TemplateSync;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * The template refresh when the store would have it delete every template: nothing is deleted (the
 * sync has no Kubernetes client at all, so any write would fail otherwise) and the refusal is the
 * error every tenant's SecretsSynced condition reports.
 */
class TemplateDistributionTest {

  private static final String NAMESPACE = "tenantry-templates";

  private final FakeCluster cluster = new FakeCluster();
  private final InMemorySecretStore store = new InMemorySecretStore();
  private final AtomicInteger requeues = new AtomicInteger();

  @Test
  void anEmptiedStoreIsRefusedAndReportedNotApplied() {
    double share = OperatorConfig.defaults().secretStore().maxTemplateDeletionShare();
    TemplateDistribution templates = new TemplateDistribution(new TemplateSync(store, null, NAMESPACE, share), cluster,
        requeues::incrementAndGet);
    for (String name : List.of("registry", "smtp")) {
      store.put(Scope.template(), name, Map.of("password", (name + "-secret").getBytes(UTF_8)));
      cluster.addTemplate(synced(store.list(Scope.template()).stream().filter(m -> m.name().equals(name)).findFirst()
          .orElseThrow()));
    }
    templates.refresh();
    assertThat(templates.error()).as("in step with the store").isNull();

    store.delete(Scope.template(), "registry");
    store.delete(Scope.template(), "smtp");
    templates.refresh();

    assertThat(templates.error()).startsWith("refreshing the template secrets failed: refusing to delete all 2 template"
        + " Secrets of namespace " + NAMESPACE + ": the secret store ").contains(" lists no template secret. Nothing"
        + " was changed.");
    assertThat(requeues).as("every tenant re-queued to report it").hasValue(1);
    long version = templates.stateVersion();

    templates.refresh();
    assertThat(templates.stateVersion()).as("the same refusal again changes no state").isEqualTo(version);
    assertThat(requeues).hasValue(1);
  }

  /** The template Secret a sync wrote for the store's secret: labels, annotations and data as TemplateSync sets them. */
  private Secret synced(SecretMetadata meta) {
    Map<String, byte[]> data = store.get(Scope.template(), meta.name()).orElseThrow().data();
    SecretBuilder secret = new SecretBuilder().withNewMetadata().withName(meta.name()).withNamespace(NAMESPACE)
        .addToLabels(WellKnown.MANAGED_BY, WellKnown.MANAGER).addToLabels(WellKnown.TEMPLATE, "true")
        .addToAnnotations(WellKnown.CONTENT_HASH, meta.contentHash())
        .addToAnnotations(WellKnown.SECRET_VERSION, meta.version())
        .endMetadata().withType("Opaque");
    data.forEach((key, value) -> secret.addToData(key, Base64.getEncoder().encodeToString(value)));
    return secret.build();
  }
}
