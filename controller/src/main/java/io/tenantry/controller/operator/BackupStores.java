package io.tenantry.controller.operator;

import com.google.cloud.kms.v1.KeyManagementServiceClient;
import com.google.cloud.storage.StorageOptions;
import com.google.crypto.tink.Aead;
import com.google.crypto.tink.aead.KmsEnvelopeAead;
import com.google.crypto.tink.aead.PredefinedAeadParameters;
import com.google.crypto.tink.integration.gcpkms.GcpKmsAead;
import io.tenantry.backup.store.BackupStore;
import io.tenantry.backup.store.GcsBackupStore;
import io.tenantry.backup.store.LocalBackupStore;
import io.tenantry.backup.transfer.TransferTokens;
import io.tenantry.controller.backup.BackupRuntime;
import io.tenantry.controller.config.OperatorConfig;
import io.tenantry.secretstore.LocalKeyset;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.Clock;

/**
 * Opens what backups need from the configuration: the backup store, and the secret store's key,
 * which wraps every backup's key and seals manifests and transfer tokens (a local keyset, or the
 * Cloud KMS key through an envelope). Public so that tenantctl ({@code backups list}) reads a
 * store exactly as the operator that writes it: one way to open them.
 */
public final class BackupStores {

  private BackupStores() {
  }

  /** The operator's backup runtime; null when backups are off. */
  static BackupRuntime open(OperatorConfig config) {
    if (!config.backups().enabled()) {
      return null;
    }
    Aead kek = kek(config.secretStore());
    return new BackupRuntime(store(config.backups()), kek, new TransferTokens(kek, Clock.systemUTC()),
        config.backupTransferUrl(), config.fleet().clusterName());
  }

  /** The store at {@code backups.location}: {@code gs://bucket} or {@code file:<directory>}. */
  public static BackupStore store(OperatorConfig.Backups backups) {
    return backups.location().startsWith("gs://")
        ? new GcsBackupStore(StorageOptions.getDefaultInstance().getService(), backups.location().substring("gs://".length()))
        : new LocalBackupStore(Path.of(backups.location().substring("file:".length())));
  }

  /**
   * The secret store's key: its Cloud KMS key (through an envelope) for a {@code gs://} store, else
   * the keyset at {@code keysetFile}, by default {@code <directory>/keyset.json}; never created here.
   */
  public static Aead kek(OperatorConfig.SecretStore secrets) {
    if (secrets.location().startsWith("gs://")) {
      try {
        Aead kms = GcpKmsAead.builder().setKeyManagementServiceClient(KeyManagementServiceClient.create())
            .setKeyName(secrets.kmsKeyName()).build();
        return KmsEnvelopeAead.create(PredefinedAeadParameters.AES256_GCM, kms);
      } catch (IOException e) {
        throw new UncheckedIOException("cannot create the Cloud KMS client", e);
      } catch (java.security.GeneralSecurityException e) {
        throw new IllegalStateException("cannot use the Cloud KMS key " + secrets.kmsKeyName() + ": " + e.getMessage(), e);
      }
    }
    Path directory = Path.of(secrets.location().substring("file:".length()));
    return LocalKeyset.load(secrets.keysetFile() != null ? Path.of(secrets.keysetFile()) : directory.resolve("keyset.json"));
  }
}
