package io.tenantry.secretstore.sync;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.tenantry.api.WellKnown;
import io.tenantry.secretstore.LocalSecretStore;
import io.tenantry.secretstore.Scope;
import io.tenantry.secretstore.SecretMetadata;
import io.tenantry.secretstore.StoreUnavailableException;
import io.tenantry.secretstore.StoredSecret;
import io.tenantry.testsupport.TestCluster;
import io.tenantry.testsupport.WithCluster;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * TemplateSync against a real API server: what it writes, and that it writes nothing more. Each
 * test has its own store and its own template namespace.
 */
@WithCluster
class TemplateSyncIT {

  private static final AtomicInteger SEQUENCE = new AtomicInteger();
  private static final WriteCounter counter = new WriteCounter();
  private static KubernetesClient client;

  @TempDir
  Path tmp;
  private LocalSecretStore store;
  private String namespace;
  private TemplateSync sync;

  @BeforeAll
  static void countingClient(TestCluster cluster) {
    client = new KubernetesClientBuilder().withConfig(cluster.config())
        .withHttpClientBuilderConsumer(builder -> builder.addOrReplaceInterceptor("count", counter))
        .build();
  }

  @AfterAll
  static void closeClient() {
    if (client != null) {
      client.close();
    }
  }

  @BeforeEach
  void storeAndNamespace() {
    store = LocalSecretStore.init(tmp.resolve("store"), tmp.resolve("keyset.json"));
    namespace = "templates-" + ProcessHandle.current().pid() + "-" + SEQUENCE.incrementAndGet();
    sync = new TemplateSync(store, client, namespace);
    store.put(Scope.template(), "db", data("username", "app", "password", "s3cr3t-db"));
    store.put(Scope.template(), "smtp", data("password", "s3cr3t-smtp"));
    store.put(Scope.template(), "tls.example.com", data("tls.crt", "-----CERT-----", "tls.key", "-----KEY-----"));
    // Another tenant's secret: never part of the template namespace.
    store.put(Scope.tenant("acme"), "db", data("password", "acme-only"));
  }

  @Test
  void theFirstSyncCreatesEveryTemplateSecret() {
    TemplateSync.Result result = sync.sync(sync.listCurrent());

    assertThat(result).isEqualTo(new TemplateSync.Result(3, 0, 0, 0));
    assertThat(client.namespaces().withName(namespace).get().getMetadata().getLabels())
        .containsEntry(WellKnown.MANAGED_BY, WellKnown.MANAGER);
    assertMatchesStore();
  }

  @Test
  void aSecondSyncWithNothingChangedWritesNothing() {
    sync.sync(sync.listCurrent());
    counter.reset();

    TemplateSync.Result result = sync.sync(sync.listCurrent());

    assertThat(result).isEqualTo(new TemplateSync.Result(0, 0, 0, 3));
    assertThat(counter.writes()).isEmpty();
    assertMatchesStore();
  }

  @Test
  void changingOneSecretInTheStoreUpdatesExactlyThatSecret() {
    sync.sync(sync.listCurrent());
    store.put(Scope.template(), "smtp", data("password", "s3cr3t-smtp-rotated"));
    counter.reset();

    TemplateSync.Result result = sync.sync(sync.listCurrent());

    assertThat(result).isEqualTo(new TemplateSync.Result(0, 1, 0, 2));
    assertThat(counter.writes()).containsExactly("PUT /api/v1/namespaces/" + namespace + "/secrets/smtp");
    assertMatchesStore();
  }

  @Test
  void deletingOneSecretInTheStoreDeletesExactlyItsSecret() {
    sync.sync(sync.listCurrent());
    store.delete(Scope.template(), "db");
    counter.reset();

    TemplateSync.Result result = sync.sync(sync.listCurrent());

    assertThat(result).isEqualTo(new TemplateSync.Result(0, 0, 1, 2));
    assertThat(counter.writes()).containsExactly("DELETE /api/v1/namespaces/" + namespace + "/secrets/db");
    assertThat(client.secrets().inNamespace(namespace).withName("db").get()).isNull();
    assertMatchesStore();
  }

  @Test
  void aSecretEditedByHandIsRestored() {
    sync.sync(sync.listCurrent());
    client.secrets().inNamespace(namespace).withName("db").edit(secret -> {
      secret.getData().put("password", base64("typed-by-hand"));
      secret.getData().remove("username");
      secret.getData().put("debug", base64("added-by-hand"));
      secret.getMetadata().getAnnotations().put(WellKnown.CONTENT_HASH, "0".repeat(64));
      secret.getMetadata().getAnnotations().put(WellKnown.SECRET_VERSION, "edited");
      secret.getMetadata().getLabels().put("edited-by", "hand");
      return secret;
    });
    counter.reset();

    TemplateSync.Result result = sync.sync(sync.listCurrent());

    assertThat(result).isEqualTo(new TemplateSync.Result(0, 1, 0, 2));
    assertThat(counter.writes()).containsExactly("PUT /api/v1/namespaces/" + namespace + "/secrets/db");
    assertMatchesStore();
    assertThat(client.secrets().inNamespace(namespace).withName("db").get().getMetadata().getLabels())
        .doesNotContainKey("edited-by");
  }

  @Test
  void aSecretWhoseDataAloneWasEditedByHandIsRestored() {
    sync.sync(sync.listCurrent());
    // The annotations still claim the store's content: only the data says otherwise.
    client.secrets().inNamespace(namespace).withName("smtp").edit(secret -> {
      secret.getData().put("password", base64("typed-by-hand"));
      secret.getData().put("extra", base64("added-by-hand"));
      return secret;
    });
    counter.reset();

    TemplateSync.Result result = sync.sync(sync.listCurrent());

    assertThat(result).isEqualTo(new TemplateSync.Result(0, 1, 0, 2));
    assertThat(counter.writes()).containsExactly("PUT /api/v1/namespaces/" + namespace + "/secrets/smtp");
    assertMatchesStore();
  }

  @Test
  void aSecretDeletedByHandIsCreatedAgain() {
    sync.sync(sync.listCurrent());
    client.secrets().inNamespace(namespace).withName("smtp").delete();
    counter.reset();

    TemplateSync.Result result = sync.sync(sync.listCurrent());

    assertThat(result).isEqualTo(new TemplateSync.Result(1, 0, 0, 2));
    assertThat(counter.writes()).containsExactly("PATCH /api/v1/namespaces/" + namespace + "/secrets/smtp");
    assertMatchesStore();
  }

  @Test
  void anEmptiedStoreDeletesNoTemplateSecretAndSaysWhy() {
    sync.sync(sync.listCurrent());
    List<Secret> before = client.secrets().inNamespace(namespace).withLabel(WellKnown.TEMPLATE, "true").list().getItems();
    for (String name : List.of("db", "smtp", "tls.example.com")) {
      store.delete(Scope.template(), name);
    }
    counter.reset();

    assertThatThrownBy(() -> sync.sync(sync.listCurrent()))
        .isInstanceOf(TemplateDeletionRefusedException.class)
        .hasMessageStartingWith("refusing to delete all 3 template Secrets of namespace " + namespace + ": the secret store "
            + store.location() + " lists no template secret. Nothing was changed.");

    assertThat(counter.writes()).isEmpty();
    assertThat(client.secrets().inNamespace(namespace).withLabel(WellKnown.TEMPLATE, "true").list().getItems())
        .extracting(secret -> secret.getMetadata().getName() + "@" + secret.getMetadata().getResourceVersion())
        .containsExactlyInAnyOrderElementsOf(before.stream()
            .map(secret -> secret.getMetadata().getName() + "@" + secret.getMetadata().getResourceVersion()).toList());
  }

  @Test
  void aMissingStoreDirectoryDeletesNoTemplateSecret() throws Exception {
    sync.sync(sync.listCurrent());
    Path root = tmp.resolve("store");
    Files.move(root, tmp.resolve("unmounted"));
    counter.reset();

    assertThatThrownBy(() -> sync.sync(sync.listCurrent()))
        .isInstanceOf(StoreUnavailableException.class)
        .hasMessageStartingWith("local secret store " + root + " does not exist");

    assertThat(counter.writes()).isEmpty();
    assertThat(client.secrets().inNamespace(namespace).withLabel(WellKnown.TEMPLATE, "true").list().getItems())
        .extracting(secret -> secret.getMetadata().getName()).containsExactlyInAnyOrder("db", "smtp", "tls.example.com");
  }

  @Test
  void deletingMoreThanTheShareIsRefusedUntilTheShareAllowsIt() {
    store.put(Scope.template(), "api", data("token", "s3cr3t-api"));
    store.put(Scope.template(), "registry", data("auth", "s3cr3t-registry"));
    sync.sync(sync.listCurrent());
    for (String name : List.of("api", "db", "smtp")) {
      store.delete(Scope.template(), name);
    }
    counter.reset();

    assertThatThrownBy(() -> sync.sync(sync.listCurrent()))
        .isInstanceOf(TemplateDeletionRefusedException.class)
        .hasMessageStartingWith("refusing to delete 3 of the 5 template Secrets of namespace " + namespace
            + " (api, db, smtp): more than the allowed share of 0.5 at once");
    assertThat(counter.writes()).isEmpty();
    assertThat(client.secrets().inNamespace(namespace).withLabel(WellKnown.TEMPLATE, "true").list().getItems())
        .hasSize(5);

    TemplateSync.Result allowed = new TemplateSync(store, client, namespace, 0.75).sync(sync.listCurrent());

    assertThat(allowed).isEqualTo(new TemplateSync.Result(0, 0, 3, 2));
    assertMatchesStore();
  }

  @Test
  void deletingOneOfFiveIsAllowed() {
    store.put(Scope.template(), "api", data("token", "s3cr3t-api"));
    store.put(Scope.template(), "registry", data("auth", "s3cr3t-registry"));
    sync.sync(sync.listCurrent());
    store.delete(Scope.template(), "api");
    counter.reset();

    TemplateSync.Result result = sync.sync(sync.listCurrent());

    assertThat(result).isEqualTo(new TemplateSync.Result(0, 0, 1, 4));
    assertThat(counter.writes()).containsExactly("DELETE /api/v1/namespaces/" + namespace + "/secrets/api");
    assertMatchesStore();
  }

  /** The namespace's template Secrets are exactly the store's template secrets, labelled and annotated. */
  private void assertMatchesStore() {
    List<SecretMetadata> expected = store.list(Scope.template());
    List<Secret> secrets = client.secrets().inNamespace(namespace).withLabel(WellKnown.TEMPLATE, "true").list()
        .getItems();
    assertThat(secrets).extracting(secret -> secret.getMetadata().getName())
        .containsExactlyInAnyOrderElementsOf(expected.stream().map(SecretMetadata::name).toList());
    for (SecretMetadata meta : expected) {
      Secret secret = client.secrets().inNamespace(namespace).withName(meta.name()).get();
      StoredSecret stored = store.get(Scope.template(), meta.name()).orElseThrow();
      assertThat(secret.getMetadata().getLabels()).as(meta.name())
          .containsEntry(WellKnown.MANAGED_BY, WellKnown.MANAGER)
          .containsEntry(WellKnown.TEMPLATE, "true");
      assertThat(secret.getMetadata().getAnnotations()).as(meta.name())
          .containsEntry(WellKnown.CONTENT_HASH, stored.contentHash())
          .containsEntry(WellKnown.SECRET_VERSION, stored.version());
      assertThat(decode(secret.getData())).as(meta.name()).isEqualTo(text(stored.data()));
    }
  }

  private static Map<String, byte[]> data(String... keysAndValues) {
    Map<String, byte[]> data = new TreeMap<>();
    for (int i = 0; i < keysAndValues.length; i += 2) {
      data.put(keysAndValues[i], keysAndValues[i + 1].getBytes(UTF_8));
    }
    return data;
  }

  private static String base64(String value) {
    return Base64.getEncoder().encodeToString(value.getBytes(UTF_8));
  }

  // Compared as text, so that a failure shows which value differs.
  private static Map<String, String> decode(Map<String, String> base64) {
    Map<String, String> decoded = new TreeMap<>();
    base64.forEach((key, value) -> decoded.put(key, new String(Base64.getDecoder().decode(value), UTF_8)));
    return decoded;
  }

  private static Map<String, String> text(Map<String, byte[]> data) {
    Map<String, String> text = new TreeMap<>();
    data.forEach((key, value) -> text.put(key, new String(value, UTF_8)));
    return text;
  }
}
