package io.tenantry.secretstore.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.tenantry.api.WellKnown;
import io.tenantry.secretstore.LocalSecretStore;
import io.tenantry.secretstore.Scope;
import io.tenantry.secretstore.StoredSecret;
import io.tenantry.testsupport.TestCluster;
import io.tenantry.testsupport.WithCluster;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code tenantry-secrets sync-templates} against a real API server, through a kubeconfig file. */
@WithCluster
class SecretsCliSyncIT {

  private static final AtomicInteger SEQUENCE = new AtomicInteger();
  private static final String[] VALUES = {"s3cr3t-db-password", "s3cr3t-smtp-password", "s3cr3t-api-token",
      "s3cr3t-db-password-rotated"};

  @TempDir
  Path tmp;
  private Path kubeconfig;
  private String namespace;

  @BeforeEach
  void kubeconfigAndNamespace(TestCluster cluster) throws IOException {
    kubeconfig = tmp.resolve("kubeconfig.yaml");
    Files.writeString(kubeconfig, cluster.kubeconfigYaml());
    namespace = "cli-templates-" + ProcessHandle.current().pid() + "-" + SEQUENCE.incrementAndGet();
  }

  private CliRun cli(String... args) {
    List<String> all = new ArrayList<>(List.of("--store", "file:" + tmp.resolve("store"), "--keyset",
        tmp.resolve("keyset.json").toString()));
    all.addAll(List.of(args));
    return CliRun.of(all);
  }

  private CliRun syncTemplates() {
    return cli("sync-templates", "--kubeconfig", kubeconfig.toString(), "--namespace", namespace)
        .exits(0).showsNone(VALUES);
  }

  @Test
  void syncTemplatesCreatesThenLeavesAloneThenFollowsTheStore(KubernetesClient client) {
    cli("init").exits(0);
    cli("push", "template", "db", "--from-literal", "password=" + VALUES[0]).exits(0);
    cli("push", "template", "smtp", "--from-literal", "password=" + VALUES[1]).exits(0);
    cli("push", "template", "api", "--from-literal", "token=" + VALUES[2]).exits(0);
    cli("push", "tenant/acme", "db", "--from-literal", "password=not-a-template").exits(0);

    assertThat(syncTemplates().out()).endsWith(" into namespace " + namespace
        + ": 3 created, 0 updated, 0 deleted, 0 unchanged\n");
    assertSecretsMatchStore(client, "api", "db", "smtp");

    assertThat(syncTemplates().out()).endsWith(": 0 created, 0 updated, 0 deleted, 3 unchanged\n");

    cli("push", "template", "db", "--from-literal", "password=" + VALUES[3]).exits(0);
    cli("delete", "template", "smtp").exits(0);
    assertThat(syncTemplates().out()).endsWith(": 0 created, 1 updated, 1 deleted, 1 unchanged\n");
    assertSecretsMatchStore(client, "api", "db");
  }

  @Test
  void anUnreachableClusterExitsWithOne() throws IOException {
    // A port nothing listens on, and no retries: the failure must be reported, not hang.
    Path broken = tmp.resolve("broken.yaml");
    Files.writeString(broken, """
        apiVersion: v1
        kind: Config
        clusters:
        - name: nowhere
          cluster: {server: "https://127.0.0.1:1"}
        users:
        - name: nobody
          user: {token: not-a-token}
        contexts:
        - name: nowhere
          context: {cluster: nowhere, user: nobody}
        current-context: nowhere
        """);
    cli("init").exits(0);
    cli("push", "template", "db", "--from-literal", "password=" + VALUES[0]).exits(0);

    CliRun run = cli("sync-templates", "--kubeconfig", broken.toString(), "--namespace", namespace)
        .exits(1).showsNone(VALUES);

    assertThat(run.out()).isEmpty();
    assertThat(run.err()).startsWith("tenantry-secrets: ").contains("127.0.0.1:1");
  }

  @Test
  void syncTemplatesRefusesAMassDeletionUnlessTheShareAllowsIt(KubernetesClient client) {
    cli("init").exits(0);
    cli("push", "template", "db", "--from-literal", "password=" + VALUES[0]).exits(0);
    cli("push", "template", "smtp", "--from-literal", "password=" + VALUES[1]).exits(0);
    cli("push", "template", "api", "--from-literal", "token=" + VALUES[2]).exits(0);
    syncTemplates();
    cli("delete", "template", "db").exits(0);
    cli("delete", "template", "smtp").exits(0);

    CliRun refused = cli("sync-templates", "--kubeconfig", kubeconfig.toString(), "--namespace", namespace)
        .exits(1).showsNone(VALUES);
    assertThat(refused.out()).isEmpty();
    assertThat(refused.err()).startsWith("tenantry-secrets: refusing to delete 2 of the 3 template Secrets of namespace "
        + namespace + " (db, smtp): more than the allowed share of 0.5 at once");
    assertThat(client.secrets().inNamespace(namespace).list().getItems()).hasSize(3);

    CliRun allowed = cli("sync-templates", "--kubeconfig", kubeconfig.toString(), "--namespace", namespace,
        "--max-deletion-share", "1").exits(0).showsNone(VALUES);
    assertThat(allowed.out()).endsWith(": 0 created, 0 updated, 2 deleted, 1 unchanged\n");
    assertSecretsMatchStore(client, "api");

    cli("delete", "template", "api").exits(0);
    CliRun emptied = cli("sync-templates", "--kubeconfig", kubeconfig.toString(), "--namespace", namespace,
        "--max-deletion-share", "1").exits(1).showsNone(VALUES);
    assertThat(emptied.err()).contains("refusing to delete the only template Secret of namespace " + namespace
        + ": the secret store ", " lists no template secret. Nothing was changed.");
    assertThat(client.secrets().inNamespace(namespace).withName("api").get()).isNotNull();
  }

  private void assertSecretsMatchStore(KubernetesClient client, String... names) {
    LocalSecretStore store = LocalSecretStore.open(tmp.resolve("store"), tmp.resolve("keyset.json"));
    List<Secret> secrets = client.secrets().inNamespace(namespace).list().getItems();
    assertThat(secrets).extracting(secret -> secret.getMetadata().getName()).containsExactlyInAnyOrder(names);
    for (Secret secret : secrets) {
      StoredSecret stored = store.get(Scope.template(), secret.getMetadata().getName()).orElseThrow();
      assertThat(secret.getMetadata().getLabels()).containsEntry(WellKnown.MANAGED_BY, WellKnown.MANAGER)
          .containsEntry(WellKnown.TEMPLATE, "true");
      assertThat(secret.getMetadata().getAnnotations()).containsEntry(WellKnown.CONTENT_HASH, stored.contentHash())
          .containsEntry(WellKnown.SECRET_VERSION, stored.version());
      stored.data().forEach((key, value) -> assertThat(secret.getData().get(key))
          .isEqualTo(Base64.getEncoder().encodeToString(value)));
      assertThat(secret.getData()).hasSameSizeAs(stored.data());
    }
  }
}
