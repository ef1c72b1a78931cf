package io.tenantry.backup.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;

import com.google.cloud.storage.BucketInfo;
import com.google.cloud.storage.Storage;
import io.tenantry.secretstore.FakeGcsServer;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.SequenceInputStream;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.ThrowingConsumer;

/** The Cloud Storage store against a fake-gcs-server process: the shared contract, a missing bucket, an outage. */
class GcsBackupStoreIT extends BackupStoreContract {

  private static GcsBuckets gcs;

  @BeforeAll
  static void start() throws Exception {
    gcs = GcsBuckets.start("backups");
  }

  @AfterAll
  static void stop() throws Exception {
    if (gcs != null) {
      gcs.close();
    }
  }

  @Override
  protected BackupStore newStore() {
    return gcs.newStore();
  }

  @Override
  protected boolean listingHasChecksums() {
    return true;
  }

  @Test
  void aMissingBucketIsAnUnavailableStoreNeverAnEmptyOne() {
    GcsBackupStore noBucket = gcs.missingBucket();

    Map<String, ThrowingConsumer<GcsBackupStore>> operations = Map.of(
        "create", s -> s.create("a/b", new ByteArrayInputStream(new byte[] {1})),
        "stat", s -> s.stat("a/b"),
        "open", s -> s.open("a/b"),
        "list", s -> s.list("a/"),
        "delete", s -> s.delete("a/b"));
    operations.forEach((name, operation) -> {
      assertThat(catchThrowable(() -> operation.accept(noBucket))).as(name)
          .isInstanceOfSatisfying(BackupStoreUnavailableException.class,
              e -> assertThat(e.store()).isEqualTo("gs://no-such-bucket"))
          .hasMessageStartingWith("gs://no-such-bucket: ")
          .hasMessageContaining("no such bucket");
    });
    assertThat(gcs.storage().get("no-such-bucket")).as("not created by a write").isNull();
  }

  @Test
  void anUnreachableServerIsAnUnavailableStoreNamingTheBucket() throws Exception {
    FakeGcsServer stopped = FakeGcsServer.start();
    try (Storage client = stopped.storage()) {
      client.create(BucketInfo.of("short-lived"));
      GcsBackupStore unreachable = new GcsBackupStore(client, "short-lived");
      unreachable.create("a/b", new ByteArrayInputStream(new byte[] {1}));
      stopped.close();

      Map<String, ThrowingConsumer<GcsBackupStore>> operations = Map.of(
          "create", s -> s.create("a/c", new ByteArrayInputStream(new byte[] {1})),
          "stat", s -> s.stat("a/b"),
          "open", s -> s.open("a/b").readAllBytes(),
          "read", s -> s.read("a/b"),
          "list", s -> s.list("a/"),
          "delete", s -> s.delete("a/b"));
      operations.forEach((name, operation) -> {
        assertThat(catchThrowable(() -> operation.accept(unreachable))).as(name)
            .isInstanceOfSatisfying(BackupStoreUnavailableException.class,
                e -> assertThat(e.store()).isEqualTo("gs://short-lived"))
            .hasMessageStartingWith("gs://short-lived: ");
      });
    } finally {
      stopped.close();
    }
  }

  @Test
  void anOutageDuringAnUploadIsTheStoresFailureNotTheSources() throws Exception {
    FakeGcsServer failing = FakeGcsServer.start();
    try (Storage client = failing.storage()) {
      client.create(BucketInfo.of("failing"));
      GcsBackupStore store = new GcsBackupStore(client, "failing");
      // The server stops once a whole 8 MiB chunk was sent; the source itself never fails.
      InputStream source = new SequenceInputStream(new ByteArrayInputStream(randomBytes(10 * MIB, 41)),
          new InputStream() {
            private final InputStream rest = new ByteArrayInputStream(randomBytes(10 * MIB, 42));
            private boolean stopped;

            @Override
            public int read() throws IOException {
              stopServer();
              return rest.read();
            }

            @Override
            public int read(byte[] b, int off, int len) throws IOException {
              stopServer();
              return rest.read(b, off, len);
            }

            private void stopServer() {
              if (!stopped) {
                stopped = true;
                failing.close();
              }
            }
          });

      assertThatThrownBy(() -> store.create("a/b", source))
          .isInstanceOfSatisfying(BackupStoreUnavailableException.class,
              e -> assertThat(e.store()).isEqualTo("gs://failing"))
          .hasMessageStartingWith("gs://failing: ")
          .hasMessageContaining("a/b");
    } finally {
      failing.close();
    }
  }
}
