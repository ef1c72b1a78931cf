package io.tenantry.secretstore.cli;

import com.google.api.gax.core.NoCredentialsProvider;
import com.google.cloud.NoCredentials;
import com.google.cloud.kms.v1.KeyManagementServiceClient;
import com.google.cloud.kms.v1.KeyManagementServiceSettings;
import com.google.cloud.storage.Storage;
import com.google.cloud.storage.StorageOptions;
import io.grpc.ManagedChannelBuilder;
import io.tenantry.secretstore.GcsSecretStore;
import io.tenantry.secretstore.InvalidInputException;
import io.tenantry.secretstore.KeyUnavailableException;
import io.tenantry.secretstore.LocalKeyset;
import io.tenantry.secretstore.LocalSecretStore;
import io.tenantry.secretstore.SecretStore;
import io.tenantry.secretstore.StoreUnavailableException;
import java.io.IOException;
import java.io.PrintStream;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;

/** Which store the CLI works on, from the global options; {@link #open} makes the store. */
sealed interface StoreChoice permits StoreChoice.Local, StoreChoice.Gcs {

  /**
   * The store, ready to use. {@code mayCreateKeyset}: whether a missing local keyset may be created
   * (only {@code push} writes; any other command with a mistyped {@code --keyset} must fail rather
   * than leave a new, useless key behind).
   */
  OpenedStore open(boolean mayCreateKeyset, PrintStream err);

  /** A store and the clients it uses, which the CLI owns and closes. */
  record OpenedStore(SecretStore store, List<AutoCloseable> clients) implements AutoCloseable {
    @Override
    public void close() {
      for (AutoCloseable client : clients) {
        try {
          client.close();
        } catch (Exception e) {
          // The command's outcome is already decided and printed; a client that fails to shut down
          // cleanly changes nothing the user can act on, and the process is about to exit.
        }
      }
    }
  }

  /** The global options as given; {@code null} for each one absent. */
  static StoreChoice of(String store, String keyset, String kmsKey, String gcsEndpoint, String kmsEndpoint,
      Path home) {
    String spec = store == null ? "file:" + home.resolve(".local/share/tenantry/secret-store") : store;
    if (spec.startsWith("gs://")) {
      if (keyset != null) {
        throw new UsageException("option --keyset applies to a file: store only; a gs:// store uses --kms-key");
      }
      if (kmsKey == null) {
        throw new UsageException("option --kms-key is required with --store gs://<bucket>");
      }
      return new Gcs(bucket(spec), kmsKey, gcsEndpoint == null ? null : httpUrl(gcsEndpoint),
          kmsEndpoint == null ? null : hostPort(kmsEndpoint));
    }
    if (spec.startsWith("file:")) {
      for (String[] option : new String[][] {{"--kms-key", kmsKey}, {"--gcs-endpoint", gcsEndpoint},
          {"--kms-endpoint", kmsEndpoint}}) {
        if (option[1] != null) {
          throw new UsageException("option " + option[0] + " applies to a gs:// store only");
        }
      }
      Path dir = directory(spec);
      return new Local(dir, keyset == null ? dir.resolve("keyset.json") : path("--keyset", keyset));
    }
    throw new UsageException("option --store must be file:<dir> or gs://<bucket>: \"" + spec + "\"");
  }

  /** A directory and a Tink keyset file ({@link LocalSecretStore}). */
  record Local(Path dir, Path keyset) implements StoreChoice {

    @Override
    public OpenedStore open(boolean mayCreateKeyset, PrintStream err) {
      if (!Files.exists(keyset) && !mayCreateKeyset) {
        throw new KeyUnavailableException("keyset file " + keyset + " does not exist: give the store's keyset"
            + " with --keyset FILE (only push creates one, for a new store)", null);
      }
      if (Files.exists(keyset)) {
        return new OpenedStore(new LocalSecretStore(dir, LocalKeyset.load(keyset)), List.of());
      }
      // A store that already holds secrets was written under some other keyset: a new one here
      // would encrypt this secret under a key nothing else shares. The folders are the store's
      // layout (template/ and tenants/<tenant>/, see the secretstore package).
      if (Files.exists(dir.resolve("template")) || Files.exists(dir.resolve("tenants"))) {
        throw new KeyUnavailableException("keyset file " + keyset + " does not exist, but " + dir
            + " already holds secrets: give the keyset they were written with (--keyset FILE)", null);
      }
      LocalSecretStore store = LocalSecretStore.open(dir, keyset);
      err.println("Created a new keyset " + keyset + "; without it the store cannot be read, so keep a copy"
          + " somewhere safe.");
      return new OpenedStore(store, List.of());
    }
  }

  /** A Cloud Storage bucket and a Cloud KMS key ({@link GcsSecretStore}); endpoints only for testing. */
  record Gcs(String bucket, String kmsKey, String gcsEndpoint, String kmsEndpoint) implements StoreChoice {

    @Override
    public OpenedStore open(boolean mayCreateKeyset, PrintStream err) {
      List<AutoCloseable> clients = new ArrayList<>();
      OpenedStore opened = new OpenedStore(null, clients);
      try {
        Storage storage = storage();
        clients.add(storage);
        KeyManagementServiceClient kms = kms();
        clients.add(kms);
        return new OpenedStore(new GcsSecretStore(storage, bucket, kms, kmsKey), clients);
      } catch (InvalidInputException e) {
        opened.close();
        throw new UsageException("option --kms-key: " + e.getMessage());
      } catch (RuntimeException e) {
        opened.close();
        throw e;
      }
    }

    private Storage storage() {
      StorageOptions.Builder options = StorageOptions.newBuilder();
      if (gcsEndpoint != null) {
        // An emulator such as fake-gcs-server takes no credentials.
        options.setHost(gcsEndpoint).setCredentials(NoCredentials.getInstance());
      }
      return options.build().getService();
    }

    private KeyManagementServiceClient kms() {
      KeyManagementServiceSettings.Builder settings = KeyManagementServiceSettings.newBuilder();
      if (kmsEndpoint != null) {
        // Plaintext and unauthenticated: this is for a local fake; credentials must never travel in clear.
        settings.setCredentialsProvider(NoCredentialsProvider.create())
            .setTransportChannelProvider(KeyManagementServiceSettings.defaultGrpcTransportProviderBuilder()
                .setEndpoint(kmsEndpoint)
                .setChannelConfigurator(ManagedChannelBuilder::usePlaintext)
                .build());
      }
      try {
        return KeyManagementServiceClient.create(settings.build());
      } catch (IOException e) {
        throw new StoreUnavailableException("cannot create a Cloud KMS client"
            + (kmsEndpoint == null ? "" : " for " + kmsEndpoint) + ": " + e.getMessage(), e);
      }
    }
  }

  private static String bucket(String spec) {
    String bucket = spec.substring("gs://".length());
    if (bucket.endsWith("/")) {
      bucket = bucket.substring(0, bucket.length() - 1);
    }
    if (bucket.isEmpty() || bucket.contains("/")) {
      throw new UsageException("option --store: gs://<bucket> names a bucket, without a folder: \"" + spec + "\"");
    }
    return bucket;
  }

  private static Path directory(String spec) {
    if (spec.startsWith("file://")) {
      try {
        return Path.of(new URI(spec));
      } catch (URISyntaxException | IllegalArgumentException e) {
        throw new UsageException("option --store: not a file URI: \"" + spec + "\"");
      }
    }
    String dir = spec.substring("file:".length());
    if (dir.isEmpty()) {
      throw new UsageException("option --store: file:<dir> needs a directory");
    }
    return path("--store", dir);
  }

  private static Path path(String option, String value) {
    try {
      return Path.of(value);
    } catch (InvalidPathException e) {
      throw new UsageException("option " + option + ": not a valid path: \"" + value + "\"");
    }
  }

  private static String httpUrl(String value) {
    try {
      URI uri = new URI(value);
      if (("http".equals(uri.getScheme()) || "https".equals(uri.getScheme())) && uri.getHost() != null) {
        return value;
      }
    } catch (URISyntaxException e) {
      // Refused below, with the option named.
    }
    throw new UsageException("option --gcs-endpoint must be an http:// or https:// URL: \"" + value + "\"");
  }

  private static String hostPort(String value) {
    if (!Pattern.matches("[^:/\\s]+:[0-9]{1,5}", value)) {
      throw new UsageException("option --kms-endpoint must be host:port: \"" + value + "\"");
    }
    return value;
  }
}
