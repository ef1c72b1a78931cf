package io.tenantry.backup.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * What every {@link BackupStore} promises, run against each implementation: the bytes, size and
 * checksum that go in come out; an object is never replaced, not even by a racing create; a failed
 * source leaves nothing behind; a listing is exactly the objects under its prefix, sorted.
 */
abstract class BackupStoreContract {

  static final int MIB = 1 << 20;

  /** A new, empty store for each test. */
  protected abstract BackupStore newStore() throws Exception;

  /** Whether {@link BackupStore#list} fills in {@link StoredObject#crc32c} (the local store computes it in stat only). */
  protected abstract boolean listingHasChecksums();

  protected BackupStore store;

  @BeforeEach
  void newEmptyStore() throws Exception {
    store = newStore();
  }

  @Test
  void createdBytesComeBackWithTheirSizeAndChecksum() throws Exception {
    byte[] bytes = randomBytes(100_000, 1);
    String path = "backups/c/t-1/db/b1.dump.enc";

    StoredObject created = store.create(path, new ByteArrayInputStream(bytes));

    assertThat(created.path()).isEqualTo(path);
    assertThat(created.size()).isEqualTo(bytes.length);
    assertThat(created.crc32c()).isEqualTo(crc32c(bytes));
    assertThat(created.created()).isNotNull();
    StoredObject stat = store.stat(path).orElseThrow();
    assertThat(stat.path()).isEqualTo(path);
    assertThat(stat.size()).isEqualTo(bytes.length);
    assertThat(stat.crc32c()).isEqualTo(crc32c(bytes));
    assertThat(readAll(path)).isEqualTo(bytes);
    assertThat(store.read(path)).isEqualTo(bytes);
    List<StoredObject> listed = store.list("backups/c/t-1/db/");
    assertThat(listed).extracting(StoredObject::path).containsExactly(path);
    assertThat(listed.get(0).size()).isEqualTo(bytes.length);
    if (listingHasChecksums()) {
      assertThat(listed.get(0).crc32c()).isEqualTo(crc32c(bytes));
    }
  }

  @Test
  void anEmptyObjectRoundTrips() throws Exception {
    StoredObject created = store.create("empty", new ByteArrayInputStream(new byte[0]));

    assertThat(created.size()).isZero();
    assertThat(created.crc32c()).isEqualTo(crc32c(new byte[0]));
    assertThat(store.stat("empty").orElseThrow().size()).isZero();
    assertThat(readAll("empty")).isEmpty();
  }

  @Test
  void aLargeObjectRoundTrips() throws Exception {
    // More than two 8 MiB upload chunks, and not a multiple of one.
    byte[] bytes = randomBytes(20 * MIB + 12_345, 2);

    StoredObject created = store.create("large/object", new ByteArrayInputStream(bytes));

    assertThat(created.size()).isEqualTo(bytes.length);
    assertThat(created.crc32c()).isEqualTo(crc32c(bytes));
    assertThat(store.stat("large/object").orElseThrow().crc32c()).isEqualTo(crc32c(bytes));
    assertThat(readAll("large/object")).isEqualTo(bytes);
  }

  @Test
  void aSecondCreateAtThePathIsRefusedAndChangesNothing() throws Exception {
    byte[] first = randomBytes(5_000, 3);
    store.create("once", new ByteArrayInputStream(first));

    assertThatThrownBy(() -> store.create("once", new ByteArrayInputStream(randomBytes(6_000, 4))))
        .isInstanceOf(ObjectExistsException.class)
        .hasMessageContaining("once");

    assertThat(readAll("once")).isEqualTo(first);
    assertThat(store.stat("once").orElseThrow().crc32c()).isEqualTo(crc32c(first));
    assertThat(store.list("once")).hasSize(1);
  }

  @Test
  void ofTwoConcurrentCreatesOfOnePathExactlyOneSucceeds() throws Exception {
    ExecutorService threads = Executors.newFixedThreadPool(2);
    try {
      for (int round = 0; round < 5; round++) {
        String path = "race/" + round;
        // Both streams end only once both creates have read their first bytes: the two are in flight together.
        CyclicBarrier bothStarted = new CyclicBarrier(2);
        byte[] a = randomBytes(70_000, 10 + round);
        byte[] b = randomBytes(80_000, 20 + round);
        Future<StoredObject> first = threads.submit(() -> store.create(path, new MeetingStream(a, bothStarted)));
        Future<StoredObject> second = threads.submit(() -> store.create(path, new MeetingStream(b, bothStarted)));

        List<byte[]> winners = new ArrayList<>();
        List<Throwable> losers = new ArrayList<>();
        collect(first, a, winners, losers);
        collect(second, b, winners, losers);

        assertThat(winners).as("round %d: successful creates", round).hasSize(1);
        assertThat(losers).as("round %d: refused creates", round).singleElement()
            .isInstanceOf(ObjectExistsException.class);
        assertThat(readAll(path)).as("round %d: the winner's bytes", round).isEqualTo(winners.get(0));
      }
    } finally {
      threads.shutdownNow();
    }
  }

  @Test
  void aSourceThatFailsHalfWayLeavesNothing() throws Exception {
    // 12 MiB before the failure: a whole upload chunk has reached Cloud Storage.
    byte[] bytes = randomBytes(12 * MIB, 5);
    InputStream failing = new FailingStream(bytes);

    assertThatThrownBy(() -> store.create("failed/object", failing))
        .isInstanceOf(SourceFailedException.class)
        .hasMessageContaining("failed/object")
        .hasRootCauseMessage("the source broke");

    assertThat(store.stat("failed/object")).isEmpty();
    assertThat(store.list("failed/")).isEmpty();
    assertThat(store.list("")).isEmpty();
    assertThatThrownBy(() -> store.open("failed/object")).isInstanceOf(NoSuchObjectException.class);
    // The failure did not take the path: the upload can be sent again.
    byte[] retry = randomBytes(1_000, 6);
    store.create("failed/object", new ByteArrayInputStream(retry));
    assertThat(readAll("failed/object")).isEqualTo(retry);
  }

  @Test
  void aListingIsTheObjectsUnderItsPrefixSorted() {
    for (String path : List.of("p/a/9", "p/a/10", "p/a/sub/x", "p/a-z", "p/ab", "p/b/1", "q/a/1")) {
      store.create(path, new ByteArrayInputStream(path.getBytes()));
    }

    assertThat(store.list("p/a/")).extracting(StoredObject::path).containsExactly("p/a/10", "p/a/9", "p/a/sub/x");
    assertThat(store.list("p/a")).extracting(StoredObject::path)
        .containsExactly("p/a-z", "p/a/10", "p/a/9", "p/a/sub/x", "p/ab");
    assertThat(store.list("p/")).extracting(StoredObject::path)
        .containsExactly("p/a-z", "p/a/10", "p/a/9", "p/a/sub/x", "p/ab", "p/b/1");
    assertThat(store.list("")).hasSize(7);
    assertThat(store.list("p/a/sub/")).singleElement().satisfies(o -> assertThat(o.size()).isEqualTo(9));
    assertThat(store.list("p/c/")).isEmpty();
    assertThat(store.list("unused/prefix/")).isEmpty();
    assertThat(store.list("p/a/1")).extracting(StoredObject::path).containsExactly("p/a/10");
  }

  @Test
  void deleteRemovesAndDeletingNothingIsFine() throws Exception {
    store.create("gone/object", new ByteArrayInputStream(new byte[] {1, 2, 3}));
    store.create("gone/kept", new ByteArrayInputStream(new byte[] {4}));

    store.delete("gone/object");

    assertThat(store.stat("gone/object")).isEmpty();
    assertThatThrownBy(() -> store.open("gone/object")).isInstanceOf(NoSuchObjectException.class);
    assertThat(store.list("gone/")).extracting(StoredObject::path).containsExactly("gone/kept");
    store.delete("gone/object");
    store.delete("never/was");
    assertThat(readAll("gone/kept")).containsExactly(4);
  }

  @Test
  void aMissingObjectIsNoSuchObject() {
    assertThat(store.stat("missing/object")).isEmpty();
    assertThatThrownBy(() -> store.open("missing/object"))
        .isInstanceOf(NoSuchObjectException.class)
        .hasMessage(store.describe() + ": no object at missing/object");
    assertThatThrownBy(() -> store.read("missing/object")).isInstanceOf(NoSuchObjectException.class);
  }

  // ---------------------------------------------------------------------------------------------

  protected byte[] readAll(String path) throws IOException {
    try (InputStream in = store.open(path)) {
      return in.readAllBytes();
    }
  }

  static String crc32c(byte[] bytes) {
    CRC32C crc = new CRC32C();
    crc.update(bytes);
    return Crc32cs.base64(crc);
  }

  static byte[] randomBytes(int size, long seed) {
    byte[] bytes = new byte[size];
    new Random(seed).nextBytes(bytes);
    return bytes;
  }

  private static void collect(Future<StoredObject> create, byte[] bytes, List<byte[]> winners, List<Throwable> losers)
      throws Exception {
    try {
      create.get(60, TimeUnit.SECONDS);
      winners.add(bytes);
    } catch (java.util.concurrent.ExecutionException e) {
      losers.add(e.getCause());
    }
  }

  /** Its bytes, then an IOException where the rest should be: a client that went away. */
  static final class FailingStream extends InputStream {
    private final ByteArrayInputStream bytes;

    FailingStream(byte[] bytes) {
      this.bytes = new ByteArrayInputStream(bytes);
    }

    @Override
    public int read() throws IOException {
      byte[] one = new byte[1];
      return read(one, 0, 1) < 0 ? -1 : one[0] & 0xff;
    }

    @Override
    public int read(byte[] b, int off, int len) throws IOException {
      int n = bytes.read(b, off, len);
      if (n < 0) {
        throw new IOException("the source broke");
      }
      return n;
    }
  }

  /** Its bytes, but its end only after the other stream of the pair has been read from too. */
  private static final class MeetingStream extends InputStream {
    private final ByteArrayInputStream bytes;
    private final CyclicBarrier barrier;
    private boolean met;

    MeetingStream(byte[] bytes, CyclicBarrier barrier) {
      this.bytes = new ByteArrayInputStream(bytes);
      this.barrier = barrier;
    }

    @Override
    public int read() throws IOException {
      byte[] one = new byte[1];
      return read(one, 0, 1) < 0 ? -1 : one[0] & 0xff;
    }

    @Override
    public int read(byte[] b, int off, int len) throws IOException {
      int n = bytes.read(b, off, len);
      if (n < 0 && !met) {
        met = true;
        try {
          barrier.await(30, TimeUnit.SECONDS);
        } catch (Exception e) {
          throw new IOException("the other create never started", e);
        }
      }
      return n;
    }
  }
}
