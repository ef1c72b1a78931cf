package io.tenantry.backup;

import com.google.crypto.tink.Aead;
import com.google.gson.Gson;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.time.Instant;
import java.util.Base64;
import java.util.Map;
import java.util.Objects;

/**
 * The proof that a backup exists: written by the operator only after it checked the stored object
 * against what the backup's Job reported, sealed with the store's key with the manifest's own path
 * as associated data. It names the cluster, tenant, tenant UID and database it belongs to, and
 * {@link #open} checks them against the path it was read from: a manifest copied under another
 * tenant's prefix fails to open, and so does one the store's key did not seal.
 *
 * @param kind why it was taken: {@code scheduled}, {@code on-demand}, {@code archive}, {@code pre-restore}
 * @param plaintextBytes bytes of the dump
 * @param objectBytes bytes of the stored object
 * @param sha256 hex SHA-256 of the stored object
 * @param crc32c base64 CRC32C of the stored object, as Cloud Storage reports it
 * @param wrappedKey the backup's {@link DataKey}, wrapped by the store's key for the object's path (base64)
 * @param tables rows per table in the dump's snapshot
 * @param databaseBytes the database's size on disk when it was dumped: what a restore needs room for
 */
public record Manifest(int format, String id, String cluster, String tenant, String tenantUid, String database,
    String kind, String engine, String serverVersion, Instant started, Instant committed, long plaintextBytes,
    long objectBytes, String sha256, String crc32c, String wrappedKey, Map<String, Long> tables, long databaseBytes) {

  public static final int FORMAT = 1;
  private static final Gson GSON = Json.GSON;

  public Manifest {
    Objects.requireNonNull(id, "id");
    tables = Map.copyOf(tables);
  }

  public BackupId backupId() {
    return BackupId.parse(id);
  }

  public BackupLocation location() {
    return new BackupLocation(cluster, tenant, tenantUid, database);
  }

  /** The backup's key, unwrapped by the store's key. */
  public DataKey dataKey(Aead kek) throws GeneralSecurityException {
    return DataKey.unwrap(Base64.getDecoder().decode(wrappedKey), kek, location().objectPath(backupId()));
  }

  /** The sealed bytes to store at this manifest's path. */
  public byte[] seal(Aead kek) throws GeneralSecurityException {
    String path = location().manifestPath(backupId());
    return kek.encrypt(GSON.toJson(this).getBytes(StandardCharsets.UTF_8), DataKey.ad(path));
  }

  /**
   * The manifest stored at {@code path}.
   *
   * @throws GeneralSecurityException if the store's key did not seal it for this path, or what it
   *     names is not where it was read from
   */
  public static Manifest open(byte[] sealed, Aead kek, String path) throws GeneralSecurityException {
    byte[] json = kek.decrypt(sealed, DataKey.ad(path));
    Manifest manifest;
    try {
      manifest = GSON.fromJson(new String(json, StandardCharsets.UTF_8), Manifest.class);
    } catch (RuntimeException e) {
      throw new GeneralSecurityException("the manifest at " + path + " does not parse: " + e.getMessage(), e);
    }
    if (manifest.format() != FORMAT) {
      throw new GeneralSecurityException("the manifest at " + path + " has format " + manifest.format()
          + "; this operator reads format " + FORMAT);
    }
    String expected = manifest.location().manifestPath(manifest.backupId());
    if (!expected.equals(path)) {
      throw new GeneralSecurityException("the manifest at " + path + " belongs at " + expected);
    }
    return manifest;
  }
}
