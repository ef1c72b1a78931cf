package io.tenantry.backup.store;

import com.google.cloud.storage.BucketInfo;
import com.google.cloud.storage.Storage;
import io.tenantry.secretstore.FakeGcsServer;
import java.util.concurrent.atomic.AtomicInteger;

/** A fake-gcs-server process for a test class, with a bucket of its own for each test. */
public final class GcsBuckets implements AutoCloseable {

  private final AtomicInteger buckets = new AtomicInteger();
  private final String prefix;
  private final FakeGcsServer gcs;
  private final Storage storage;

  private GcsBuckets(String prefix, FakeGcsServer gcs) {
    this.prefix = prefix;
    this.gcs = gcs;
    this.storage = gcs.storage();
  }

  public static GcsBuckets start(String prefix) throws Exception {
    return new GcsBuckets(prefix, FakeGcsServer.start());
  }

  /** A store on a new, empty bucket. */
  public GcsBackupStore newStore() {
    String bucket = prefix + "-" + buckets.incrementAndGet();
    storage.create(BucketInfo.of(bucket));
    return new GcsBackupStore(storage, bucket);
  }

  /** A store whose bucket does not exist. */
  public GcsBackupStore missingBucket() {
    return new GcsBackupStore(storage, "no-such-bucket");
  }

  public Storage storage() {
    return storage;
  }

  @Override
  public void close() throws Exception {
    try {
      storage.close();
    } finally {
      gcs.close();
    }
  }
}
