package io.tenantry.backup;

import com.google.crypto.tink.Aead;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.time.Instant;
import java.util.Objects;

/**
 * The mark a purge leaves on a tenant's backups: one object at {@code <tenant prefix>_purged} saying
 * when the tenant was purged, from which its backups are kept for a delay and then deleted. The time
 * lives in the store, not on the Tenant (which its user may delete once Purged) nor in the operator's
 * memory (which a restart loses). No database is named {@code _purged} (a name is a DNS label), so
 * the marker never clashes with a database's prefix, nor, in a local store, with its directory.
 *
 * <p>Sealed with the store's key with the marker's own path as associated data, as a {@link Manifest}
 * is, and {@link #open} checks the tenant it names against the path it was read from: a marker the
 * store's key did not seal, or one copied under another tenant's prefix, does not open, so nothing
 * but a purge of that very tenant can make its backups go.
 *
 * @param purged when the tenant was purged (its first purge: a repeated one finds the marker and keeps it)
 */
public record PurgeMarker(int format, String cluster, String tenant, String tenantUid, Instant purged) {

  public static final int FORMAT = 1;
  /** The marker's name under a tenant's prefix. */
  public static final String NAME = "_purged";

  public PurgeMarker {
    Objects.requireNonNull(purged, "purged");
    BackupLocation.tenantPrefix(cluster, tenant, tenantUid); // names a tenant, or throws naming the field
  }

  /** A marker of this format. */
  public static PurgeMarker of(String cluster, String tenant, String tenantUid, Instant purged) {
    return new PurgeMarker(FORMAT, cluster, tenant, tenantUid, purged);
  }

  /** Where the marker of a tenant's backups is. */
  public static String path(String cluster, String tenant, String tenantUid) {
    return BackupLocation.tenantPrefix(cluster, tenant, tenantUid) + NAME;
  }

  public String path() {
    return path(cluster, tenant, tenantUid);
  }

  /** The prefix this marker's deletion covers: every backup of every database of its tenant. */
  public String tenantPrefix() {
    return BackupLocation.tenantPrefix(cluster, tenant, tenantUid);
  }

  /**
   * Whether {@code path} is where a marker of a tenant of the cluster listed at {@code clusterPrefix}
   * ({@code backups/<cluster>/}) would be: directly under one tenant's prefix. It says nothing of who
   * wrote it; {@link #open} does.
   */
  public static boolean isMarkerPath(String clusterPrefix, String path) {
    if (!path.startsWith(clusterPrefix) || !path.endsWith("/" + NAME)) {
      return false;
    }
    String tenantDirectory = path.substring(clusterPrefix.length(), Math.max(clusterPrefix.length(),
        path.length() - NAME.length() - 1));
    return !tenantDirectory.isEmpty() && !tenantDirectory.contains("/");
  }

  /** The sealed bytes to store at this marker's path. */
  public byte[] seal(Aead kek) throws GeneralSecurityException {
    return kek.encrypt(Json.GSON.toJson(this).getBytes(StandardCharsets.UTF_8), DataKey.ad(path()));
  }

  /**
   * The marker stored at {@code path}.
   *
   * @throws GeneralSecurityException if the store's key did not seal it for this path, or the tenant it
   *     names is not the one whose prefix it was read from
   */
  public static PurgeMarker open(byte[] sealed, Aead kek, String path) throws GeneralSecurityException {
    byte[] json = kek.decrypt(sealed, DataKey.ad(path));
    PurgeMarker marker;
    try {
      marker = Json.GSON.fromJson(new String(json, StandardCharsets.UTF_8), PurgeMarker.class);
    } catch (RuntimeException e) {
      throw new GeneralSecurityException("the purge marker at " + path + " does not parse: " + e.getMessage(), e);
    }
    if (marker == null || marker.format() != FORMAT) {
      throw new GeneralSecurityException("the purge marker at " + path + " has format "
          + (marker == null ? "none" : marker.format()) + "; this operator reads format " + FORMAT);
    }
    if (!marker.path().equals(path)) {
      throw new GeneralSecurityException("the purge marker at " + path + " belongs at " + marker.path());
    }
    return marker;
  }
}
