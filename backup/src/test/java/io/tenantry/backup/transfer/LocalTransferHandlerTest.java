package io.tenantry.backup.transfer;

import io.tenantry.backup.store.BackupStore;
import io.tenantry.backup.store.LocalBackupStore;
import java.nio.file.Files;

/** The transfer endpoint over the directory store. */
class LocalTransferHandlerTest extends TransferHandlerContract {

  @Override
  protected BackupStore newStore() throws Exception {
    return new LocalBackupStore(Files.createDirectories(temp.resolve("backups-root")));
  }

  /** An unmounted volume. */
  @Override
  protected BackupStore unavailableStore() {
    return new LocalBackupStore(temp.resolve("unmounted"));
  }
}
