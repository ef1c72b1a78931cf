package io.tenantry.secretstore;

import com.google.crypto.tink.Aead;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.security.GeneralSecurityException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.locks.ReentrantLock;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The embedded default store: a directory, one file per secret at {@code <root>/<path>} (see
 * {@link SecretFormat}), each the Tink AEAD ciphertext of the secret's canonical encoding with its
 * path as associated data, under a local keyset ({@link LocalKeyset}).
 *
 * <ul>
 *   <li>Writes go to an owner-only temporary file, flushed, then renamed over the secret's file, so
 *       a reader or a crash sees the old or the new secret, never a part. Directories are 0700,
 *       files 0600.
 *   <li>Version: the first 16 hex digits of the SHA-256 of the file's bytes. The ciphertext has a
 *       random nonce, so every write yields a new version (also for unchanged data) and a version
 *       names one write; versions are not ordered.
 *   <li>Writes are serialized within the process and, through a lock on {@code <root>/.lock},
 *       across processes sharing the directory, so {@link #create} and {@link #replace} are real
 *       compare-and-swaps. Reads take no lock.
 *   <li>{@link #list} reads and decrypts each file of the scope: local decryption is cheap, and so
 *       a corrupt file is reported by listing too.
 *   <li>A store exists only once it has been made, by {@link #init}: its directory then holds the
 *       marker file {@value #MARKER}. Every operation refuses a directory that is missing, or that
 *       holds neither the marker nor any secret (an unmounted volume, a mistyped path), with
 *       {@link StoreUnavailableException} naming it: such a directory is never read as a store
 *       without secrets, since a caller would then delete what it mirrors from the store.
 *       {@link #open} never creates anything, neither the directory nor a keyset.
 * </ul>
 */
public final class LocalSecretStore implements SecretStore {

  private static final Logger log = LoggerFactory.getLogger(LocalSecretStore.class);
  private static final int VERSION_HEX_DIGITS = 16;
  /** The file in a store's directory that says a store was made there ({@link #init}). */
  public static final String MARKER = ".tenantry-secret-store";
  private static final String TENANTS = "tenants";
  private static final String MARKER_TEXT = "A Tenantry secret store (tenantry-secrets init). Its secrets are under"
      + " template/ and tenants/, encrypted; do not edit.\n";

  private final Path root;
  private final Aead aead;
  private final ReentrantLock writeLock = new ReentrantLock();

  /** A store in {@code root} encrypting with {@code aead}, such as {@link LocalKeyset#load}'s. */
  public LocalSecretStore(Path root, Aead aead) {
    this.root = Objects.requireNonNull(root, "root").toAbsolutePath().normalize();
    this.aead = Objects.requireNonNull(aead, "aead");
  }

  /**
   * The existing store in {@code root}, under the keyset in {@code keysetFile}. Creates nothing: a
   * store is made by {@link #init}.
   *
   * @throws StoreUnavailableException if {@code root} is missing, or holds neither a store's marker
   *     nor any secret
   * @throws KeyUnavailableException if the keyset file is missing or unusable
   */
  public static LocalSecretStore open(Path root, Path keysetFile) {
    Path dir = root.toAbsolutePath().normalize();
    requireStore(dir);
    if (!Files.exists(keysetFile)) {
      throw new KeyUnavailableException("keyset file " + keysetFile + " of secret store " + dir + " does not exist:"
          + " give the keyset the store was created with (opening a store never creates a keyset)", null);
    }
    return new LocalSecretStore(dir, LocalKeyset.load(keysetFile));
  }

  /**
   * Makes a new, empty store in {@code root} (creating the directory, owner-only, if missing) under
   * the keyset in {@code keysetFile}, which is created (AES256_GCM, mode 0600) if missing and used
   * as it is otherwise; then writes the store's marker. Keep the keyset file outside {@code root}
   * where possible, and a copy of it somewhere safe: without it the store cannot be read.
   *
   * @throws SecretConflictException if {@code root} already holds a store (its marker or secrets):
   *     {@link #open} it instead; nothing is changed
   */
  public static LocalSecretStore init(Path root, Path keysetFile) {
    Path dir = root.toAbsolutePath().normalize();
    if (holdsStore(dir)) {
      throw new SecretConflictException(dir.toString(), "secret store " + dir + " already exists (it holds "
          + (Files.exists(dir.resolve(MARKER)) ? "the marker " + MARKER : "secrets") + "): open it instead", null);
    }
    try {
      DurableFiles.createPrivateDirectories(dir);
    } catch (IOException e) {
      throw new StoreUnavailableException("cannot create secret store directory " + dir + ": " + e, e);
    }
    Aead aead = LocalKeyset.loadOrCreate(keysetFile);
    try {
      DurableFiles.replaceAtomically(dir.resolve(MARKER), MARKER_TEXT.getBytes(StandardCharsets.UTF_8));
    } catch (IOException e) {
      throw new StoreUnavailableException("cannot write " + dir.resolve(MARKER) + ": " + e, e);
    }
    log.info("Initialized an empty secret store in {} with keyset {}", dir, keysetFile);
    return new LocalSecretStore(dir, aead);
  }

  @Override
  public Optional<StoredSecret> get(Scope scope, String name) {
    String path = SecretFormat.path(scope, name);
    Optional<StoredSecret> secret = readFile(path).map(file -> decrypt(scope, name, path, file));
    if (secret.isEmpty()) {
      // Absent from a missing or unmounted store is not "absent".
      requireStore(root);
    }
    return secret;
  }

  @Override
  public List<SecretMetadata> list(Scope scope) {
    Path dir = root.resolve(scope.path());
    List<String> names = new ArrayList<>();
    try (Stream<Path> entries = Files.list(dir)) {
      entries.filter(Files::isRegularFile)
          .map(entry -> entry.getFileName().toString())
          .filter(LocalSecretStore::isSecretName)
          .sorted(Comparator.naturalOrder())
          .forEach(names::add);
    } catch (NoSuchFileException e) {
      // An existing scope directory is a store's; a missing one is empty only in a store that exists.
      requireStore(root);
      return List.of();
    } catch (IOException e) {
      throw unavailable("cannot list " + dir, e);
    }
    List<SecretMetadata> secrets = new ArrayList<>();
    for (String name : names) {
      String path = SecretFormat.path(scope, name);
      // A file deleted since the directory was listed is simply no longer there.
      readFile(path).ifPresent(file -> secrets.add(decrypt(scope, name, path, file).metadata()));
    }
    return secrets;
  }

  @Override
  public String put(Scope scope, String name, Map<String, byte[]> data) {
    return write(scope, name, data, null, false);
  }

  @Override
  public String create(Scope scope, String name, Map<String, byte[]> data) {
    return write(scope, name, data, null, true);
  }

  @Override
  public String replace(Scope scope, String name, Map<String, byte[]> data, String expectedVersion) {
    if (expectedVersion == null || expectedVersion.isEmpty()) {
      throw new InvalidInputException("expectedVersion", "expectedVersion must be the version of the secret being replaced");
    }
    return write(scope, name, data, expectedVersion, false);
  }

  @Override
  public boolean delete(Scope scope, String name) {
    String path = SecretFormat.path(scope, name);
    Path file = root.resolve(path);
    return withWriteLock("delete " + path, () -> {
      boolean deleted = Files.deleteIfExists(file);
      if (deleted) {
        DurableFiles.syncDirectory(file.getParent());
        log.debug("Deleted {} from {}", path, location());
      }
      return deleted;
    });
  }

  @Override
  public int deleteScope(Scope scope) {
    Path dir = root.resolve(scope.path());
    return withWriteLock("delete " + scope.path(), () -> {
      if (!Files.isDirectory(dir)) {
        return 0;
      }
      int secrets = 0;
      List<Path> entries;
      try (Stream<Path> walk = Files.walk(dir)) {
        // Deepest first, so each directory is empty when its turn comes.
        entries = walk.sorted(Comparator.reverseOrder()).toList();
      }
      for (Path entry : entries) {
        if (entry.getParent().equals(dir) && Files.isRegularFile(entry) && isSecretName(entry.getFileName().toString())) {
          secrets++;
        }
        Files.delete(entry);
      }
      DurableFiles.syncDirectory(dir.getParent());
      log.info("Deleted the {} secrets of {} from {}", secrets, scope, location());
      return secrets;
    });
  }

  @Override
  public String location() {
    return root.toUri().toString();
  }

  private String write(Scope scope, String name, Map<String, byte[]> data, String expectedVersion, boolean mustBeAbsent) {
    String path = SecretFormat.path(scope, name);
    byte[] plaintext = SecretFormat.canonical(data);
    byte[] ciphertext;
    try {
      ciphertext = aead.encrypt(plaintext, SecretFormat.associatedData(path));
    } catch (GeneralSecurityException e) {
      throw new KeyUnavailableException("cannot encrypt " + path + " with the local keyset: " + e.getMessage(), e);
    }
    String version = version(ciphertext);
    Path file = root.resolve(path);
    return withWriteLock("write " + path, () -> {
      if (mustBeAbsent || expectedVersion != null) {
        Optional<String> current = readFile(path).map(existing -> version(existing.bytes()));
        if (mustBeAbsent && current.isPresent()) {
          throw new SecretConflictException(path, path + " already exists (version " + current.get() + ")", null);
        }
        if (expectedVersion != null && !current.equals(Optional.of(expectedVersion))) {
          throw new SecretConflictException(path, path + " is at version " + current.orElse("(deleted)")
              + ", not the expected " + expectedVersion, null);
        }
      }
      DurableFiles.createPrivateDirectories(file.getParent());
      DurableFiles.replaceAtomically(file, ciphertext);
      log.debug("Wrote {} version {} to {}", path, version, location());
      return version;
    });
  }

  /** A secret file's bytes and modification time. */
  private record SecretFile(byte[] bytes, Instant modified) {
  }

  private Optional<SecretFile> readFile(String path) {
    Path file = root.resolve(path);
    try {
      byte[] bytes = Files.readAllBytes(file);
      // Read after the content: a rename in between only makes the time a little newer.
      Instant modified = Files.getLastModifiedTime(file).toInstant();
      return Optional.of(new SecretFile(bytes, modified));
    } catch (NoSuchFileException e) {
      return Optional.empty();
    } catch (IOException e) {
      throw unavailable("cannot read " + file, e);
    }
  }

  private StoredSecret decrypt(Scope scope, String name, String path, SecretFile file) {
    byte[] plaintext;
    try {
      plaintext = aead.decrypt(file.bytes(), SecretFormat.associatedData(path));
    } catch (GeneralSecurityException e) {
      throw new CorruptSecretException(path, e);
    }
    Map<String, byte[]> data = SecretFormat.decode(path, plaintext);
    SecretMetadata metadata = new SecretMetadata(scope, name, version(file.bytes()),
        SecretFormat.contentHash(data), file.modified());
    return new StoredSecret(metadata, data);
  }

  private static String version(byte[] ciphertext) {
    return SecretFormat.sha256Hex(ciphertext).substring(0, VERSION_HEX_DIGITS);
  }

  // Temporary files start with '.', which no secret name can.
  private static boolean isSecretName(String fileName) {
    try {
      Names.requireSecretName(fileName);
      return true;
    } catch (InvalidInputException e) {
      return false;
    }
  }

  private interface LockedAction<T> {
    T run() throws IOException;
  }

  private <T> T withWriteLock(String action, LockedAction<T> body) {
    writeLock.lock();
    try {
      requireStore(root);
      try (FileChannel lockFile = FileChannel.open(root.resolve(".lock"), StandardOpenOption.CREATE,
          StandardOpenOption.WRITE);
           FileLock ignored = lockFile.lock()) {
        return body.run();
      }
    } catch (IOException e) {
      throw unavailable("cannot " + action, e);
    } finally {
      writeLock.unlock();
    }
  }

  /** Refuses a directory that is missing, or holds neither a store's marker nor a store's secrets. */
  private static void requireStore(Path dir) {
    if (!Files.isDirectory(dir)) {
      throw new StoreUnavailableException("local secret store " + dir + " does not exist"
          + (Files.exists(dir) ? " (not a directory)" : "") + ": a missing store is not read as an empty one;"
          + " check the store's location, or create a new store with 'tenantry-secrets init'", null);
    }
    if (!holdsStore(dir)) {
      throw new StoreUnavailableException("local secret store " + dir + " is not a secret store: it holds neither"
          + " the marker " + MARKER + " nor any secret (an empty or unmounted directory is not read as an empty"
          + " store); check the store's location, or create a new store there with 'tenantry-secrets init'", null);
    }
  }

  /** Whether {@code dir} holds a store: its marker, or (stores made before the marker) its secrets' folders. */
  private static boolean holdsStore(Path dir) {
    return Files.exists(dir.resolve(MARKER)) || Files.isDirectory(dir.resolve(Scope.template().path()))
        || Files.isDirectory(dir.resolve(TENANTS));
  }

  private StoreUnavailableException unavailable(String message, IOException e) {
    return new StoreUnavailableException("local secret store " + location() + ": " + message + ": " + e, e);
  }
}
