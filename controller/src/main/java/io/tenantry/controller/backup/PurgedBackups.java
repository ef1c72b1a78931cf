package io.tenantry.controller.backup;

import static net.logstash.logback.argument.StructuredArguments.kv;

import io.tenantry.backup.PurgeMarker;
import io.tenantry.backup.store.BackupStore;
import io.tenantry.backup.store.BackupStoreUnavailableException;
import io.tenantry.backup.store.NoSuchObjectException;
import io.tenantry.backup.store.ObjectExistsException;
import io.tenantry.backup.store.StoredObject;
import java.io.ByteArrayInputStream;
import java.security.GeneralSecurityException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A purged tenant's backups: kept for {@code backups.purgeDelay} after the purge, then deleted. The
 * purge {@linkplain #mark marks} the tenant's prefix ({@link PurgeMarker}); a {@linkplain #sweep sweep}
 * at the operator's start and then every {@link #EVERY} deletes the prefixes whose marker is older
 * than the delay. The delay outlives the Tenant object and the operator's memory: it is in the store.
 *
 * <p>Guarantees:
 * <ul>
 *   <li>Nothing is deleted after a listing that failed: a sweep stops at the first failure of the store.
 *   <li>Only a prefix with a marker that opens with the store's key, for its own path, is ever deleted: a
 *       prefix without one, or with one that was forged or moved, is left (and the latter logged).
 *   <li>The marker goes last, after every other object under its tenant's prefix (the manifests first, so an
 *       interrupted sweep never leaves a manifest without its object): a sweep cut short leaves the
 *       marker, and the next one finishes.
 *   <li>A later tenant of the same name has another UID, so another prefix: it is never touched.
 *   <li>One sweep at a time.
 * </ul>
 */
public final class PurgedBackups {

  /** How often the operator sweeps, after the sweep at its start. */
  public static final Duration EVERY = Duration.ofHours(1);
  private static final Logger LOG = LoggerFactory.getLogger(PurgedBackups.class);
  private static final String MANIFEST = ".manifest";

  private final BackupRuntime runtime;
  private final Duration delay;
  private final Clock clock;

  public PurgedBackups(BackupRuntime runtime, Duration delay, Clock clock) {
    this.runtime = runtime;
    this.delay = delay;
    this.clock = clock;
  }

  /**
   * What one sweep did, by tenant prefix.
   *
   * @param deleted prefixes emptied (their marker last)
   * @param kept prefixes whose marker is younger than the delay
   * @param unreadable markers that do not open with the store's key at their path, left in place
   * @param complete false when the store failed: what is not listed above was not looked at
   */
  public record Sweep(List<String> deleted, List<String> kept, List<String> unreadable, boolean complete) {

    public Sweep {
      deleted = List.copyOf(deleted);
      kept = List.copyOf(kept);
      unreadable = List.copyOf(unreadable);
    }
  }

  /**
   * Marks the tenant's backups purged now; a marker already there (a repeated purge) is kept, with
   * its time.
   *
   * @throws BackupStoreUnavailableException if the store is down: the purge is retried
   */
  public void mark(String tenant, String tenantUid) {
    PurgeMarker marker = PurgeMarker.of(runtime.cluster(), tenant, tenantUid, clock.instant());
    byte[] sealed;
    try {
      sealed = marker.seal(runtime.kek());
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("cannot seal the purge marker " + marker.path() + " with the store's key: "
          + e.getMessage(), e);
    }
    try {
      runtime.store().create(marker.path(), new ByteArrayInputStream(sealed));
      LOG.info("backups marked purged {} {} {}", kv("tenant", tenant), kv("tenantUid", tenantUid),
          kv("deleteAfter", marker.purged().plus(delay).toString()));
    } catch (ObjectExistsException e) {
      LOG.debug("backups already marked purged {} {}", kv("tenant", tenant), kv("tenantUid", tenantUid));
    }
  }

  /** Deletes every purged tenant's backups whose delay is over. Never throws: the store's failures are logged. */
  public synchronized Sweep sweep() {
    Instant now = clock.instant();
    String clusterPrefix = "backups/" + runtime.cluster() + "/";
    BackupStore store = runtime.store();
    List<String> deleted = new ArrayList<>();
    List<String> kept = new ArrayList<>();
    List<String> unreadable = new ArrayList<>();
    try {
      for (String markerPath : markers(clusterPrefix, store.list(clusterPrefix))) {
        PurgeMarker marker;
        try {
          marker = PurgeMarker.open(store.read(markerPath), runtime.kek(), markerPath);
        } catch (GeneralSecurityException e) {
          LOG.warn("purge marker does not open; its backups are kept {} {}", kv("marker", markerPath),
              kv("error", e.getMessage()));
          unreadable.add(markerPath);
          continue;
        } catch (NoSuchObjectException e) {
          continue; // deleted since the listing
        }
        if (!due(marker, now, delay)) {
          kept.add(marker.tenantPrefix());
          continue;
        }
        List<String> order = deletionOrder(marker, store.list(marker.tenantPrefix()));
        order.forEach(store::delete);
        if (!order.isEmpty()) {
          deleted.add(marker.tenantPrefix());
          LOG.info("purged tenant's backups deleted {} {} {} {}", kv("tenant", marker.tenant()),
              kv("tenantUid", marker.tenantUid()), kv("purged", marker.purged().toString()), kv("objects", order.size()));
        }
      }
    } catch (BackupStoreUnavailableException e) {
      LOG.warn("purged tenants' backups not swept: the store failed {} {}", kv("store", e.store()),
          kv("error", e.getMessage()));
      return new Sweep(deleted, kept, unreadable, false);
    }
    return new Sweep(deleted, kept, unreadable, true);
  }

  /** Whether a marked tenant's backups are to go at {@code now}: its purge is at least {@code delay} old. */
  static boolean due(PurgeMarker marker, Instant now, Duration delay) {
    return !now.isBefore(marker.purged().plus(delay));
  }

  /** The paths of the markers in a listing of {@code clusterPrefix}, one per tenant prefix at most. */
  static List<String> markers(String clusterPrefix, List<StoredObject> listing) {
    return listing.stream().map(StoredObject::path).filter(path -> PurgeMarker.isMarkerPath(clusterPrefix, path)).toList();
  }

  /**
   * What to delete under a marked tenant's prefix, in order: the manifests, every other object, the
   * marker last. Empty when the listing no longer shows the marker (swept since): nothing is deleted
   * under a prefix whose marker is not seen.
   */
  static List<String> deletionOrder(PurgeMarker marker, List<StoredObject> prefixListing) {
    List<String> paths = prefixListing.stream().map(StoredObject::path).toList();
    if (!paths.contains(marker.path())) {
      return List.of();
    }
    List<String> order = new ArrayList<>(paths.stream().filter(p -> p.endsWith(MANIFEST)).toList());
    paths.stream().filter(p -> !p.endsWith(MANIFEST) && !p.equals(marker.path())).forEach(order::add);
    order.add(marker.path());
    return order;
  }
}
