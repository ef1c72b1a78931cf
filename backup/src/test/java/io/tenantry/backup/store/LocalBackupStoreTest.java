package io.tenantry.backup.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;

import java.io.ByteArrayInputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.ThrowingConsumer;
import org.junit.jupiter.api.io.TempDir;

/** The directory store: the shared contract, plus the paths it refuses and a missing directory. */
class LocalBackupStoreTest extends BackupStoreContract {

  @TempDir
  Path temp;

  private Path root;

  @Override
  protected BackupStore newStore() throws Exception {
    root = Files.createDirectories(temp.resolve("backups-root"));
    return new LocalBackupStore(root);
  }

  @Override
  protected boolean listingHasChecksums() {
    return false;
  }

  @Test
  void objectsAreFilesUnderTheRoot() throws Exception {
    byte[] bytes = randomBytes(3_000, 30);
    store.create("backups/c/t-1/db/b1.dump.enc", new ByteArrayInputStream(bytes));

    assertThat(Files.readAllBytes(root.resolve("backups/c/t-1/db/b1.dump.enc"))).isEqualTo(bytes);
    assertThat(store.describe()).isEqualTo("file:" + root);
  }

  @Test
  void refusesPathsThatLeaveTheRootOrEnterIncoming() {
    byte[] bytes = {1, 2, 3};
    // Only a path in its normal form: an object has one path, and no spelling of a path reaches .incoming.
    List<String> refused = List.of("../escape", "a/../../escape", "a/../b", "a/..", "/etc/escape", "/escape",
        ".incoming/x", ".incoming", "./.incoming/x", "a//b", "./a", "a/./b", "a/", ".", "");
    Map<String, ThrowingConsumer<String>> operations = Map.of(
        "create", p -> store.create(p, new ByteArrayInputStream(bytes)),
        "stat", store::stat, "open", store::open, "delete", store::delete);
    for (String path : refused) {
      operations.forEach((name, operation) -> {
        assertThat(catchThrowable(() -> operation.accept(path))).as("%s '%s'", name, path)
            .isInstanceOf(IllegalArgumentException.class)
            .hasMessage("not an object path: '" + path + "'");
      });
    }
    assertThat(temp.resolve("escape")).doesNotExist();
    assertThat(Path.of("/escape")).doesNotExist();
    assertThat(root.resolve("b")).doesNotExist();
    assertThat(store.list("")).isEmpty();
  }

  @Test
  void leftoversOfAFailedCreateAreInNoListing() throws Exception {
    assertThatThrownBy(() -> store.create("x/object", new FailingStream(new byte[100])))
        .isInstanceOf(SourceFailedException.class);
    // What a crash mid-create would leave behind.
    Files.write(root.resolve(".incoming").resolve("leftover"), new byte[] {9});

    assertThat(store.list("")).isEmpty();
    assertThat(store.list(".")).isEmpty();
    assertThat(store.list("x/")).isEmpty();
  }

  @Test
  void aMissingDirectoryIsAnUnavailableStoreNamingIt() {
    Path missing = temp.resolve("unmounted");
    LocalBackupStore unmounted = new LocalBackupStore(missing);
    String name = "file:" + missing;

    Map<String, ThrowingConsumer<LocalBackupStore>> operations = Map.of(
        "create", s -> s.create("a/b", new ByteArrayInputStream(new byte[] {1})),
        "stat", s -> s.stat("a/b"),
        "open", s -> s.open("a/b"),
        "read", s -> s.read("a/b"),
        "list", s -> s.list("a/"),
        "list all", s -> s.list(""),
        "delete", s -> s.delete("a/b"));
    operations.forEach((operationName, operation) -> {
      assertThat(catchThrowable(() -> operation.accept(unmounted))).as(operationName)
          .isInstanceOfSatisfying(BackupStoreUnavailableException.class, e -> assertThat(e.store()).isEqualTo(name))
          .hasMessageStartingWith(name + ": ");
    });
    // Never created: files written there would land on the node's disk, not the volume.
    assertThat(missing).doesNotExist();
  }

  @Test
  void aRootThatIsAFileIsUnavailable() throws Exception {
    Path file = Files.writeString(temp.resolve("not-a-dir"), "x");
    LocalBackupStore wrong = new LocalBackupStore(file);

    assertThatThrownBy(() -> wrong.list(""))
        .isInstanceOfSatisfying(BackupStoreUnavailableException.class,
            e -> assertThat(e.store()).isEqualTo("file:" + file));
    try (Stream<Path> files = Files.list(temp)) {
      assertThat(files).extracting(p -> p.getFileName().toString()).containsExactlyInAnyOrder("backups-root", "not-a-dir");
    }
  }
}
