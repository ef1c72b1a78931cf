package io.tenantry.controller.operator;

import com.google.cloud.kms.v1.KeyManagementServiceClient;
import com.google.cloud.kms.v1.KeyManagementServiceSettings;
import com.google.cloud.storage.StorageOptions;
import io.grpc.ClientInterceptor;
import io.tenantry.controller.config.OperatorConfig;
import io.tenantry.secretstore.GcsSecretStore;
import io.tenantry.secretstore.LocalSecretStore;
import io.tenantry.secretstore.SecretStore;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.List;

/**
 * Opens the secret store the configuration names. A local store must exist with its keyset
 * ({@link LocalSecretStore#open}): the operator never creates a store or a keyset, so a missing
 * directory or keyset fails the start, naming the file, instead of running on an empty store or a
 * new key ({@code tenantry-secrets init} makes a store).
 */
final class SecretStores {

  private SecretStores() {
  }

  /** @param kmsCalls sees every call of the Cloud KMS client (the operator times them) */
  static SecretStore open(OperatorConfig.SecretStore config, ClientInterceptor kmsCalls) {
    if (config.location().startsWith("gs://")) {
      try {
        KeyManagementServiceSettings kms = KeyManagementServiceSettings.newBuilder()
            .setTransportChannelProvider(KeyManagementServiceSettings.defaultGrpcTransportProviderBuilder()
                .setInterceptorProvider(() -> List.of(kmsCalls)).build())
            .build();
        return new GcsSecretStore(StorageOptions.getDefaultInstance().getService(), config.location().substring("gs://".length()),
            KeyManagementServiceClient.create(kms), config.kmsKeyName());
      } catch (IOException e) {
        throw new UncheckedIOException("cannot create the Cloud KMS client", e);
      }
    }
    Path directory = Path.of(config.location().substring("file:".length()));
    Path keyset = config.keysetFile() != null ? Path.of(config.keysetFile()) : directory.resolve("keyset.json");
    return LocalSecretStore.open(directory, keyset);
  }
}
