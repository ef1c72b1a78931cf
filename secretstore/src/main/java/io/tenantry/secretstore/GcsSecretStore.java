package io.tenantry.secretstore;

import com.google.api.gax.paging.Page;
import com.google.api.gax.rpc.StatusCode;
import com.google.cloud.kms.v1.KeyManagementServiceClient;
import com.google.cloud.storage.Blob;
import com.google.cloud.storage.BlobId;
import com.google.cloud.storage.BlobInfo;
import com.google.cloud.storage.Storage;
import com.google.cloud.storage.Storage.BlobListOption;
import com.google.cloud.storage.Storage.BlobTargetOption;
import com.google.cloud.storage.StorageException;
import com.google.crypto.tink.Aead;
import com.google.crypto.tink.aead.KmsEnvelopeAead;
import com.google.crypto.tink.aead.PredefinedAeadParameters;
import com.google.crypto.tink.integration.gcpkms.GcpKmsAead;
import java.security.GeneralSecurityException;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The Google store: one object per secret in a Cloud Storage bucket, named by its path (see
 * {@link SecretFormat}), each envelope-encrypted with Tink's {@code KmsEnvelopeAead}: a fresh
 * AES256_GCM data key per write encrypts the canonical encoding with the path as associated data,
 * and the Cloud KMS key encrypts the data key (through the gRPC {@link KeyManagementServiceClient},
 * by tink-gcpkms's {@code GcpKmsAead}). The object holds Tink's envelope: the encrypted data key's
 * length and bytes, then the ciphertext.
 *
 * <ul>
 *   <li>Version: the object's generation, which Cloud Storage changes on every write.
 *   <li>Concurrency: an object write is atomic, so readers see one writer's complete secret, and
 *       the version returned is the generation that write created. {@link #put} is last-writer-wins.
 *       {@link #create} writes with {@code ifGenerationMatch=0} and {@link #replace} with
 *       {@code ifGenerationMatch=<expected>}: of concurrent writers exactly one succeeds and the
 *       others get {@link SecretConflictException}; being conditional, the client may also retry
 *       them safely after a timeout without overwriting a newer write.
 *   <li>Reads fetch the exact generation whose metadata they read, so version and data always match.
 *   <li>A missing bucket is an error ({@link StoreUnavailableException}, "no such bucket"), never a
 *       store without secrets: listing fails, and so does a read or delete that finds no object.
 *   <li>{@link #list} needs each secret's content hash, which is not stored in clear: it decrypts
 *       each generation once and remembers its hash in memory (generations are immutable), so a
 *       steady-state listing costs one Cloud Storage call and no KMS call.
 * </ul>
 *
 * <p>The store does not own the clients it is given and does not close them.
 */
public final class GcsSecretStore implements SecretStore {

  private static final Logger log = LoggerFactory.getLogger(GcsSecretStore.class);
  /** Reads of a generation replaced between reading its metadata and its content start over. */
  private static final int READ_ATTEMPTS = 3;

  private final Storage storage;
  private final String bucket;
  private final String kmsKeyName;
  private final Aead envelope;
  private final ConcurrentMap<String, CachedHash> hashes = new ConcurrentHashMap<>();

  private record CachedHash(long generation, String contentHash) {
  }

  /**
   * A store in {@code bucket}, envelope-encrypting with the Cloud KMS key {@code kmsKeyName}
   * ({@code projects/<p>/locations/<l>/keyRings/<r>/cryptoKeys/<k>}) through {@code kms}.
   */
  public GcsSecretStore(Storage storage, String bucket, KeyManagementServiceClient kms, String kmsKeyName) {
    this.storage = Objects.requireNonNull(storage, "storage");
    Objects.requireNonNull(kms, "kms");
    if (bucket == null || bucket.isBlank() || bucket.contains("/")) {
      throw new InvalidInputException("bucket", "bucket must be a Cloud Storage bucket name: \"" + bucket + "\"");
    }
    this.bucket = bucket;
    this.kmsKeyName = kmsKeyName;
    TinkSetup.ensureRegistered();
    Aead kmsAead;
    try {
      kmsAead = GcpKmsAead.builder().setKeyManagementServiceClient(kms).setKeyName(kmsKeyName).build();
    } catch (GeneralSecurityException e) {
      throw new InvalidInputException("kmsKeyName",
          "kmsKeyName must be projects/<project>/locations/<location>/keyRings/<ring>/cryptoKeys/<key>: \""
              + kmsKeyName + "\"");
    }
    try {
      this.envelope = KmsEnvelopeAead.create(PredefinedAeadParameters.AES256_GCM, new KmsCallAead(kmsAead));
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("Tink refuses AES256_GCM as data key type", e);
    }
  }

  @Override
  public Optional<StoredSecret> get(Scope scope, String name) {
    String path = SecretFormat.path(scope, name);
    for (int attempt = 1; attempt <= READ_ATTEMPTS; attempt++) {
      Blob blob = call("read " + path, () -> storage.get(BlobId.of(bucket, path)));
      if (blob == null) {
        requireBucket("read " + path);
        return Optional.empty();
      }
      Optional<byte[]> bytes = readGeneration(path, blob.getGeneration());
      if (bytes.isPresent()) {
        return Optional.of(decrypt(scope, name, path, blob, bytes.get()));
      }
      log.debug("{} generation {} was replaced while being read; reading again", path, blob.getGeneration());
    }
    throw new StoreUnavailableException("cannot read " + path + " from bucket " + bucket + ": it was replaced "
        + READ_ATTEMPTS + " times while being read", null);
  }

  @Override
  public List<SecretMetadata> list(Scope scope) {
    String prefix = scope.path() + "/";
    List<Blob> blobs = call("list " + prefix, () -> {
      List<Blob> all = new ArrayList<>();
      Page<Blob> page = storage.list(bucket, BlobListOption.prefix(prefix));
      page.iterateAll().forEach(all::add);
      return all;
    });
    List<SecretMetadata> secrets = new ArrayList<>();
    for (Blob blob : blobs) {
      String name = blob.getName().substring(prefix.length());
      if (!isSecretName(name)) {
        continue;
      }
      CachedHash cached = hashes.get(blob.getName());
      if (cached != null && cached.generation() == blob.getGeneration()) {
        secrets.add(new SecretMetadata(scope, name, Long.toString(blob.getGeneration()), cached.contentHash(),
            updated(blob)));
        continue;
      }
      Optional<byte[]> bytes = readGeneration(blob.getName(), blob.getGeneration());
      if (bytes.isPresent()) {
        secrets.add(decrypt(scope, name, blob.getName(), blob, bytes.get()).metadata());
      } else {
        // Replaced or deleted since the listing: report what is there now.
        get(scope, name).ifPresent(secret -> secrets.add(secret.metadata()));
      }
    }
    secrets.sort(Comparator.comparing(SecretMetadata::name));
    return secrets;
  }

  @Override
  public String put(Scope scope, String name, Map<String, byte[]> data) {
    return write(scope, name, data, Optional.empty());
  }

  @Override
  public String create(Scope scope, String name, Map<String, byte[]> data) {
    // Generation 0 matches only an object that does not exist.
    return write(scope, name, data, Optional.of(0L));
  }

  @Override
  public String replace(Scope scope, String name, Map<String, byte[]> data, String expectedVersion) {
    long generation;
    try {
      generation = Long.parseLong(expectedVersion == null ? "" : expectedVersion);
    } catch (NumberFormatException e) {
      generation = 0;
    }
    if (generation <= 0) {
      throw new InvalidInputException("expectedVersion",
          "expectedVersion must be a version read from this store (an object generation): \"" + expectedVersion + "\"");
    }
    return write(scope, name, data, Optional.of(generation));
  }

  @Override
  public boolean delete(Scope scope, String name) {
    String path = SecretFormat.path(scope, name);
    boolean deleted = call("delete " + path, () -> storage.delete(BlobId.of(bucket, path)));
    hashes.remove(path);
    if (deleted) {
      log.debug("Deleted {} from {}", path, location());
    } else {
      requireBucket("delete " + path);
    }
    return deleted;
  }

  @Override
  public int deleteScope(Scope scope) {
    String prefix = scope.path() + "/";
    List<BlobId> objects = call("list " + prefix, () -> {
      List<BlobId> ids = new ArrayList<>();
      storage.list(bucket, BlobListOption.prefix(prefix)).iterateAll().forEach(blob -> ids.add(blob.getBlobId()));
      return ids;
    });
    int secrets = 0;
    for (BlobId object : objects) {
      // Unconditional: whatever generation is there now goes, as the whole scope is being purged.
      boolean deleted = call("delete " + object.getName(), () -> storage.delete(BlobId.of(bucket, object.getName())));
      hashes.remove(object.getName());
      if (deleted && isSecretName(object.getName().substring(prefix.length()))) {
        secrets++;
      }
    }
    log.info("Deleted the {} secrets of {} from {}", secrets, scope, location());
    return secrets;
  }

  @Override
  public String location() {
    return "gs://" + bucket;
  }

  /** {@code expectedGeneration}: none for an unconditional write, 0 for "must not exist". */
  private String write(Scope scope, String name, Map<String, byte[]> data, Optional<Long> expectedGeneration) {
    String path = SecretFormat.path(scope, name);
    byte[] plaintext = SecretFormat.canonical(data);
    byte[] ciphertext;
    try {
      ciphertext = envelope.encrypt(plaintext, SecretFormat.associatedData(path));
    } catch (GeneralSecurityException e) {
      throw kmsFailure("encrypt", path, e);
    }
    BlobInfo info = BlobInfo.newBuilder(BlobId.of(bucket, path)).setContentType("application/octet-stream").build();
    BlobTargetOption[] conditions = expectedGeneration
        .map(generation -> new BlobTargetOption[] {BlobTargetOption.generationMatch(generation)})
        .orElse(new BlobTargetOption[0]);
    Blob written;
    try {
      written = storage.create(info, ciphertext, conditions);
    } catch (StorageException e) {
      if (e.getCode() == 412) {
        throw new SecretConflictException(path, expectedGeneration.get() == 0
            ? path + " already exists in bucket " + bucket
            : path + " in bucket " + bucket + " is no longer at version " + expectedGeneration.get(), e);
      }
      throw unavailable("write " + path, e);
    }
    hashes.put(path, new CachedHash(written.getGeneration(), SecretFormat.contentHash(data)));
    log.debug("Wrote {} version {} to {}", path, written.getGeneration(), location());
    return Long.toString(written.getGeneration());
  }

  /** The bytes of exactly that generation, or empty when it has been replaced or deleted since. */
  private Optional<byte[]> readGeneration(String path, long generation) {
    try {
      return Optional.of(storage.readAllBytes(BlobId.of(bucket, path, generation)));
    } catch (StorageException e) {
      if (e.getCode() == 404) {
        return Optional.empty();
      }
      throw unavailable("read " + path, e);
    }
  }

  private StoredSecret decrypt(Scope scope, String name, String path, Blob blob, byte[] ciphertext) {
    byte[] plaintext;
    try {
      plaintext = envelope.decrypt(ciphertext, SecretFormat.associatedData(path));
    } catch (GeneralSecurityException e) {
      throw kmsFailure("decrypt", path, e);
    }
    Map<String, byte[]> data = SecretFormat.decode(path, plaintext);
    String contentHash = SecretFormat.contentHash(data);
    hashes.put(path, new CachedHash(blob.getGeneration(), contentHash));
    return new StoredSecret(
        new SecretMetadata(scope, name, Long.toString(blob.getGeneration()), contentHash, updated(blob)), data);
  }

  /**
   * Sorts an envelope failure: a KMS that did not answer, a KMS key that cannot be used, or (what is
   * left, including the KMS refusing to decrypt the data key) a secret that does not decrypt.
   */
  private RuntimeException kmsFailure(String operation, String path, GeneralSecurityException e) {
    if (!(e instanceof KmsCallAead.KmsCallException call)) {
      if (operation.equals("encrypt")) {
        return new IllegalStateException("cannot encrypt " + path + " with a new data key", e);
      }
      return new CorruptSecretException(path, e);
    }
    Optional<StatusCode.Code> code = call.statusCode();
    String status = code.map(Enum::name).orElse("client error");
    if (code.isPresent()) {
      switch (code.get()) {
        case INVALID_ARGUMENT:
          if (operation.equals("decrypt")) {
            // What Cloud KMS answers for a data key encrypted by another key, or altered.
            return new CorruptSecretException(path, "cannot decrypt " + path + ": Cloud KMS key " + kmsKeyName
                + " refuses its data key (wrong key, tampered ciphertext, or copied from another store)", e);
          }
          return new KeyUnavailableException("Cloud KMS key " + kmsKeyName + " refuses to encrypt " + path
              + " (INVALID_ARGUMENT): is it a symmetric ENCRYPT_DECRYPT key?", e);
        case NOT_FOUND:
        case PERMISSION_DENIED:
        case UNAUTHENTICATED:
        case FAILED_PRECONDITION:
          return new KeyUnavailableException("Cloud KMS key " + kmsKeyName + " cannot be used to " + operation + " "
              + path + " (" + status + "): missing, disabled or destroyed key, or no permission", e);
        default:
          break;
      }
    }
    return new StoreUnavailableException("Cloud KMS unavailable (" + status + ") for key " + kmsKeyName
        + ": cannot " + operation + " " + path, e);
  }

  /**
   * Fails unless the bucket exists. Cloud Storage answers a read or delete of an object in a missing
   * bucket as of a missing object, but a missing bucket is not a store without secrets. A listing
   * of one object tells (it needs only the object permissions the store needs anyway); called only
   * when an object was not found, which is rare.
   */
  private void requireBucket(String action) {
    call(action, () -> storage.list(bucket, BlobListOption.pageSize(1)));
  }

  private <T> T call(String action, Supplier<T> request) {
    try {
      return request.get();
    } catch (StorageException e) {
      throw unavailable(action, e);
    }
  }

  private StoreUnavailableException unavailable(String action, StorageException e) {
    String reason = switch (e.getCode()) {
      case 0 -> "unreachable (" + rootCause(e) + ")";
      case 401, 403 -> "access denied (HTTP " + e.getCode() + ")";
      case 404 -> "no such bucket (HTTP 404)";
      default -> "HTTP " + e.getCode() + ": " + e.getMessage();
    };
    return new StoreUnavailableException("secret store bucket " + bucket + " " + reason + ": cannot " + action, e);
  }

  private static String rootCause(Throwable e) {
    Throwable root = e;
    while (root.getCause() != null && root.getCause() != root) {
      root = root.getCause();
    }
    return root.toString();
  }

  private static Instant updated(Blob blob) {
    OffsetDateTime updated = blob.getUpdateTimeOffsetDateTime();
    if (updated == null) {
      updated = blob.getCreateTimeOffsetDateTime();
    }
    return updated == null ? Instant.EPOCH : updated.toInstant();
  }

  private static boolean isSecretName(String name) {
    try {
      Names.requireSecretName(name);
      return true;
    } catch (InvalidInputException e) {
      return false;
    }
  }
}
