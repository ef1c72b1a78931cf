package io.tenantry.backup;

import com.google.crypto.tink.Aead;
import com.google.gson.Gson;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * What an archived tenant's data is: for each database it exported, the backup that holds it, that
 * backup's object hash and its tables' row counts. Written by the operator once every database's
 * archive backup is proven and drilled, read back before any volume is deleted, and read again to
 * restore the tenant. Sealed with the store's key, its own path as associated data, under
 * {@code <tenant prefix>_archives/}: no database is named so (a name is a DNS label), and a manifest
 * copied under another tenant's prefix does not open.
 *
 * @param created when it was written; names it
 */
public record ArchiveManifest(int format, String cluster, String tenant, String tenantUid, Instant created,
    List<Database> databases) {

  public static final int FORMAT = 1;
  private static final String DIRECTORY = "_archives/";
  private static final String SUFFIX = ".archive";
  private static final DateTimeFormatter STAMP = DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss-SSS").withZone(ZoneOffset.UTC);
  private static final Gson GSON = Json.GSON;

  /**
   * One database's archive: its backup (a committed backup of kind {@code archive}, drilled), the
   * stored object's SHA-256, and the rows per table its manifest holds.
   */
  public record Database(String name, String backup, String sha256, Map<String, Long> tables) {

    public Database {
      Objects.requireNonNull(name, "name");
      Objects.requireNonNull(backup, "backup");
      tables = Map.copyOf(tables);
    }
  }

  public ArchiveManifest {
    Objects.requireNonNull(created, "created");
    databases = List.copyOf(databases);
  }

  /** A new archive of {@code databases}, written now. */
  public static ArchiveManifest of(String cluster, String tenant, String tenantUid, Instant created, List<Database> databases) {
    return new ArchiveManifest(FORMAT, cluster, tenant, tenantUid, created, databases);
  }

  /** Where it is stored. */
  public String path() {
    return BackupLocation.tenantPrefix(cluster, tenant, tenantUid) + DIRECTORY + STAMP.format(created) + SUFFIX;
  }

  /** The sealed bytes to store at {@link #path}. */
  public byte[] seal(Aead kek) throws GeneralSecurityException {
    return kek.encrypt(GSON.toJson(this).getBytes(StandardCharsets.UTF_8), DataKey.ad(path()));
  }

  /**
   * The archive manifest stored at {@code path}.
   *
   * @throws GeneralSecurityException if the store's key did not seal it for this path, or what it
   *     names is not where it was read from
   */
  public static ArchiveManifest open(byte[] sealed, Aead kek, String path) throws GeneralSecurityException {
    byte[] json = kek.decrypt(sealed, DataKey.ad(path));
    ArchiveManifest manifest;
    try {
      manifest = GSON.fromJson(new String(json, StandardCharsets.UTF_8), ArchiveManifest.class);
    } catch (RuntimeException e) {
      throw new GeneralSecurityException("the archive manifest at " + path + " does not parse: " + e.getMessage(), e);
    }
    if (manifest.format() != FORMAT) {
      throw new GeneralSecurityException("the archive manifest at " + path + " has format " + manifest.format()
          + "; this operator reads format " + FORMAT);
    }
    if (!manifest.path().equals(path)) {
      throw new GeneralSecurityException("the archive manifest at " + path + " belongs at " + manifest.path());
    }
    return manifest;
  }
}
