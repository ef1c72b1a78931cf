package io.tenantry.secretstore;

import com.google.crypto.tink.Aead;
import com.google.crypto.tink.InsecureSecretKeyAccess;
import com.google.crypto.tink.KeysetHandle;
import com.google.crypto.tink.RegistryConfiguration;
import com.google.crypto.tink.TinkJsonProtoKeysetFormat;
import com.google.crypto.tink.aead.PredefinedAeadParameters;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.GeneralSecurityException;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The local store's key: a Tink keyset in Tink's JSON format, in cleartext, protected by its file
 * permissions (0600). Keep it outside the store's directory (a mounted Kubernetes Secret, say), so
 * that a copy of the directory alone reveals nothing.
 *
 * <p>To use an existing keyset, give its file to {@link #load}; one can be made with Tink's
 * {@code tinkey create-keyset --key-template AES256_GCM --out-format json --out keyset.json}.
 * {@link #loadOrCreate} makes an AES256_GCM keyset when there is none: only for a new store
 * ({@link LocalSecretStore#init}), never when opening one, since a new key over existing secrets
 * reads none of them.
 */
public final class LocalKeyset {

  private static final Logger log = LoggerFactory.getLogger(LocalKeyset.class);
  private static final Set<PosixFilePermission> OWNER_READ_WRITE = PosixFilePermissions.fromString("rw-------");

  private LocalKeyset() {
  }

  /**
   * The AEAD of the keyset in {@code file}.
   *
   * @throws KeyUnavailableException if the file is missing, unreadable, or not an AEAD keyset
   */
  public static Aead load(Path file) {
    TinkSetup.ensureRegistered();
    String json;
    try {
      json = Files.readString(file, StandardCharsets.UTF_8);
    } catch (NoSuchFileException e) {
      throw new KeyUnavailableException("keyset file " + file + " does not exist", e);
    } catch (IOException e) {
      throw new KeyUnavailableException("cannot read keyset file " + file + ": " + e, e);
    }
    warnIfReadableByOthers(file);
    try {
      KeysetHandle handle = TinkJsonProtoKeysetFormat.parseKeyset(json, InsecureSecretKeyAccess.get());
      return handle.getPrimitive(RegistryConfiguration.get(), Aead.class);
    } catch (GeneralSecurityException | RuntimeException e) {
      // Tink's messages describe the structure, never key material.
      throw new KeyUnavailableException("keyset file " + file + " is not a Tink AEAD keyset in JSON: "
          + e.getMessage(), e);
    }
  }

  /**
   * The AEAD of the keyset in {@code file}, first creating an AES256_GCM keyset there (mode 0600) if
   * there is none. Creation is atomic: of processes racing to create it, one keyset wins and all use it.
   */
  public static Aead loadOrCreate(Path file) {
    if (!Files.exists(file)) {
      create(file);
    }
    return load(file);
  }

  private static void create(Path file) {
    TinkSetup.ensureRegistered();
    Path dir = file.toAbsolutePath().getParent();
    Path temp = null;
    try {
      DurableFiles.createPrivateDirectories(dir);
      String json = TinkJsonProtoKeysetFormat.serializeKeyset(
          KeysetHandle.generateNew(PredefinedAeadParameters.AES256_GCM), InsecureSecretKeyAccess.get());
      temp = DurableFiles.writeTemp(dir, ".keyset-", json.getBytes(StandardCharsets.UTF_8));
      // A hard link is "create if absent" and atomic: a concurrent creator's complete keyset is
      // never replaced, and nobody ever sees a half-written one.
      Files.createLink(file, temp);
      DurableFiles.syncDirectory(dir);
      log.info("Created a new AES256_GCM keyset in {}", file);
    } catch (FileAlreadyExistsException e) {
      log.debug("Keyset {} was created concurrently; using it", file);
    } catch (IOException | GeneralSecurityException e) {
      throw new KeyUnavailableException("cannot create keyset file " + file + ": " + e, e);
    } finally {
      if (temp != null) {
        try {
          Files.deleteIfExists(temp);
        } catch (IOException e) {
          log.warn("Cannot delete the temporary keyset file {}: {}", temp, e.toString());
        }
      }
    }
  }

  private static void warnIfReadableByOthers(Path file) {
    if (!DurableFiles.posix(file)) {
      return;
    }
    try {
      Set<PosixFilePermission> permissions = Files.getPosixFilePermissions(file);
      if (!OWNER_READ_WRITE.containsAll(permissions)) {
        log.warn("Keyset file {} has mode {}; only its owner should read it (chmod 600)", file,
            PosixFilePermissions.toString(permissions));
      }
    } catch (IOException e) {
      log.warn("Cannot read the permissions of keyset file {}: {}", file, e.toString());
    }
  }
}
