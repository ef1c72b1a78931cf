package io.tenantry.controller.lifecycle;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.ResourceQuota;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.SecretBuilder;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServiceBuilder;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.DeploymentBuilder;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicy;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicyBuilder;
import io.tenantry.api.v1alpha1.ConfigFile;
import io.tenantry.api.v1alpha1.TenantPhase;
import io.tenantry.controller.queue.SyncResult;
import io.tenantry.controller.status.Conditions;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.function.UnaryOperator;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Whatever a tenant's admin (or a cluster admin) writes into a managed object, the next sync puts
 * it back from its source (the store for credentials, the spec for the rest) and the sync after
 * writes nothing; one object the API server refuses does not keep the others from being written.
 */
class ManagedDriftTest {

  private static final String NS = "tenant-acme";

  private static String base64(String value) {
    return Base64.getEncoder().encodeToString(value.getBytes(StandardCharsets.UTF_8));
  }

  private static Condition ready(SyncFixture f) {
    return Conditions.find(f.cluster.tenant("acme").getStatus().getConditions(), Conditions.READY).orElseThrow();
  }

  private static boolean objectWrite(String write) {
    return write.startsWith("apply ") || write.startsWith("create ") || write.startsWith("delete ");
  }

  /** Edits a data key of a Secret in the cluster as {@code kubectl patch} would: null removes it. */
  private static void editSecret(SyncFixture f, String name, String key, String value) {
    Secret secret = new SecretBuilder(f.cluster.get(Secret.class, NS, name)).build();
    secret.getData().remove(key);
    if (value != null) {
      secret.getData().put(key, value);
    }
    f.cluster.putOwned(secret);
  }

  /** The next sync writes {@code expected} objects, and the one after writes none. */
  private static void putBackInOneSync(SyncFixture f, String... expected) {
    f.sync("acme");
    assertThat(f.writes.take().stream().filter(ManagedDriftTest::objectWrite)).containsExactly(expected);
    f.cluster.rollOut("acme");
    f.sync("acme");
    assertThat(f.writes.take()).as("the sync after the repair").noneMatch(ManagedDriftTest::objectWrite);
    assertThat(f.cluster.tenant("acme").getStatus().getPhase()).isEqualTo(TenantPhase.Ready);
  }

  static Stream<String[]> corruptCredentials() {
    return Stream.of(new String[] {"password", null}, new String[] {"password", ""}, new String[] {"password", "not base64!"},
        new String[] {"username", null}, new String[] {"username", base64("mallory")}, new String[] {"password", base64("forged")});
  }

  @ParameterizedTest(name = "{0} set to {1}")
  @MethodSource("corruptCredentials")
  void aCredentialsSecretWithAKeyMissingOrMalformedIsRewrittenFromTheStoreAndTheSyncSucceeds(String key, String value) {
    SyncFixture f = new SyncFixture();
    f.provisioned("acme");
    Map<String, String> stored = Map.copyOf(f.cluster.get(Secret.class, NS, "db-main-credentials").getData());
    editSecret(f, "db-main-credentials", key, value);

    assertThat(f.sync("acme")).isEqualTo(SyncResult.done());
    assertThat(f.writes.take()).containsExactly("apply Secret tenant-acme/db-main-credentials");
    assertThat(f.cluster.get(Secret.class, NS, "db-main-credentials").getData()).isEqualTo(stored);
    assertThat(f.cluster.tenant("acme").getStatus().getPhase()).isEqualTo(TenantPhase.Ready);
    putBackInOneSync(f);
  }

  @Test
  void aCredentialsSecretWithItsVersionAnnotationsForgedIsRewrittenFromTheStore() {
    SyncFixture f = new SyncFixture();
    f.provisioned("acme");
    Secret credentials = f.cluster.get(Secret.class, NS, "db-main-credentials");
    Map<String, String> annotations = Map.copyOf(credentials.getMetadata().getAnnotations());
    f.cluster.putOwned(new SecretBuilder(credentials).editMetadata().addToAnnotations("tenantry.io/content-hash", "forged")
        .endMetadata().build());

    putBackInOneSync(f, "apply Secret tenant-acme/db-main-credentials");
    assertThat(f.cluster.get(Secret.class, NS, "db-main-credentials").getMetadata().getAnnotations()).isEqualTo(annotations);
    assertThat(f.cluster.get(Secret.class, NS, "db-main-binding").getMetadata().getAnnotations())
        .as("the forgery did not spread to the binding").containsAllEntriesOf(annotations);
  }

  static Stream<String> bindingKeys() {
    return Stream.of("type", "provider", "host", "port", "username", "password", "database", "uri");
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("bindingKeys")
  void eachBindingKeyRemovedOrGarbledIsPutBack(String key) {
    SyncFixture f = new SyncFixture();
    f.provisioned("acme");
    String good = f.cluster.get(Secret.class, NS, "db-main-binding").getData().get(key);
    assertThat(good).as("the binding has " + key).isNotNull();

    editSecret(f, "db-main-binding", key, null);
    putBackInOneSync(f, "apply Secret tenant-acme/db-main-binding");
    assertThat(f.cluster.get(Secret.class, NS, "db-main-binding").getData()).containsEntry(key, good);

    editSecret(f, "db-main-binding", key, base64("evil.example:1/x"));
    putBackInOneSync(f, "apply Secret tenant-acme/db-main-binding");
    assertThat(f.cluster.get(Secret.class, NS, "db-main-binding").getData()).containsEntry(key, good);
  }

  @Test
  void aBindingSecretMadeAgainWithAnotherTypeIsReplacedItsTypeBeingImmutable() {
    SyncFixture f = new SyncFixture();
    f.provisioned("acme");
    Secret binding = f.cluster.get(Secret.class, NS, "db-main-binding");
    f.cluster.putOwned(new SecretBuilder(binding).withType("Opaque").build());

    putBackInOneSync(f, "delete Secret tenant-acme/db-main-binding", "create Secret tenant-acme/db-main-binding");
    assertThat(f.cluster.get(Secret.class, NS, "db-main-binding").getType()).isEqualTo("servicebinding.io/postgresql");
  }

  static Stream<UnaryOperator<ConfigMap>> identityCorruptions() {
    return Stream.of(
        cm -> new ConfigMapBuilder(cm).withData(null).build(),
        cm -> new ConfigMapBuilder(cm).removeFromData("organization").build(),
        cm -> new ConfigMapBuilder(cm).addToData("plan", "enterprise").addToData("state", "").build());
  }

  @ParameterizedTest
  @MethodSource("identityCorruptions")
  void theIdentityConfigMapCorruptedIsPutBackFromTheSpec(UnaryOperator<ConfigMap> corrupt) {
    SyncFixture f = new SyncFixture();
    f.provisioned("acme");
    ConfigMap identity = f.cluster.get(ConfigMap.class, NS, "tenant-identity");
    Map<String, String> good = Map.copyOf(identity.getData());
    f.cluster.putOwned(corrupt.apply(identity));

    putBackInOneSync(f, "apply ConfigMap tenant-acme/tenant-identity");
    assertThat(f.cluster.get(ConfigMap.class, NS, "tenant-identity").getData()).isEqualTo(good);
  }

  @Test
  void aConfigFileConfigMapAndATemplateCopyEditedByHandArePutBack() {
    SyncFixture f = new SyncFixture();
    f.cluster.addTemplate(new SecretBuilder().withNewMetadata().withName("smtp").withNamespace("tenantry-templates")
        .addToAnnotations("tenantry.io/content-hash", "h1").endMetadata().withType("Opaque").addToData("password", base64("smtp-1"))
        .build());
    f.tenant("acme");
    f.edit("acme", t -> t.getSpec().getApps().get(0).getConfig().add(new ConfigFile("app.yaml", "features: [search]\n")));
    f.sync("acme");
    f.sync("acme");
    f.cluster.rollOut("acme");
    f.sync("acme");
    f.writes.take();
    f.cluster.putOwned(new ConfigMapBuilder(f.cluster.get(ConfigMap.class, NS, "app-web-config"))
        .addToData("app.yaml", "features: [admin]\n").build());
    editSecret(f, "smtp", "password", null);

    putBackInOneSync(f, "apply Secret tenant-acme/smtp", "apply ConfigMap tenant-acme/app-web-config");
    assertThat(f.cluster.get(ConfigMap.class, NS, "app-web-config").getData()).containsEntry("app.yaml", "features: [search]\n");
    assertThat(f.cluster.get(Secret.class, NS, "smtp").getData()).containsEntry("password", base64("smtp-1"));
  }

  @Test
  void aPausedDeploymentIsResumed() {
    SyncFixture f = new SyncFixture();
    f.provisioned("acme");
    f.cluster.putOwned(new DeploymentBuilder(f.cluster.get(Deployment.class, NS, "app-web")).editSpec().withPaused(true).endSpec()
        .build());

    putBackInOneSync(f, "apply Deployment tenant-acme/app-web");
    assertThat(f.cluster.get(Deployment.class, NS, "app-web").getSpec().getPaused()).isFalse();
  }

  @Test
  void aServiceTurnedIntoAnExternalNameIsAClusterIpServiceAgain() {
    SyncFixture f = new SyncFixture();
    f.provisioned("acme");
    for (String name : List.of("app-web", "db-main")) {
      f.cluster.putOwned(new ServiceBuilder(f.cluster.get(Service.class, NS, name)).editSpec().withType("ExternalName")
          .withExternalName("kubernetes.default.svc.cluster.local").withClusterIP(null).endSpec().build());
    }

    putBackInOneSync(f, "apply Service tenant-acme/db-main", "apply Service tenant-acme/app-web");
    assertThat(f.cluster.get(Service.class, NS, "app-web").getSpec().getExternalName()).isEmpty();
    assertThat(f.cluster.get(Service.class, NS, "app-web").getSpec().getType()).isEqualTo("ClusterIP");
    assertThat(f.cluster.get(Service.class, NS, "db-main").getSpec().getType()).isEqualTo("ClusterIP");
  }

  @Test
  void aClusterIpServiceGivenAnExternalNameLosesIt() {
    SyncFixture f = new SyncFixture();
    f.provisioned("acme");
    f.cluster.putOwned(new ServiceBuilder(f.cluster.get(Service.class, NS, "app-web")).editSpec()
        .withExternalName("metadata.internal").endSpec().build());

    putBackInOneSync(f, "apply Service tenant-acme/app-web");
    assertThat(f.cluster.get(Service.class, NS, "app-web").getSpec().getExternalName()).isEmpty();
  }

  @Test
  void aRefusedWriteIsReportedNamingTheObjectWhileTheGuardrailsAndTheRestAreWritten() {
    SyncFixture f = new SyncFixture();
    f.provisioned("acme");
    f.cluster.removeOwned(f.cluster.get(NetworkPolicy.class, NS, "tenant-isolation"));
    f.cluster.removeOwned(f.cluster.get(ResourceQuota.class, NS, "tenant-quota"));
    f.cluster.putOwned(new ConfigMapBuilder(f.cluster.get(ConfigMap.class, NS, "tenant-identity")).withData(null).build());
    editSecret(f, "db-main-credentials", "password", null);
    f.cluster.putOwned(new DeploymentBuilder(f.cluster.get(Deployment.class, NS, "app-web")).editSpec().withPaused(true).endSpec()
        .build());
    f.writes.refuse("ConfigMap tenant-acme/tenant-identity", "configmaps \"tenant-identity\" is forbidden: refused by policy");

    assertThat(f.sync("acme")).isEqualTo(SyncResult.withBackoff());
    assertThat(f.writes.take()).containsExactly(
        "create NetworkPolicy tenant-acme/tenant-isolation",
        "create ResourceQuota tenant-acme/tenant-quota",
        "apply Secret tenant-acme/db-main-credentials",
        "apply Deployment tenant-acme/app-web",
        "status acme Degraded",
        "event acme Warning Degraded");
    assertThat(ready(f).getReason()).isEqualTo("WriteFailed");
    assertThat(ready(f).getMessage()).isEqualTo("could not write ConfigMap tenant-acme/tenant-identity: "
        + "configmaps \"tenant-identity\" is forbidden: refused by policy");

    f.cluster.rollOut("acme");
    assertThat(f.sync("acme")).as("retried with backoff while refused").isEqualTo(SyncResult.withBackoff());
    assertThat(f.writes.take()).noneMatch(ManagedDriftTest::objectWrite);
    assertThat(ready(f).getReason()).isEqualTo("WriteFailed");

    f.writes.refuse("ConfigMap tenant-acme/tenant-identity", null);
    assertThat(f.sync("acme")).isEqualTo(SyncResult.done());
    assertThat(f.writes.take()).containsExactly("apply ConfigMap tenant-acme/tenant-identity", "status acme Ready",
        "event acme Normal Ready");
  }

  @Test
  void aNewTenantWithOneObjectRefusedGetsEverythingElse() {
    SyncFixture f = new SyncFixture();
    f.tenant("acme");
    f.sync("acme"); // finalizer
    f.writes.take();
    f.writes.refuse("RoleBinding tenant-acme/tenant-operator", "rolebindings.rbac.authorization.k8s.io is forbidden");

    assertThat(f.sync("acme")).isEqualTo(SyncResult.withBackoff());
    List<String> writes = f.writes.take();
    assertThat(writes).contains("create NetworkPolicy tenant-acme/tenant-isolation", "create LimitRange tenant-acme/tenant-limits",
        "create Secret tenant-acme/db-main-credentials", "create StatefulSet tenant-acme/db-main",
        "create Deployment tenant-acme/app-web", "status acme Degraded");
    assertThat(writes).noneMatch(w -> w.contains("tenant-operator"));
    assertThat(ready(f).getMessage())
        .isEqualTo("could not write RoleBinding tenant-acme/tenant-operator: rolebindings.rbac.authorization.k8s.io is forbidden");
  }

  @Test
  void thePoliciesEarlierVersionsWroteOnePerRuleAreDeletedOnceTheIsolationPolicyHoldsTheirRules() {
    SyncFixture f = new SyncFixture();
    f.provisioned("acme");
    NetworkPolicy isolation = f.cluster.get(NetworkPolicy.class, NS, "tenant-isolation");
    for (String old : List.of("default-deny", "allow-same-namespace", "allow-dns", "allow-egress")) {
      f.cluster.putOwned(new NetworkPolicyBuilder(isolation).editMetadata().withName(old).withUid(null).endMetadata().build());
    }

    assertThat(f.sync("acme")).isEqualTo(SyncResult.done());
    assertThat(f.writes.take()).containsExactly("delete NetworkPolicy tenant-acme/default-deny",
        "delete NetworkPolicy tenant-acme/allow-same-namespace", "delete NetworkPolicy tenant-acme/allow-dns",
        "delete NetworkPolicy tenant-acme/allow-egress");
    assertThat(f.cluster.get(NetworkPolicy.class, NS, "tenant-isolation")).isNotNull();
  }

  @Test
  void withTheStoreDownTheGuardrailsAreStillPutBack() {
    SyncFixture f = new SyncFixture();
    f.provisioned("acme");
    f.cluster.removeOwned(f.cluster.get(NetworkPolicy.class, NS, "tenant-isolation"));
    editSecret(f, "db-main-credentials", "password", null);
    f.store.setUnavailable(true);

    assertThat(f.sync("acme")).isEqualTo(SyncResult.withBackoff());
    assertThat(f.writes.take()).containsExactly("create NetworkPolicy tenant-acme/tenant-isolation", "status acme Ready");
    assertThat(Conditions.find(f.cluster.tenant("acme").getStatus().getConditions(), Conditions.SECRETS_SYNCED).orElseThrow()
        .getReason()).isEqualTo("StoreUnavailable");
  }
}
