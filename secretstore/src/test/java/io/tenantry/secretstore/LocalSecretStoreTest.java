package io.tenantry.secretstore;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class LocalSecretStoreTest {

  private static final Scope ACME = Scope.tenant("acme");
  private static final Scope GLOBEX = Scope.tenant("globex");

  @TempDir
  Path tmp;

  private Path root;
  private Path keyset;
  private LocalSecretStore store;
  private ExecutorService pool;

  @BeforeEach
  void openStore() {
    root = tmp.resolve("store");
    keyset = tmp.resolve("keys/keyset.json");
    store = LocalSecretStore.init(root, keyset);
  }

  @AfterEach
  void stopPool() {
    if (pool != null) {
      pool.shutdownNow();
    }
  }

  @Test
  void roundTripsDataWithItsVersionAndHash() {
    String version = store.put(ACME, "db", TestData.credentials());

    StoredSecret secret = store.get(ACME, "db").orElseThrow();
    assertThat(secret.data()).containsOnlyKeys("password", "username");
    assertThat(secret.data().get("password")).isEqualTo(TestData.PASSWORD.getBytes(UTF_8));
    assertThat(secret.data().get("username")).isEqualTo(TestData.USER.getBytes(UTF_8));
    assertThat(secret.version()).isEqualTo(version).hasSize(16);
    assertThat(secret.contentHash()).isEqualTo(SecretFormat.contentHash(TestData.credentials()));
    assertThat(secret.scope()).isEqualTo(ACME);
    assertThat(secret.name()).isEqualTo("db");
    assertThat(secret.updated()).isNotNull();
    assertThat(secret.toString()).contains("tenants/acme/db", "password", "username").doesNotContain(TestData.PASSWORD);
  }

  @Test
  void missingSecretsAndScopesAreEmpty() {
    assertThat(store.get(ACME, "db")).isEmpty();
    assertThat(store.list(ACME)).isEmpty();
    assertThat(store.delete(ACME, "db")).isFalse();
    assertThat(store.deleteScope(ACME)).isZero();
  }

  @Test
  void reopenedStoreReadsWhatWasWritten() {
    store.put(Scope.template(), "registry", TestData.credentials());
    LocalSecretStore reopened = LocalSecretStore.open(root, keyset);
    assertThat(reopened.get(Scope.template(), "registry").orElseThrow().data().get("password"))
        .isEqualTo(TestData.PASSWORD.getBytes(UTF_8));
  }

  @Test
  void listShowsMetadataOfTheScopeOnly() {
    String dbVersion = store.put(ACME, "db", TestData.credentials());
    String apiVersion = store.put(ACME, "api-key", Map.of("key", "k-123".getBytes(UTF_8)));
    store.put(GLOBEX, "db", TestData.credentials("other"));
    store.put(Scope.template(), "registry", TestData.credentials());

    List<SecretMetadata> listed = store.list(ACME);

    assertThat(listed).extracting(SecretMetadata::name).containsExactly("api-key", "db");
    assertThat(listed).extracting(SecretMetadata::version).containsExactly(apiVersion, dbVersion);
    assertThat(listed.get(1).contentHash()).isEqualTo(SecretFormat.contentHash(TestData.credentials()));
    assertThat(listed.get(1).path()).isEqualTo("tenants/acme/db");
    assertThat(listed.toString()).doesNotContain(TestData.PASSWORD, TestData.base64(TestData.PASSWORD), "k-123");
    assertThat(store.list(Scope.template())).extracting(SecretMetadata::name).containsExactly("registry");
  }

  @Test
  void listIgnoresTemporaryAndForeignFiles() throws Exception {
    store.put(ACME, "db", TestData.credentials());
    Files.write(root.resolve("tenants/acme/.db.123.tmp"), new byte[] {1, 2, 3});
    Files.write(root.resolve("tenants/acme/NOTES.txt"), new byte[] {1, 2, 3});
    assertThat(store.list(ACME)).extracting(SecretMetadata::name).containsExactly("db");
  }

  @Test
  void everyPutMakesANewVersion() {
    String first = store.put(ACME, "db", TestData.credentials());
    String second = store.put(ACME, "db", TestData.credentials());
    String third = store.put(ACME, "db", TestData.credentials("changed"));
    assertThat(Set.of(first, second, third)).hasSize(3);
    StoredSecret secret = store.get(ACME, "db").orElseThrow();
    assertThat(secret.version()).isEqualTo(third);
    assertThat(secret.data().get("password")).isEqualTo("changed".getBytes(UTF_8));
  }

  @Test
  void createWritesOnlyANewSecret() {
    String version = store.create(ACME, "db", TestData.credentials());
    assertThatThrownBy(() -> store.create(ACME, "db", TestData.credentials("second")))
        .isInstanceOfSatisfying(SecretConflictException.class, e -> assertThat(e.path()).isEqualTo("tenants/acme/db"))
        .hasMessage("tenants/acme/db already exists (version " + version + ")");
    assertThat(store.get(ACME, "db").orElseThrow().version()).isEqualTo(version);
  }

  @Test
  void replaceIsACompareAndSwapOnTheVersion() {
    String first = store.put(ACME, "db", TestData.credentials());
    String second = store.replace(ACME, "db", TestData.credentials("second"), first);

    assertThatThrownBy(() -> store.replace(ACME, "db", TestData.credentials("stale"), first))
        .isInstanceOf(SecretConflictException.class)
        .hasMessage("tenants/acme/db is at version " + second + ", not the expected " + first);
    assertThat(store.get(ACME, "db").orElseThrow().data().get("password")).isEqualTo("second".getBytes(UTF_8));

    store.delete(ACME, "db");
    assertThatThrownBy(() -> store.replace(ACME, "db", TestData.credentials(), second))
        .isInstanceOf(SecretConflictException.class)
        .hasMessageContaining("(deleted)");
    assertThatThrownBy(() -> store.replace(ACME, "db", TestData.credentials(), ""))
        .isInstanceOfSatisfying(InvalidInputException.class, e -> assertThat(e.field()).isEqualTo("expectedVersion"));
  }

  @Test
  void deleteRemovesOneSecret() {
    store.put(ACME, "db", TestData.credentials());
    store.put(ACME, "api-key", TestData.credentials());

    assertThat(store.delete(ACME, "db")).isTrue();
    assertThat(store.delete(ACME, "db")).isFalse();
    assertThat(store.get(ACME, "db")).isEmpty();
    assertThat(store.list(ACME)).extracting(SecretMetadata::name).containsExactly("api-key");
  }

  @Test
  void deleteScopePurgesOneTenantOnly() throws Exception {
    store.put(ACME, "db", TestData.credentials());
    store.put(ACME, "cache", TestData.credentials());
    store.put(ACME, "api-key", TestData.credentials());
    Files.write(root.resolve("tenants/acme/.db.123.tmp"), new byte[] {1});
    store.put(GLOBEX, "db", TestData.credentials());
    store.put(Scope.template(), "db", TestData.credentials());

    assertThat(store.deleteScope(ACME)).isEqualTo(3);

    assertThat(root.resolve("tenants/acme")).doesNotExist();
    assertThat(store.list(ACME)).isEmpty();
    assertThat(store.get(GLOBEX, "db")).isPresent();
    assertThat(store.get(Scope.template(), "db")).isPresent();
    store.put(ACME, "db", TestData.credentials());
    assertThat(store.list(ACME)).hasSize(1);
  }

  @Test
  void filesHoldNoPlaintextAndOnlyTheOwnerCanReadThem() throws Exception {
    store.put(ACME, "db", TestData.credentials());
    Path file = root.resolve("tenants/acme/db");

    byte[] bytes = Files.readAllBytes(file);
    for (String forbidden : TestData.forbiddenInStorage()) {
      assertThat(TestData.contains(bytes, forbidden)).as("file contains %s", forbidden).isFalse();
    }
    assertThat(TestData.contains(bytes, TestData.PASSWORD.substring(0, 8))).isFalse();
    assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(file))).isEqualTo("rw-------");
    assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(file.getParent()))).isEqualTo("rwx------");
  }

  @Test
  void aFileCopiedToAnotherPathIsRefused() throws Exception {
    store.put(ACME, "db", TestData.credentials());
    byte[] original = Files.readAllBytes(root.resolve("tenants/acme/db"));
    store.put(GLOBEX, "placeholder", Map.of());
    store.put(Scope.template(), "placeholder", Map.of());

    Files.write(root.resolve("tenants/globex/db"), original);
    Files.write(root.resolve("tenants/acme/db2"), original);
    Files.write(root.resolve("template/db"), original);

    assertRefused(GLOBEX, "db", "tenants/globex/db");
    assertRefused(ACME, "db2", "tenants/acme/db2");
    assertRefused(Scope.template(), "db", "template/db");
    assertThatThrownBy(() -> store.list(GLOBEX)).isInstanceOf(CorruptSecretException.class);
    assertThat(store.get(ACME, "db")).isPresent();
  }

  @Test
  void aTamperedByteIsRefused() throws Exception {
    store.put(ACME, "db", TestData.credentials());
    Path file = root.resolve("tenants/acme/db");
    byte[] original = Files.readAllBytes(file);
    for (int position : new int[] {0, 7, original.length / 2, original.length - 1}) {
      byte[] tampered = original.clone();
      tampered[position] ^= 0x01;
      Files.write(file, tampered);
      assertRefused(ACME, "db", "tenants/acme/db");
    }
    Files.write(file, Arrays.copyOf(original, original.length - 1));
    assertRefused(ACME, "db", "tenants/acme/db");
    Files.write(file, original);
    assertThat(store.get(ACME, "db")).isPresent();
  }

  @Test
  void anotherKeysetIsRefused() {
    store.put(ACME, "db", TestData.credentials());
    LocalSecretStore otherKey = new LocalSecretStore(root, LocalKeyset.loadOrCreate(tmp.resolve("other-keyset.json")));
    assertThatThrownBy(() -> otherKey.get(ACME, "db"))
        .isInstanceOf(CorruptSecretException.class)
        .hasMessage("cannot decrypt tenants/acme/db: wrong key, tampered ciphertext, or copied from another path");
  }

  @Test
  void invalidInputIsRefusedBeforeAnythingIsWritten() {
    assertThatThrownBy(() -> store.put(ACME, "DB_Password", TestData.credentials()))
        .isInstanceOfSatisfying(InvalidInputException.class, e -> assertThat(e.field()).isEqualTo("name"));
    assertThatThrownBy(() -> store.put(ACME, "db", Map.of("pass word", new byte[] {1})))
        .isInstanceOfSatisfying(InvalidInputException.class, e -> assertThat(e.field()).isEqualTo("data"));
    assertThatThrownBy(() -> store.get(ACME, "../../etc"))
        .isInstanceOfSatisfying(InvalidInputException.class, e -> assertThat(e.field()).isEqualTo("name"));
    assertThatThrownBy(() -> store.list(Scope.tenant("Acme")))
        .isInstanceOfSatisfying(InvalidInputException.class, e -> assertThat(e.field()).isEqualTo("tenant"));
    assertThat(root.resolve("template")).doesNotExist();
    assertThat(root.resolve("tenants")).doesNotExist();
  }

  @Test
  void readersNeverSeeAHalfWrittenSecret() throws Exception {
    pool = Executors.newFixedThreadPool(4);
    Map<String, byte[]> small = TestData.credentials("small");
    Map<String, byte[]> large = TestData.credentials("large".repeat(20_000));
    store.put(ACME, "db", small);
    AtomicInteger reads = new AtomicInteger();
    List<Future<?>> tasks = new ArrayList<>();
    for (int writer = 0; writer < 2; writer++) {
      tasks.add(pool.submit((Callable<Void>) () -> {
        for (int i = 0; i < 40; i++) {
          store.put(ACME, "db", i % 2 == 0 ? large : small);
        }
        return null;
      }));
    }
    for (int reader = 0; reader < 2; reader++) {
      tasks.add(pool.submit((Callable<Void>) () -> {
        for (int i = 0; i < 80; i++) {
          String password = new String(store.get(ACME, "db").orElseThrow().data().get("password"), UTF_8);
          assertThat(password).isIn("small", "large".repeat(20_000));
          reads.incrementAndGet();
        }
        return null;
      }));
    }
    for (Future<?> task : tasks) {
      task.get();
    }
    assertThat(reads).hasValue(160);
  }

  @Test
  void ofConcurrentCreatorsExactlyOneWins() throws Exception {
    pool = Executors.newFixedThreadPool(4);
    List<Future<String>> attempts = new ArrayList<>();
    for (int i = 0; i < 8; i++) {
      String password = "generated-" + i;
      attempts.add(pool.submit(() -> {
        try {
          return store.create(ACME, "db", TestData.credentials(password));
        } catch (SecretConflictException e) {
          return null;
        }
      }));
    }
    List<String> winners = new ArrayList<>();
    for (Future<String> attempt : attempts) {
      if (attempt.get() != null) {
        winners.add(attempt.get());
      }
    }
    assertThat(winners).hasSize(1);
    assertThat(store.get(ACME, "db").orElseThrow().version()).isEqualTo(winners.get(0));
  }

  @Test
  void initMakesAnEmptyStoreThatOpenReadsBack() throws Exception {
    Path fresh = tmp.resolve("fresh/store");
    Path freshKeyset = tmp.resolve("fresh-keys/keyset.json");

    LocalSecretStore made = LocalSecretStore.init(fresh, freshKeyset);

    assertThat(fresh.resolve(LocalSecretStore.MARKER)).isRegularFile();
    assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(fresh))).isEqualTo("rwx------");
    assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(freshKeyset))).isEqualTo("rw-------");
    assertThat(made.list(Scope.template())).isEmpty();
    assertThat(made.get(ACME, "db")).isEmpty();
    String version = made.put(ACME, "db", TestData.credentials());

    LocalSecretStore opened = LocalSecretStore.open(fresh, freshKeyset);
    assertThat(opened.get(ACME, "db").orElseThrow().version()).isEqualTo(version);
    assertThat(opened.get(ACME, "db").orElseThrow().data().get("password")).isEqualTo(TestData.PASSWORD.getBytes(UTF_8));
    assertThat(opened.list(Scope.template())).isEmpty();
  }

  @Test
  void initUsesAKeysetThatExistsAndRefusesAStoreThatExists() throws Exception {
    Path given = tmp.resolve("given-keyset.json");
    LocalKeyset.loadOrCreate(given);
    byte[] keysetBytes = Files.readAllBytes(given);
    Path other = tmp.resolve("other-store");

    LocalSecretStore.init(other, given).put(ACME, "db", TestData.credentials());

    assertThat(Files.readAllBytes(given)).as("the given keyset is used as it is").isEqualTo(keysetBytes);
    assertThat(new LocalSecretStore(other, LocalKeyset.load(given)).get(ACME, "db")).isPresent();
    byte[] ownKeyset = Files.readAllBytes(keyset);
    assertThatThrownBy(() -> LocalSecretStore.init(root, keyset))
        .isInstanceOf(SecretConflictException.class)
        .hasMessage("secret store " + root + " already exists (it holds the marker " + LocalSecretStore.MARKER
            + "): open it instead");
    assertThat(Files.readAllBytes(keyset)).isEqualTo(ownKeyset);
  }

  @Test
  void openRefusesAMissingRootAndCreatesNothing() {
    Path missing = tmp.resolve("no-such-store");
    Path missingKeyset = tmp.resolve("no-such-keyset.json");

    assertThatThrownBy(() -> LocalSecretStore.open(missing, missingKeyset))
        .isInstanceOf(StoreUnavailableException.class)
        .hasMessage("local secret store " + missing + " does not exist: a missing store is not read as an empty one;"
            + " check the store's location, or create a new store with 'tenantry-secrets init'");
    assertThat(missing).doesNotExist();
    assertThat(missingKeyset).doesNotExist();
  }

  @Test
  void openRefusesAMissingKeysetAndCreatesNone() {
    store.put(ACME, "db", TestData.credentials());
    Path missingKeyset = tmp.resolve("keys/mistyped.json");

    assertThatThrownBy(() -> LocalSecretStore.open(root, missingKeyset))
        .isInstanceOf(KeyUnavailableException.class)
        .hasMessageStartingWith("keyset file " + missingKeyset + " of secret store " + root + " does not exist");
    assertThat(missingKeyset).doesNotExist();
    assertThat(LocalSecretStore.open(root, keyset).get(ACME, "db")).isPresent();
  }

  @Test
  void aRootThatDisappearsIsRefusedNotReadAsEmpty() throws Exception {
    store.put(Scope.template(), "registry", TestData.credentials());
    store.put(ACME, "db", TestData.credentials());
    // As an unmounted volume or a moved directory would leave it.
    Path moved = Files.move(root, tmp.resolve("moved-away"));

    String refused = "local secret store " + root + " does not exist";
    assertThatThrownBy(() -> store.list(Scope.template())).isInstanceOf(StoreUnavailableException.class)
        .hasMessageStartingWith(refused);
    assertThatThrownBy(() -> store.get(Scope.template(), "registry")).isInstanceOf(StoreUnavailableException.class)
        .hasMessageStartingWith(refused);
    assertThatThrownBy(() -> store.delete(ACME, "db")).isInstanceOf(StoreUnavailableException.class)
        .hasMessageStartingWith(refused);
    assertThatThrownBy(() -> store.deleteScope(ACME)).isInstanceOf(StoreUnavailableException.class)
        .hasMessageStartingWith(refused);
    assertThatThrownBy(() -> store.put(ACME, "db", TestData.credentials("new")))
        .isInstanceOf(StoreUnavailableException.class).hasMessageStartingWith(refused);
    assertThat(root).as("nothing re-creates the store").doesNotExist();

    Files.move(moved, root);
    assertThat(store.list(Scope.template())).extracting(SecretMetadata::name).containsExactly("registry");
    assertThat(store.get(ACME, "db").orElseThrow().data().get("password")).isEqualTo(TestData.PASSWORD.getBytes(UTF_8));
  }

  @Test
  void anEmptyDirectoryIsNotAnEmptyStore() throws Exception {
    Path empty = Files.createDirectories(tmp.resolve("mount-point"));
    LocalSecretStore onEmpty = new LocalSecretStore(empty, LocalKeyset.load(keyset));

    String refused = "local secret store " + empty + " is not a secret store: it holds neither the marker "
        + LocalSecretStore.MARKER + " nor any secret";
    assertThatThrownBy(() -> LocalSecretStore.open(empty, keyset)).isInstanceOf(StoreUnavailableException.class)
        .hasMessageStartingWith(refused);
    assertThatThrownBy(() -> onEmpty.list(Scope.template())).isInstanceOf(StoreUnavailableException.class)
        .hasMessageStartingWith(refused);
    assertThatThrownBy(() -> onEmpty.get(ACME, "db")).isInstanceOf(StoreUnavailableException.class)
        .hasMessageStartingWith(refused);
    assertThatThrownBy(() -> onEmpty.put(ACME, "db", TestData.credentials()))
        .isInstanceOf(StoreUnavailableException.class).hasMessageStartingWith(refused);
    try (var entries = Files.list(empty)) {
      assertThat(entries).as("nothing written into it").isEmpty();
    }
  }

  @Test
  void aStoreMadeBeforeTheMarkerStillOpens() throws Exception {
    store.put(Scope.template(), "registry", TestData.credentials());
    Files.delete(root.resolve(LocalSecretStore.MARKER));

    assertThat(LocalSecretStore.open(root, keyset).list(Scope.template())).extracting(SecretMetadata::name)
        .containsExactly("registry");
    assertThat(store.list(ACME)).isEmpty();
  }

  private void assertRefused(Scope scope, String name, String path) {
    assertThatThrownBy(() -> store.get(scope, name))
        .isInstanceOfSatisfying(CorruptSecretException.class, e -> assertThat(e.path()).isEqualTo(path))
        .hasMessage("cannot decrypt " + path + ": wrong key, tampered ciphertext, or copied from another path");
  }
}
