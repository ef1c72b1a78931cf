package io.tenantry.backup.transfer;

import com.google.cloud.storage.BucketInfo;
import com.google.cloud.storage.Storage;
import io.tenantry.backup.store.BackupStore;
import io.tenantry.backup.store.GcsBackupStore;
import io.tenantry.secretstore.FakeGcsServer;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/** The transfer endpoint over the Cloud Storage store, on a fake-gcs-server process. */
class GcsTransferHandlerIT extends TransferHandlerContract {

  private static final AtomicInteger buckets = new AtomicInteger();
  private static FakeGcsServer gcs;
  private static Storage storage;

  @BeforeAll
  static void start() throws Exception {
    gcs = FakeGcsServer.start();
    storage = gcs.storage();
  }

  @AfterAll
  static void stop() throws Exception {
    try {
      if (storage != null) {
        storage.close();
      }
    } finally {
      if (gcs != null) {
        gcs.close();
      }
    }
  }

  /** A bucket of its own for each test. */
  @Override
  protected BackupStore newStore() {
    String bucket = "transfers-" + buckets.incrementAndGet();
    storage.create(BucketInfo.of(bucket));
    return new GcsBackupStore(storage, bucket);
  }

  @Override
  protected BackupStore unavailableStore() {
    return new GcsBackupStore(storage, "no-such-bucket");
  }
}
