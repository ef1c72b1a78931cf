package io.tenantry.secretstore;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import com.google.cloud.storage.BucketInfo;
import com.google.cloud.storage.Storage;
import io.tenantry.secretstore.cli.SecretsCli;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The CLI's {@code gs://} store: fake-gcs-server through {@code --gcs-endpoint} and the KMS fake on
 * a local port through {@code --kms-endpoint}, read back with a {@link GcsSecretStore} of its own.
 * In this package to share the two fakes.
 */
class SecretsCliGcsIT {

  private static final String BUCKET = "tenantry-cli";
  private static final String KEY = "projects/test/locations/global/keyRings/tenantry/cryptoKeys/cli";

  private static FakeGcsServer gcs;
  private static FakeKms kms;
  private static Storage storage;

  private record Run(int status, String out, String err) {
  }

  @BeforeAll
  static void start() throws Exception {
    gcs = FakeGcsServer.start();
    storage = gcs.storage();
    storage.create(BucketInfo.of(BUCKET));
    kms = FakeKms.startOnLocalPort();
    kms.addKey(KEY);
  }

  @AfterAll
  static void stop() throws Exception {
    try {
      if (kms != null) {
        kms.close();
      }
      if (storage != null) {
        storage.close();
      }
    } finally {
      if (gcs != null) {
        gcs.close();
      }
    }
  }

  private static Run cli(String... args) {
    return cliWithKey(KEY, args);
  }

  /** The CLI on the fakes with the KMS key {@code kmsKey}; fails if its output holds a value. */
  private static Run cliWithKey(String kmsKey, String... args) {
    List<String> all = new ArrayList<>(List.of("--store", "gs://" + BUCKET, "--kms-key", kmsKey,
        "--gcs-endpoint", gcs.url(), "--kms-endpoint", kms.endpoint()));
    all.addAll(List.of(args));
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int status = SecretsCli.run(all.toArray(String[]::new), new PrintStream(out, true, UTF_8),
        new PrintStream(err, true, UTF_8));
    Run run = new Run(status, out.toString(UTF_8), err.toString(UTF_8));
    // The values, in clear and in base64; the data keys may be shown.
    for (String value : List.of(TestData.PASSWORD, TestData.USER, TestData.base64(TestData.PASSWORD),
        TestData.base64(TestData.USER))) {
      assertThat(run.out() + run.err()).as("output of %s", args[0]).doesNotContain(value);
    }
    return run;
  }

  @Test
  void pushListShowDeleteThroughCloudStorageAndKms() {
    int encrypts = kms.encryptCalls();
    Run push = cli("push", "tenant/acme", "db", "--from-literal", "username=" + TestData.USER,
        "--from-literal", "password=" + TestData.PASSWORD);
    assertThat(push.status()).as(push.err()).isZero();
    assertThat(kms.encryptCalls() - encrypts).as("one data key wrapped by the KMS fake").isEqualTo(1);

    GcsSecretStore store = new GcsSecretStore(storage, BUCKET, kms.client(), KEY);
    StoredSecret stored = store.get(Scope.tenant("acme"), "db").orElseThrow();
    assertThat(stored.data().get("password")).isEqualTo(TestData.PASSWORD.getBytes(UTF_8));
    assertThat(stored.data().get("username")).isEqualTo(TestData.USER.getBytes(UTF_8));
    assertThat(push.out()).isEqualTo("pushed db to tenant/acme, version " + stored.version() + "\n");

    Run list = cli("list", "tenant/acme");
    assertThat(list.status()).as(list.err()).isZero();
    assertThat(list.out()).contains("db", stored.version(), stored.contentHash().substring(0, 12));

    Run show = cli("show", "tenant/acme", "db");
    assertThat(show.status()).as(show.err()).isZero();
    assertThat(show.out()).contains("Path:          tenants/acme/db",
        "password  " + TestData.PASSWORD.length() + " bytes", "username  " + TestData.USER.length() + " bytes");

    Run delete = cli("delete", "tenant/acme", "db");
    assertThat(delete.status()).as(delete.err()).isZero();
    assertThat(store.get(Scope.tenant("acme"), "db")).isEmpty();
  }

  @Test
  void anUnknownKmsKeyExitsWithOneAndSaysWhy() {
    String missing = KEY + "-missing";

    Run run = cliWithKey(missing, "push", "template", "db", "--from-literal", "password=" + TestData.PASSWORD);

    assertThat(run.status()).isEqualTo(1);
    assertThat(run.out()).isEmpty();
    assertThat(run.err()).startsWith("tenantry-secrets: Cloud KMS key " + missing + " cannot be used to encrypt");
  }

  @Test
  void aMalformedKmsKeyIsBadUsage() {
    Run run = cliWithKey("cryptoKeys/cli", "list", "template");

    assertThat(run.status()).isEqualTo(2);
    assertThat(run.err()).startsWith("tenantry-secrets: option --kms-key: kmsKeyName must be projects/");
  }
}
