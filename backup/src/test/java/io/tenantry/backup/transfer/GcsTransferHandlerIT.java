package io.tenantry.backup.transfer;

import io.tenantry.backup.store.BackupStore;
import io.tenantry.backup.store.GcsBuckets;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/** The transfer endpoint over the Cloud Storage store, on a fake-gcs-server process. */
class GcsTransferHandlerIT extends TransferHandlerContract {

  private static GcsBuckets gcs;

  @BeforeAll
  static void start() throws Exception {
    gcs = GcsBuckets.start("transfers");
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
  protected BackupStore unavailableStore() {
    return gcs.missingBucket();
  }
}
