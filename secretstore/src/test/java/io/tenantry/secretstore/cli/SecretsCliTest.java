package io.tenantry.secretstore.cli;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import io.tenantry.secretstore.LocalKeyset;
import io.tenantry.secretstore.LocalSecretStore;
import io.tenantry.secretstore.Scope;
import io.tenantry.secretstore.SecretFormat;
import io.tenantry.secretstore.SecretMetadata;
import io.tenantry.secretstore.StoredSecret;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** The CLI on a local store in a temporary directory, through {@link SecretsCli#run}. */
class SecretsCliTest {

  private static final String PASSWORD = "correct-horse-battery-staple-7731";
  private static final String USER = "tenant-admin-user";
  private static final String TOKEN = "tok-9f86d081884c7d659a2feaa0c55ad015";
  private static final String[] VALUES = {PASSWORD, USER, TOKEN};

  @TempDir
  Path tmp;
  private Path storeDir;
  private Path keyset;

  @BeforeEach
  void paths() {
    storeDir = tmp.resolve("store");
    keyset = tmp.resolve("keys/keyset.json");
  }

  /** The CLI with this test's store. */
  private CliRun cli(String... args) {
    List<String> all = new ArrayList<>(List.of("--store", "file:" + storeDir, "--keyset", keyset.toString()));
    all.addAll(List.of(args));
    return CliRun.of(all);
  }

  /** The same store, read directly. */
  private LocalSecretStore store() {
    return LocalSecretStore.open(storeDir, keyset);
  }

  @Test
  void pushListShowDeleteRoundTripWithoutPrintingValues() throws IOException {
    Path tokenFile = tmp.resolve("token");
    Files.writeString(tokenFile, TOKEN);
    CliRun init = cli("init").exits(0);
    assertThat(init.out()).isEqualTo("initialized an empty secret store in " + storeDir + " with a new keyset " + keyset
        + "\n");
    assertThat(init.err()).contains("Without the keyset " + keyset + " the store cannot be read");

    CliRun push = cli("push", "template", "db", "--from-literal", "password=" + PASSWORD,
        "--from-literal=username=" + USER, "--from-file", "token=" + tokenFile).exits(0).showsNone(VALUES);

    StoredSecret stored = store().get(Scope.template(), "db").orElseThrow();
    assertThat(stored.data()).containsOnlyKeys("password", "token", "username");
    assertThat(stored.data().get("password")).isEqualTo(PASSWORD.getBytes(UTF_8));
    assertThat(stored.data().get("username")).isEqualTo(USER.getBytes(UTF_8));
    assertThat(stored.data().get("token")).isEqualTo(TOKEN.getBytes(UTF_8));
    assertThat(push.out()).isEqualTo("pushed db to template, version " + stored.version() + "\n");
    assertThat(push.err()).isEmpty();
    assertThat(keyset).exists();

    CliRun list = cli("list", "template").exits(0).showsNone(VALUES);
    assertThat(list.err()).isEmpty();
    assertThat(list.out().lines().toList()).hasSize(2);
    assertThat(list.out().lines().findFirst().orElseThrow().split(" +"))
        .containsExactly("NAME", "VERSION", "CONTENT-HASH", "UPDATED");
    String[] row = list.out().lines().skip(1).findFirst().orElseThrow().split(" +");
    assertThat(row).hasSize(4);
    assertThat(row[0]).isEqualTo("db");
    assertThat(row[1]).isEqualTo(stored.version());
    assertThat(row[2]).hasSize(12).isEqualTo(stored.contentHash().substring(0, 12));
    assertThat(row[3]).isEqualTo(stored.updated().truncatedTo(java.time.temporal.ChronoUnit.SECONDS).toString());

    CliRun show = cli("show", "template", "db").exits(0).showsNone(VALUES);
    assertThat(show.err()).isEmpty();
    assertThat(show.out()).contains("Name:          db", "Scope:         template", "Path:          template/db",
        "Version:       " + stored.version(), "Content-Hash:  " + stored.contentHash());
    assertThat(show.out()).containsSubsequence("Data:",
        "password  " + PASSWORD.length() + " bytes",
        "token     " + TOKEN.length() + " bytes",
        "username  " + USER.length() + " bytes");

    CliRun delete = cli("delete", "template", "db").exits(0);
    assertThat(delete.out()).isEqualTo("deleted db from template\n");
    assertThat(store().get(Scope.template(), "db")).isEmpty();
    assertThat(cli("list", "template").exits(0).out().lines()).hasSize(1);
    assertThat(cli("show", "template", "db").exits(1).err()).contains("no secret db in template");
    assertThat(cli("delete", "template", "db").exits(1).err()).contains("no secret db in template");
  }

  @Test
  void aPushReplacesTheSecretAndTenantScopesAreSeparate() {
    cli("init").exits(0);
    cli("push", "tenant/acme", "db", "--from-literal", "password=" + PASSWORD).exits(0);
    cli("push", "tenant/acme", "db", "--from-literal", "password=" + PASSWORD + "-2").exits(0);
    cli("push", "tenant/globex", "db", "--from-literal", "password=" + PASSWORD).exits(0);

    assertThat(store().get(Scope.tenant("acme"), "db").orElseThrow().data().get("password"))
        .isEqualTo((PASSWORD + "-2").getBytes(UTF_8));
    List<SecretMetadata> acme = store().list(Scope.tenant("acme"));
    CliRun list = cli("list", "tenant/acme").exits(0).showsNone(PASSWORD);
    assertThat(list.out()).contains(acme.get(0).version(), acme.get(0).contentHash().substring(0, 12))
        .doesNotContain(acme.get(0).contentHash());
    assertThat(cli("list", "template").exits(0).out().lines()).hasSize(1);
    assertThat(cli("show", "tenant/globex", "db").exits(0).out()).contains("Scope:         tenant/globex",
        "Path:          tenants/globex/db", "password  " + PASSWORD.length() + " bytes");
    assertThat(SecretFormat.contentHash(Map.of("password", PASSWORD.getBytes(UTF_8))))
        .isEqualTo(store().list(Scope.tenant("globex")).get(0).contentHash());
  }

  @Test
  void helpPrintsTheUsageAndSucceeds() {
    for (String[] args : new String[][] {{"--help"}, {"-h"}, {"push", "--help"}, {"sync-templates", "-h"}}) {
      CliRun help = CliRun.of(List.of(args)).exits(0);
      assertThat(help.out()).startsWith("Usage: tenantry-secrets [STORE OPTIONS] COMMAND [ARGS]")
          .contains("init ", "Only init creates a", "--max-deletion-share S", "push <scope> <name>", "sync-templates [--kubeconfig FILE] [--namespace NS]",
              "--store gs://BUCKET", "--kms-key");
      assertThat(help.err()).isEmpty();
    }
  }

  static Stream<Arguments> badUsage() {
    return Stream.of(
        Arguments.of(List.of(), "missing command"),
        Arguments.of(List.of("frobnicate", "template"), "unknown command \"frobnicate\""),
        Arguments.of(List.of("--frobnicate", "list", "template"), "unknown option --frobnicate"),
        Arguments.of(List.of("list", "template", "--all"), "unknown option --all for list"),
        Arguments.of(List.of("list"), "list: missing <scope>"),
        Arguments.of(List.of("push", "template"), "push: missing <name>"),
        Arguments.of(List.of("show", "template"), "show: missing <name>"),
        Arguments.of(List.of("delete", "template"), "delete: missing <name>"),
        Arguments.of(List.of("list", "tenant/Bad_Name"), "scope \"tenant/Bad_Name\": tenant must be a DNS label"),
        Arguments.of(List.of("list", "tenants/acme"), "scope must be \"template\" or \"tenant/<name>\""),
        Arguments.of(List.of("show", "template", "Bad_Name"), "name must be a DNS-1123 subdomain"),
        Arguments.of(List.of("push", "template", "db"), "push: give the data with --from-literal"),
        Arguments.of(List.of("push", "template", "db", "--from-literal", "password"),
            "option --from-literal must be KEY=VALUE"),
        Arguments.of(List.of("push", "template", "db", "--from-literal", "=" + PASSWORD),
            "option --from-literal must be KEY=VALUE (the argument has no key before '='"),
        Arguments.of(List.of("push", "template", "db", "--from-literal", "pass word=" + PASSWORD),
            "data key \"pass word\" must consist of"),
        Arguments.of(List.of("push", "template", "db", "--from-literal", "k=1", "--from-literal", "k=2"),
            "data key \"k\" given twice"),
        Arguments.of(List.of("push", "template", "db", "--from-file", "k=/nonexistent/file"),
            "option --from-file k=/nonexistent/file: cannot read the file"),
        Arguments.of(List.of("push", "template", "db", "--from-literal"), "option --from-literal needs a value"),
        Arguments.of(List.of("show", "template", "db", "extra"), "show takes 2 arguments (<scope> <name>), got 3"),
        Arguments.of(List.of("sync-templates", "--namespace", "Templates"), "option --namespace must be a namespace name"),
        Arguments.of(List.of("sync-templates", "--kubeconfig", "/nonexistent/kubeconfig"),
            "option --kubeconfig /nonexistent/kubeconfig: cannot read the file"),
        Arguments.of(List.of("sync-templates", "extra"), "sync-templates takes no arguments"),
        Arguments.of(List.of("sync-templates", "--max-deletion-share", "1.5"),
            "option --max-deletion-share must be a number from 0 to 1: \"1.5\""),
        Arguments.of(List.of("sync-templates", "--max-deletion-share=half"),
            "option --max-deletion-share must be a number from 0 to 1: \"half\""),
        Arguments.of(List.of("init", "extra"), "init takes no arguments"),
        Arguments.of(List.of("init", "--force"), "unknown option --force for init"));
  }

  @ParameterizedTest
  @MethodSource
  void badUsage(List<String> args, String message) {
    CliRun run = cli(args.toArray(String[]::new)).exits(2).showsNone(PASSWORD);
    assertThat(run.out()).isEmpty();
    assertThat(run.err()).startsWith("tenantry-secrets: ").contains(message)
        .endsWith("Run 'tenantry-secrets --help' for usage.\n");
    assertThat(keyset).as("nothing is created on bad usage").doesNotExist();
    assertThat(storeDir).doesNotExist();
  }

  @Test
  void misplacedValuesAreNeverEchoed() {
    // A value typed without --from-literal, or with a misspelt option: refused without repeating it.
    assertThat(cli("push", "template", "db", PASSWORD, "--from-literal", "k=v").exits(2).showsNone(PASSWORD).err())
        .contains("push takes 2 arguments (<scope> <name>), got 3");
    assertThat(cli("push", "template", "db", "--from-litteral=password=" + PASSWORD).exits(2).showsNone(PASSWORD)
        .err()).contains("unknown option --from-litteral for push");
    assertThat(cli("push", "template", "db", "--from-literal", PASSWORD).exits(2).showsNone(PASSWORD).err())
        .contains("it is not shown, as it may hold a secret");
  }

  @Test
  void storeOptionsAreChecked() {
    assertThat(CliRun.of(List.of("--store", "s3://bucket", "list", "template")).exits(2).err())
        .contains("option --store must be file:<dir> or gs://<bucket>: \"s3://bucket\"");
    assertThat(CliRun.of(List.of("--store", "gs://bucket", "list", "template")).exits(2).err())
        .contains("option --kms-key is required with --store gs://<bucket>");
    assertThat(CliRun.of(List.of("--store", "gs://bucket/folder", "--kms-key", "k", "list", "template")).exits(2)
        .err()).contains("gs://<bucket> names a bucket, without a folder");
    assertThat(CliRun.of(List.of("--store", "gs://bucket", "--keyset", "k.json", "--kms-key", "k", "list",
        "template")).exits(2).err()).contains("option --keyset applies to a file: store only");
    assertThat(cli("--kms-key", "projects/p/locations/l/keyRings/r/cryptoKeys/k", "list", "template").exits(2)
        .err()).contains("option --kms-key applies to a gs:// store only");
    assertThat(CliRun.of(List.of("--store", "gs://bucket", "--kms-key", "k", "--kms-endpoint", "localhost",
        "list", "template")).exits(2).err()).contains("option --kms-endpoint must be host:port");
    assertThat(CliRun.of(List.of("--store", "gs://bucket", "--kms-key", "k", "--gcs-endpoint", "localhost:4443",
        "list", "template")).exits(2).err()).contains("option --gcs-endpoint must be an http:// or https:// URL");
    assertThat(cli("--store", "file:/elsewhere", "list", "template").exits(2).err())
        .contains("option --store given twice");
    assertThat(CliRun.of(List.of("--store")).exits(2).err()).contains("option --store needs a value");
  }

  @Test
  void noCommandButInitCreatesAStoreOrAKeyset() throws IOException {
    Path kubeconfig = tmp.resolve("kubeconfig.yaml");
    Files.writeString(kubeconfig, """
        apiVersion: v1
        kind: Config
        clusters: [{name: nowhere, cluster: {server: "https://127.0.0.1:1"}}]
        users: [{name: nobody, user: {token: not-a-token}}]
        contexts: [{name: nowhere, context: {cluster: nowhere, user: nobody}}]
        current-context: nowhere
        """);
    for (String[] args : new String[][] {{"list", "template"}, {"show", "template", "db"}, {"delete", "template", "db"},
        {"push", "template", "db", "--from-literal", "password=" + PASSWORD},
        {"sync-templates", "--kubeconfig", kubeconfig.toString()}}) {
      CliRun run = cli(args).exits(1).showsNone(VALUES);
      assertThat(run.err()).as(args[0]).startsWith("tenantry-secrets: local secret store " + storeDir
          + " does not exist: a missing store is not read as an empty one")
          .contains("'tenantry-secrets init'");
      assertThat(storeDir).as(args[0]).doesNotExist();
      assertThat(keyset).as(args[0]).doesNotExist();
    }
  }

  @Test
  void initIsExplicitAndLeavesAnExistingStoreAsItIs() throws IOException {
    cli("init").exits(0);
    cli("push", "template", "db", "--from-literal", "password=" + PASSWORD).exits(0);
    byte[] keysetBytes = Files.readAllBytes(keyset);

    CliRun again = cli("init").exits(0);

    assertThat(again.out()).isEqualTo("secret store " + storeDir + " already exists, with keyset " + keyset
        + "; nothing changed\n");
    assertThat(again.err()).isEmpty();
    assertThat(Files.readAllBytes(keyset)).isEqualTo(keysetBytes);
    assertThat(store().list(Scope.template())).extracting(SecretMetadata::name).containsExactly("db");
  }

  @Test
  void initOverAnEmptyDirectoryUsesAKeysetThatExists() throws IOException {
    Files.createDirectories(storeDir);
    LocalKeyset.loadOrCreate(keyset);
    byte[] keysetBytes = Files.readAllBytes(keyset);
    assertThat(cli("list", "template").exits(1).err()).contains("local secret store " + storeDir
        + " is not a secret store: it holds neither the marker");

    CliRun init = cli("init").exits(0);

    assertThat(init.out()).isEqualTo("initialized an empty secret store in " + storeDir + " with the existing keyset "
        + keyset + "\n");
    assertThat(Files.readAllBytes(keyset)).isEqualTo(keysetBytes);
    assertThat(cli("list", "template").exits(0).out().lines()).hasSize(1);
  }

  @Test
  void initMakesNoLocalStoreForAGoogleStore() {
    CliRun run = CliRun.of(List.of("--store", "gs://bucket", "--kms-key", "projects/p/locations/l/keyRings/r/cryptoKeys/k",
        "init")).exits(2);
    assertThat(run.err()).contains("init makes a file: store; a gs:// store is a Cloud Storage bucket and a Cloud KMS key");
  }

  @Test
  void noCommandCreatesAKeysetForAStoreThatHoldsSecrets() throws IOException {
    cli("init").exits(0);
    cli("push", "template", "db", "--from-literal", "password=" + PASSWORD).exits(0);
    Files.delete(keyset);

    for (String[] args : new String[][] {{"push", "template", "api", "--from-literal", "token=" + TOKEN},
        {"list", "template"}, {"init"}}) {
      CliRun run = cli(args).exits(1).showsNone(VALUES);
      assertThat(run.err()).as(args[0]).contains("keyset file " + keyset + " of secret store " + storeDir
          + " does not exist: give the keyset the store was created with");
      assertThat(keyset).as(args[0]).doesNotExist();
    }
    assertThat(storeDir.resolve("template/api")).doesNotExist();
  }

  @Test
  void aStoreFailureExitsWithOneAndSaysWhy() {
    cli("init").exits(0);
    cli("push", "template", "db", "--from-literal", "password=" + PASSWORD).exits(0);
    Path otherKeyset = tmp.resolve("other-keyset.json");
    CliRun.of(List.of("--store", "file:" + tmp.resolve("other"), "--keyset", otherKeyset.toString(), "init")).exits(0);
    CliRun.of(List.of("--store", "file:" + tmp.resolve("other"), "--keyset", otherKeyset.toString(), "push",
        "template", "x", "--from-literal", "k=v")).exits(0);

    // The right store read with another key: the ciphertext does not decrypt.
    CliRun run = CliRun.of(List.of("--store", "file:" + storeDir, "--keyset", otherKeyset.toString(), "list",
        "template")).exits(1).showsNone(VALUES);

    assertThat(run.out()).isEmpty();
    assertThat(run.err()).startsWith("tenantry-secrets: cannot decrypt template/db: wrong key")
        .contains("caused by: ");
  }

  @Test
  void syncTemplatesDefaultsToTheTemplateNamespace() {
    // Parsed only: a run would touch whatever cluster ~/.kube/config names.
    assertThat(SyncTemplatesCommand.parse(new ArgCursor(new String[0])).namespace()).isEqualTo("tenantry-templates");
    assertThat(SyncTemplatesCommand.parse(new ArgCursor(new String[] {"--namespace=ops-templates"})).namespace())
        .isEqualTo("ops-templates");
    assertThat(SyncTemplatesCommand.parse(new ArgCursor(new String[0])).maxDeletionShare()).isEqualTo(0.5);
    assertThat(SyncTemplatesCommand.parse(new ArgCursor(new String[] {"--max-deletion-share", "0.2"}))
        .maxDeletionShare()).isEqualTo(0.2);
  }

  @Test
  void theDefaultKeysetIsInTheStoreDirectory() {
    CliRun.of(List.of("--store", "file:" + storeDir, "init")).exits(0);
    CliRun.of(List.of("--store", "file:" + storeDir, "push", "template", "db", "--from-literal", "k=v")).exits(0);

    assertThat(storeDir.resolve("keyset.json")).exists();
    assertThat(LocalSecretStore.open(storeDir, storeDir.resolve("keyset.json")).list(Scope.template()))
        .extracting(SecretMetadata::name).containsExactly("db");
  }
}
