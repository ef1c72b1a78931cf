package io.tenantry.controller.backup;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.crypto.tink.Aead;
import io.tenantry.backup.ArchiveManifest;
import io.tenantry.backup.BackupId;
import io.tenantry.backup.BackupLocation;
import io.tenantry.backup.PurgeMarker;
import io.tenantry.backup.store.BackupStore;
import io.tenantry.backup.store.BackupStoreUnavailableException;
import io.tenantry.backup.store.LocalBackupStore;
import io.tenantry.backup.store.StoredObject;
import io.tenantry.secretstore.LocalKeyset;
import java.io.ByteArrayInputStream;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The sweeper's decisions, on a local store in a temporary directory and a clock the test moves. */
class PurgedBackupsTest {

  private static final Duration DELAY = Duration.ofDays(7);
  private static final Instant PURGED = Instant.parse("2026-11-26T10:00:00Z");
  private static final String UID = "0c4b7e3a-1111-2222-3333-444455556666";
  private static final String LATER_UID = "9f00aa00-1111-2222-3333-444455556666";
  private static final String GLOBEX_UID = "5e5e5e5e-1111-2222-3333-444455556666";

  @TempDir
  Path temp;

  private Path root;
  private final MovingClock clock = new MovingClock(PURGED);
  private RecordingStore store;
  private Aead kek;
  private PurgedBackups purged;

  @BeforeEach
  void setUp() throws Exception {
    root = Files.createDirectories(temp.resolve("backups"));
    store = new RecordingStore(new LocalBackupStore(root));
    kek = LocalKeyset.loadOrCreate(temp.resolve("keyset.json"));
    purged = new PurgedBackups(new BackupRuntime(store, kek, null, null, "eu-1"), DELAY, clock);
  }

  @Test
  void aMarkerYoungerThanTheDelayKeepsEveryBackup() {
    List<String> acme = seed("acme", UID);
    purged.mark("acme", UID);

    clock.set(PURGED.plus(DELAY).minusSeconds(1));
    PurgedBackups.Sweep sweep = purged.sweep();

    assertThat(sweep.kept()).containsExactly(prefix("acme", UID));
    assertThat(sweep.deleted()).isEmpty();
    assertThat(paths(prefix("acme", UID))).containsAll(acme).contains(PurgeMarker.path("eu-1", "acme", UID));
    assertThat(store.deleted).isEmpty();
  }

  @Test
  void aMarkerAsOldAsTheDelayDeletesItsWholePrefixTheMarkerLast() {
    List<String> acme = seed("acme", UID);
    List<String> later = seed("acme", LATER_UID); // A later tenant of the same name: not purged.
    List<String> globex = seed("globex", GLOBEX_UID);
    purged.mark("acme", UID);

    clock.set(PURGED.plus(DELAY));
    PurgedBackups.Sweep sweep = purged.sweep();

    assertThat(sweep.deleted()).containsExactly(prefix("acme", UID));
    assertThat(sweep.complete()).isTrue();
    assertThat(paths(prefix("acme", UID))).isEmpty();
    assertThat(store.deleted).hasSize(acme.size() + 1).containsAll(acme);
    assertThat(store.deleted.get(store.deleted.size() - 1)).isEqualTo(PurgeMarker.path("eu-1", "acme", UID));
    assertThat(store.deleted.subList(0, 2)).as("the manifests first").allMatch(p -> p.endsWith(".manifest"));
    assertThat(paths(prefix("acme", LATER_UID))).containsExactlyElementsOf(later);
    assertThat(paths(prefix("globex", GLOBEX_UID))).containsExactlyElementsOf(globex);
  }

  @Test
  void twoTenantsOfOneNameGoEachAfterItsOwnPurge() {
    seed("acme", UID);
    List<String> later = seed("acme", LATER_UID);
    purged.mark("acme", UID);
    clock.set(PURGED.plus(Duration.ofDays(3)));
    purged.mark("acme", LATER_UID);

    clock.set(PURGED.plus(DELAY));
    PurgedBackups.Sweep sweep = purged.sweep();

    assertThat(sweep.deleted()).containsExactly(prefix("acme", UID));
    assertThat(sweep.kept()).containsExactly(prefix("acme", LATER_UID));
    assertThat(paths(prefix("acme", LATER_UID))).containsAll(later);

    clock.set(PURGED.plus(Duration.ofDays(3)).plus(DELAY));
    assertThat(purged.sweep().deleted()).containsExactly(prefix("acme", LATER_UID));
    assertThat(paths("backups/eu-1/")).isEmpty();
  }

  @Test
  void aRepeatedPurgeKeepsTheFirstPurgesTime() throws Exception {
    purged.mark("acme", UID);
    clock.set(PURGED.plus(Duration.ofDays(2)));
    purged.mark("acme", UID);

    String path = PurgeMarker.path("eu-1", "acme", UID);
    assertThat(PurgeMarker.open(store.read(path), kek, path).purged()).isEqualTo(PURGED);
  }

  @Test
  void aForgedOrMovedMarkerIsLeftAndSoIsEverythingBesideIt() throws Exception {
    List<String> acme = seed("acme", UID);
    List<String> globex = seed("globex", GLOBEX_UID);
    // Sealed by another key, at acme's path; and acme's own marker copied under globex's prefix.
    Aead otherKey = LocalKeyset.loadOrCreate(temp.resolve("other.json"));
    String acmeMarker = PurgeMarker.path("eu-1", "acme", UID);
    String globexMarker = PurgeMarker.path("eu-1", "globex", GLOBEX_UID);
    store.create(acmeMarker, new ByteArrayInputStream(PurgeMarker.of("eu-1", "acme", UID, PURGED).seal(otherKey)));
    store.create(globexMarker, new ByteArrayInputStream(PurgeMarker.of("eu-1", "acme", UID, PURGED).seal(kek)));

    clock.set(PURGED.plus(DELAY).plus(Duration.ofDays(30)));
    PurgedBackups.Sweep sweep = purged.sweep();

    assertThat(sweep.unreadable()).containsExactlyInAnyOrder(acmeMarker, globexMarker);
    assertThat(sweep.deleted()).isEmpty();
    assertThat(store.deleted).isEmpty();
    assertThat(paths(prefix("acme", UID))).containsAll(acme);
    assertThat(paths(prefix("globex", GLOBEX_UID))).containsAll(globex);
  }

  @Test
  void aPrefixWithoutAMarkerIsNeverTouched() {
    List<String> acme = seed("acme", UID);

    clock.set(PURGED.plus(Duration.ofDays(365)));
    PurgedBackups.Sweep sweep = purged.sweep();

    assertThat(sweep).isEqualTo(new PurgedBackups.Sweep(List.of(), List.of(), List.of(), true));
    assertThat(paths(prefix("acme", UID))).containsExactlyElementsOf(acme);
  }

  @Test
  void aListingThatFailsDeletesNothingAndTheNextSweepDoes() {
    List<String> acme = seed("acme", UID);
    purged.mark("acme", UID);
    clock.set(PURGED.plus(DELAY));

    store.failLists = true;
    PurgedBackups.Sweep failed = purged.sweep();
    assertThat(failed.complete()).isFalse();
    assertThat(store.deleted).isEmpty();
    assertThat(paths(prefix("acme", UID))).containsAll(acme);

    store.failLists = false;
    assertThat(purged.sweep().deleted()).containsExactly(prefix("acme", UID));
    assertThat(paths(prefix("acme", UID))).isEmpty();
  }

  @Test
  void aSweepCutShortLeavesTheMarkerAndTheNextOneFinishes() {
    seed("acme", UID);
    purged.mark("acme", UID);
    clock.set(PURGED.plus(DELAY));

    store.deletesBeforeFailure = 2;
    assertThat(purged.sweep().complete()).isFalse();
    assertThat(paths(prefix("acme", UID))).contains(PurgeMarker.path("eu-1", "acme", UID)).hasSizeGreaterThan(1);

    store.deletesBeforeFailure = Integer.MAX_VALUE;
    assertThat(purged.sweep().deleted()).containsExactly(prefix("acme", UID));
    assertThat(paths(prefix("acme", UID))).isEmpty();
  }

  @Test
  void aStoreThatIsDownFailsTheMarkSoThatThePurgeIsRetried() throws Exception {
    Files.move(root, temp.resolve("away"));

    assertThatThrownBy(() -> purged.mark("acme", UID)).isInstanceOf(BackupStoreUnavailableException.class)
        .hasMessageContaining("file:" + root);
  }

  /** Two databases' backups of a tenant (object, report and manifest each), as the store lists them. */
  private List<String> seed(String tenant, String uid) {
    List<String> paths = new ArrayList<>();
    for (String database : List.of("main", "orders")) {
      BackupLocation location = new BackupLocation("eu-1", tenant, uid, database);
      BackupId id = BackupId.next(database, PURGED.minus(Duration.ofDays(1)));
      for (String path : List.of(location.objectPath(id), location.reportPath(id), location.manifestPath(id))) {
        store.create(path, new ByteArrayInputStream(new byte[] {1, 2, 3}));
        paths.add(path);
      }
    }
    // An Archived tenant's archive manifest: it goes with the rest once the tenant is purged.
    String archive = ArchiveManifest.of("eu-1", tenant, uid, PURGED.minus(Duration.ofDays(2)), List.of()).path();
    store.create(archive, new ByteArrayInputStream(new byte[] {1, 2, 3}));
    paths.add(archive);
    return paths.stream().sorted().toList();
  }

  private static String prefix(String tenant, String uid) {
    return BackupLocation.tenantPrefix("eu-1", tenant, uid);
  }

  private List<String> paths(String prefix) {
    return store.store.list(prefix).stream().map(StoredObject::path).toList();
  }

  /** A clock the test sets. */
  private static final class MovingClock extends Clock {
    private volatile Instant now;

    MovingClock(Instant now) {
      this.now = now;
    }

    void set(Instant instant) {
      now = instant;
    }

    @Override
    public Instant instant() {
      return now;
    }

    @Override
    public ZoneId getZone() {
      return ZoneOffset.UTC;
    }

    @Override
    public Clock withZone(ZoneId zone) {
      return this;
    }
  }

  /** The local store, recording deletions in order; its listings or deletions fail on demand. */
  private static final class RecordingStore implements BackupStore {
    final BackupStore store;
    final List<String> deleted = new ArrayList<>();
    volatile boolean failLists;
    volatile int deletesBeforeFailure = Integer.MAX_VALUE;

    RecordingStore(BackupStore store) {
      this.store = store;
    }

    @Override
    public String describe() {
      return store.describe();
    }

    @Override
    public StoredObject create(String path, InputStream content) {
      return store.create(path, content);
    }

    @Override
    public Optional<StoredObject> stat(String path) {
      return store.stat(path);
    }

    @Override
    public InputStream open(String path) {
      return store.open(path);
    }

    @Override
    public List<StoredObject> list(String prefix) {
      if (failLists) {
        throw new BackupStoreUnavailableException(describe(), "cannot list " + prefix + ": test", null);
      }
      return store.list(prefix);
    }

    @Override
    public void delete(String path) {
      if (deletesBeforeFailure-- <= 0) {
        throw new BackupStoreUnavailableException(describe(), "cannot delete " + path + ": test", null);
      }
      store.delete(path);
      deleted.add(path);
    }
  }
}
