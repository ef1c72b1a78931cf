package io.tenantry.secretstore;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.cloud.storage.BlobId;
import com.google.cloud.storage.BlobInfo;
import com.google.cloud.storage.BucketInfo;
import com.google.cloud.storage.Storage;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The GCS store against a real fake-gcs-server process and an in-process gRPC Cloud KMS fake. */
class GcsSecretStoreIT {

  private static final String BUCKET = "tenantry-secrets";
  private static final String KEY = "projects/test/locations/global/keyRings/tenantry/cryptoKeys/secrets";
  private static final String OTHER_KEY = "projects/test/locations/global/keyRings/tenantry/cryptoKeys/other";
  private static final String MISSING_KEY = "projects/test/locations/global/keyRings/tenantry/cryptoKeys/missing";
  private static final AtomicInteger tenants = new AtomicInteger();

  private static FakeGcsServer gcs;
  private static FakeKms kms;
  private static Storage storage;
  private static GcsSecretStore store;

  /** A tenant of its own for each test, so that tests share the bucket without seeing each other. */
  private Scope tenant;

  // JUnit runs @AfterAll also when @BeforeAll fails; stop() closes whatever was started.
  @BeforeAll
  static void start() throws Exception {
    gcs = FakeGcsServer.start();
    storage = gcs.storage();
    storage.create(BucketInfo.of(BUCKET));
    kms = FakeKms.start();
    kms.addKey(KEY);
    kms.addKey(OTHER_KEY);
    store = new GcsSecretStore(storage, BUCKET, kms.client(), KEY);
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

  @BeforeEach
  void newTenant() {
    kms.setUnavailable(false);
    tenant = Scope.tenant("t" + tenants.incrementAndGet());
  }

  @Test
  void roundTripsThroughCloudStorageAndKms() {
    int encrypts = kms.encryptCalls();
    int decrypts = kms.decryptCalls();
    String version = store.put(tenant, "db", TestData.credentials());

    StoredSecret secret = store.get(tenant, "db").orElseThrow();

    assertThat(secret.data().get("password")).isEqualTo(TestData.PASSWORD.getBytes(UTF_8));
    assertThat(secret.data().get("username")).isEqualTo(TestData.USER.getBytes(UTF_8));
    assertThat(secret.version()).isEqualTo(version);
    assertThat(secret.contentHash()).isEqualTo(SecretFormat.contentHash(TestData.credentials()));
    assertThat(secret.updated()).isAfter(Instant.EPOCH);
    assertThat(kms.encryptCalls() - encrypts).as("one data key wrapped by KMS").isEqualTo(1);
    assertThat(kms.decryptCalls() - decrypts).as("one data key unwrapped by KMS").isEqualTo(1);
    assertThat(store.get(tenant, "absent")).isEmpty();
    assertThat(store.location()).isEqualTo("gs://" + BUCKET);
  }

  @Test
  void objectBytesHoldNoPlaintext() {
    store.put(tenant, "db", TestData.credentials());

    byte[] object = storage.readAllBytes(BlobId.of(BUCKET, tenant.path() + "/db"));

    assertThat(object).isNotEmpty();
    for (String forbidden : TestData.forbiddenInStorage()) {
      assertThat(TestData.contains(object, forbidden)).as("object contains %s", forbidden).isFalse();
    }
  }

  @Test
  void versionIsTheGenerationAndEveryPutChangesIt() {
    String first = store.put(tenant, "db", TestData.credentials());
    assertThat(Long.parseLong(first))
        .isEqualTo(storage.get(BlobId.of(BUCKET, tenant.path() + "/db")).getGeneration());

    String second = store.put(tenant, "db", TestData.credentials());
    assertThat(Long.parseLong(second)).isNotEqualTo(Long.parseLong(first))
        .isEqualTo(storage.get(BlobId.of(BUCKET, tenant.path() + "/db")).getGeneration());
    assertThat(store.get(tenant, "db").orElseThrow().version()).isEqualTo(second);
  }

  @Test
  void createAndReplaceAreConditionalOnTheGeneration() {
    String created = store.create(tenant, "db", TestData.credentials());
    assertThatThrownBy(() -> store.create(tenant, "db", TestData.credentials("second")))
        .isInstanceOf(SecretConflictException.class)
        .hasMessage(tenant.path() + "/db already exists in bucket " + BUCKET);

    String replaced = store.replace(tenant, "db", TestData.credentials("replaced"), created);
    assertThatThrownBy(() -> store.replace(tenant, "db", TestData.credentials("stale"), created))
        .isInstanceOf(SecretConflictException.class)
        .hasMessage(tenant.path() + "/db in bucket " + BUCKET + " is no longer at version " + created);

    StoredSecret secret = store.get(tenant, "db").orElseThrow();
    assertThat(secret.version()).isEqualTo(replaced);
    assertThat(secret.data().get("password")).isEqualTo("replaced".getBytes(UTF_8));
    assertThatThrownBy(() -> store.replace(tenant, "db", TestData.credentials(), "v1"))
        .isInstanceOfSatisfying(InvalidInputException.class, e -> assertThat(e.field()).isEqualTo("expectedVersion"));
  }

  @Test
  void listShowsMetadataAndDecryptsEachGenerationOnce() {
    String db = store.put(tenant, "db", TestData.credentials());
    String apiKey = store.put(tenant, "api-key", Map.of("key", "k-123".getBytes(UTF_8)));
    store.put(Scope.tenant(tenant.path().substring("tenants/".length()) + "x"), "db", TestData.credentials());
    storage.create(BlobInfo.newBuilder(BlobId.of(BUCKET, tenant.path() + "/nested/object")).build(), new byte[] {1});

    GcsSecretStore fresh = new GcsSecretStore(storage, BUCKET, kms.client(), KEY);
    int decrypts = kms.decryptCalls();
    List<SecretMetadata> listed = fresh.list(tenant);

    assertThat(listed).extracting(SecretMetadata::name).containsExactly("api-key", "db");
    assertThat(listed).extracting(SecretMetadata::version).containsExactly(apiKey, db);
    assertThat(listed.get(1).contentHash()).isEqualTo(SecretFormat.contentHash(TestData.credentials()));
    assertThat(listed.toString()).doesNotContain(TestData.PASSWORD, "k-123");
    assertThat(kms.decryptCalls() - decrypts).as("each generation decrypted once").isEqualTo(2);

    assertThat(fresh.list(tenant)).isEqualTo(listed);
    assertThat(kms.decryptCalls() - decrypts).as("unchanged generations are not decrypted again").isEqualTo(2);

    String changed = store.put(tenant, "db", TestData.credentials("changed"));
    List<SecretMetadata> relisted = fresh.list(tenant);
    assertThat(relisted.get(1).version()).isEqualTo(changed);
    assertThat(relisted.get(1).contentHash()).isEqualTo(SecretFormat.contentHash(TestData.credentials("changed")));
    assertThat(kms.decryptCalls() - decrypts).isEqualTo(3);
  }

  @Test
  void deleteAndDeleteScope() {
    store.put(tenant, "db", TestData.credentials());
    store.put(tenant, "cache", TestData.credentials());
    store.put(tenant, "api-key", TestData.credentials());
    Scope neighbour = Scope.tenant(tenant.path().substring("tenants/".length()) + "x");
    store.put(neighbour, "db", TestData.credentials());

    assertThat(store.delete(tenant, "cache")).isTrue();
    assertThat(store.delete(tenant, "cache")).isFalse();
    assertThat(store.get(tenant, "cache")).isEmpty();

    assertThat(store.deleteScope(tenant)).isEqualTo(2);
    assertThat(store.list(tenant)).isEmpty();
    assertThat(storage.list(BUCKET, Storage.BlobListOption.prefix(tenant.path() + "/")).iterateAll()).isEmpty();
    assertThat(store.get(neighbour, "db")).isPresent();
  }

  @Test
  void anObjectCopiedToAnotherPathIsRefused() {
    store.put(tenant, "db", TestData.credentials());
    byte[] ciphertext = storage.readAllBytes(BlobId.of(BUCKET, tenant.path() + "/db"));
    Scope other = Scope.tenant(tenant.path().substring("tenants/".length()) + "x");
    storage.create(BlobInfo.newBuilder(BlobId.of(BUCKET, other.path() + "/db")).build(), ciphertext);
    storage.create(BlobInfo.newBuilder(BlobId.of(BUCKET, "template/" + other.path().replace('/', '-'))).build(), ciphertext);

    assertThatThrownBy(() -> store.get(other, "db"))
        .isInstanceOfSatisfying(CorruptSecretException.class, e -> assertThat(e.path()).isEqualTo(other.path() + "/db"))
        .hasMessage("cannot decrypt " + other.path() + "/db: wrong key, tampered ciphertext, or copied from another path");
    assertThatThrownBy(() -> store.get(Scope.template(), other.path().replace('/', '-')))
        .isInstanceOf(CorruptSecretException.class);
    assertThat(store.get(tenant, "db")).isPresent();
  }

  @Test
  void aTamperedObjectIsRefused() {
    store.put(tenant, "db", TestData.credentials());
    BlobId id = BlobId.of(BUCKET, tenant.path() + "/db");
    byte[] original = storage.readAllBytes(id);
    // Byte 10 lies in the KMS-encrypted data key, the last one in the data's ciphertext.
    for (int position : new int[] {10, original.length - 1}) {
      byte[] tampered = original.clone();
      tampered[position] ^= 0x01;
      storage.create(BlobInfo.newBuilder(id).build(), tampered);
      assertThatThrownBy(() -> store.get(tenant, "db"))
          .isInstanceOfSatisfying(CorruptSecretException.class, e -> assertThat(e.path()).isEqualTo(tenant.path() + "/db"))
          .hasMessageStartingWith("cannot decrypt " + tenant.path() + "/db")
          .hasMessageNotContaining(TestData.PASSWORD);
    }
  }

  @Test
  void anotherKmsKeyIsRefused() {
    store.put(tenant, "db", TestData.credentials());

    GcsSecretStore otherKey = new GcsSecretStore(storage, BUCKET, kms.client(), OTHER_KEY);
    assertThatThrownBy(() -> otherKey.get(tenant, "db"))
        .isInstanceOf(CorruptSecretException.class)
        .hasMessage("cannot decrypt " + tenant.path() + "/db: Cloud KMS key " + OTHER_KEY
            + " refuses its data key (wrong key, tampered ciphertext, or copied from another store)");

    GcsSecretStore missingKey = new GcsSecretStore(storage, BUCKET, kms.client(), MISSING_KEY);
    assertThatThrownBy(() -> missingKey.get(tenant, "db"))
        .isInstanceOf(KeyUnavailableException.class)
        .hasMessageContaining("Cloud KMS key " + MISSING_KEY + " cannot be used to decrypt")
        .hasMessageContaining("NOT_FOUND");
    assertThatThrownBy(() -> missingKey.put(tenant, "db2", TestData.credentials()))
        .isInstanceOf(KeyUnavailableException.class)
        .hasMessageContaining("cannot be used to encrypt");
    assertThat(store.get(tenant, "db2")).isEmpty();
  }

  @Test
  void kmsUnavailableIsReportedNamingKms() {
    store.put(tenant, "db", TestData.credentials());
    GcsSecretStore fresh = new GcsSecretStore(storage, BUCKET, kms.client(), KEY);
    kms.setUnavailable(true);

    assertThatThrownBy(() -> fresh.get(tenant, "db"))
        .isInstanceOf(StoreUnavailableException.class)
        .hasMessage("Cloud KMS unavailable (UNAVAILABLE) for key " + KEY + ": cannot decrypt " + tenant.path() + "/db");
    assertThatThrownBy(() -> store.put(tenant, "db", TestData.credentials("new")))
        .isInstanceOf(StoreUnavailableException.class)
        .hasMessageStartingWith("Cloud KMS unavailable (UNAVAILABLE)");

    kms.setUnavailable(false);
    assertThat(fresh.get(tenant, "db").orElseThrow().data().get("password"))
        .isEqualTo(TestData.PASSWORD.getBytes(UTF_8));
  }

  @Test
  void unreachableStorageIsReportedNamingTheBucket() throws Exception {
    FakeGcsServer stopped = FakeGcsServer.start();
    try (Storage client = stopped.storage()) {
      client.create(BucketInfo.of("short-lived"));
      GcsSecretStore unreachable = new GcsSecretStore(client, "short-lived", kms.client(), KEY);
      unreachable.put(tenant, "db", TestData.credentials());
      stopped.close();

      assertThatThrownBy(() -> unreachable.get(tenant, "db"))
          .isInstanceOf(StoreUnavailableException.class)
          .hasMessageStartingWith("secret store bucket short-lived unreachable")
          .hasMessageEndingWith("cannot read " + tenant.path() + "/db");
      assertThatThrownBy(() -> unreachable.list(tenant))
          .isInstanceOf(StoreUnavailableException.class)
          .hasMessageContaining("bucket short-lived");
      assertThatThrownBy(() -> unreachable.put(tenant, "db", TestData.credentials()))
          .isInstanceOf(StoreUnavailableException.class)
          .hasMessageContaining("bucket short-lived")
          .hasMessageNotContaining(TestData.PASSWORD);
    } finally {
      stopped.close();
    }
  }

  @Test
  void aMissingBucketIsReportedNamingIt() {
    GcsSecretStore noBucket = new GcsSecretStore(storage, "no-such-bucket", kms.client(), KEY);
    assertThatThrownBy(() -> noBucket.put(tenant, "db", TestData.credentials()))
        .isInstanceOf(StoreUnavailableException.class)
        .hasMessage("secret store bucket no-such-bucket no such bucket (HTTP 404): cannot write " + tenant.path() + "/db");
    // Not a store without secrets: reading, listing and deleting fail the same way.
    assertThatThrownBy(() -> noBucket.get(tenant, "db"))
        .isInstanceOf(StoreUnavailableException.class)
        .hasMessage("secret store bucket no-such-bucket no such bucket (HTTP 404): cannot read " + tenant.path() + "/db");
    assertThatThrownBy(() -> noBucket.list(Scope.template()))
        .isInstanceOf(StoreUnavailableException.class)
        .hasMessage("secret store bucket no-such-bucket no such bucket (HTTP 404): cannot list template/");
    assertThatThrownBy(() -> noBucket.delete(tenant, "db"))
        .isInstanceOf(StoreUnavailableException.class)
        .hasMessage("secret store bucket no-such-bucket no such bucket (HTTP 404): cannot delete " + tenant.path() + "/db");
  }

  @Test
  void refusesAMalformedKmsKeyName() {
    assertThatThrownBy(() -> new GcsSecretStore(storage, BUCKET, kms.client(), "secrets"))
        .isInstanceOfSatisfying(InvalidInputException.class, e -> assertThat(e.field()).isEqualTo("kmsKeyName"));
  }
}
