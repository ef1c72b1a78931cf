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

/**
 * Which store the CLI works on, from the global options; {@link #open} opens the existing store,
 * {@link #init} makes a new one.
 */
sealed interface StoreChoice permits StoreChoice.Local, StoreChoice.Gcs {

  /**
   * The existing store, ready to use. Creates nothing: a missing local store or keyset fails (a
   * mistyped {@code --store} or {@code --keyset} must not leave a new, useless store or key behind).
   */
  OpenedStore open();

  /**
   * {@code init}: makes a new local store, or leaves an existing one as it is (so that scripts can
   * run it every time); prints what it did.
   */
  OpenedStore init(PrintStream out, PrintStream err);

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
    public OpenedStore open() {
      return new OpenedStore(LocalSecretStore.open(dir, keyset), List.of());
    }

    @Override
    public OpenedStore init(PrintStream out, PrintStream err) {
      try {
        LocalSecretStore existing = LocalSecretStore.open(dir, keyset);
        out.println("secret store " + dir + " already exists, with keyset " + keyset + "; nothing changed");
        return new OpenedStore(existing, List.of());
      } catch (StoreUnavailableException e) {
        // No store there yet (or an empty directory): made below. A store that exists without its keyset
        // fails in open with KeyUnavailableException: a new key would read none of its secrets.
      }
      boolean newKeyset = !Files.exists(keyset);
      LocalSecretStore store = LocalSecretStore.init(dir, keyset);
      out.println("initialized an empty secret store in " + dir + " with " + (newKeyset ? "a new" : "the existing")
          + " keyset " + keyset);
      if (newKeyset) {
        err.println("Without the keyset " + keyset + " the store cannot be read: keep a copy somewhere safe.");
      }
      return new OpenedStore(store, List.of());
    }
  }

  /** A Cloud Storage bucket and a Cloud KMS key ({@link GcsSecretStore}); endpoints only for testing. */
  record Gcs(String bucket, String kmsKey, String gcsEndpoint, String kmsEndpoint) implements StoreChoice {

    @Override
    public OpenedStore init(PrintStream out, PrintStream err) {
      throw new UsageException(InitCommand.NAME + " makes a file: store; a gs:// store is a Cloud Storage bucket and a"
          + " Cloud KMS key, made with gcloud (gcloud storage buckets create, gcloud kms keys create)");
    }

    @Override
    public OpenedStore open() {
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
