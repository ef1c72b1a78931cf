package io.tenantry.backup;

import io.tenantry.backup.store.StoredObject;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Objects;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * One database's backups as a store listing shows them: which ids have an object and which a manifest.
 * It reads names only; the kinds {@link Retention} needs are in the manifests, which the caller opens
 * (and so verifies) for the committed entries. One that fails to open is no reason to call its backup
 * uncommitted: the grace rule would delete it.
 *
 * @param entries by id, every id with an object, a manifest or an agent's report at its path
 * @param unknown paths under the prefix that are no backup's object or manifest (unparsable names, other
 *     suffixes, another database's id, nested paths): never deleted, as nothing here knows what they are
 */
public record BackupListing(BackupLocation location, SortedMap<BackupId, Entry> entries, List<String> unknown) {

  /**
   * What exists of one backup. Committed when both do; an object alone is an upload in flight, a failed
   * backup or an interrupted deletion; a manifest alone was left by something other than this operator's
   * deletion order, and is uncommitted too (a manifest proves nothing without its object).
   */
  public record Entry(boolean object, boolean manifest) {

    public boolean committed() {
      return object && manifest;
    }
  }

  public BackupListing {
    Objects.requireNonNull(location, "location");
    entries = Collections.unmodifiableSortedMap(new TreeMap<>(entries));
    unknown = List.copyOf(unknown);
  }

  /**
   * Groups a listing of {@code location.prefix()} by backup id.
   *
   * @throws IllegalArgumentException if an object is not under the prefix (a listing of something else)
   */
  public static BackupListing of(BackupLocation location, List<StoredObject> objects) {
    String prefix = location.prefix();
    SortedMap<BackupId, Entry> entries = new TreeMap<>();
    List<String> unknown = new ArrayList<>();
    for (StoredObject stored : objects) {
      String path = stored.path();
      if (!path.startsWith(prefix)) {
        throw new IllegalArgumentException(path + " is not under " + prefix);
      }
      BackupId id = idOf(location, path);
      if (id == null) {
        unknown.add(path);
        continue;
      }
      Entry entry = entries.getOrDefault(id, new Entry(false, false));
      if (path.equals(location.objectPath(id))) {
        entry = new Entry(true, entry.manifest());
      } else if (path.equals(location.manifestPath(id))) {
        entry = new Entry(entry.object(), true);
      }
      // A report alone (a backup whose dump failed) is an uncommitted entry: it goes after the grace.
      entries.put(id, entry);
    }
    return new BackupListing(location, entries, unknown);
  }

  /**
   * The paths to delete for backup {@code id}, in order: the manifest, the report, then the object. An interrupted
   * deletion then leaves an uncommitted object, which the grace rule removes later, never a manifest
   * without its object. Both paths are named whatever the listing saw: deleting a missing one does
   * nothing, and a manifest written since the listing goes before its object too.
   *
   * @throws IllegalArgumentException if the listing has no such backup
   */
  public List<String> deletionOrder(BackupId id) {
    if (!entries.containsKey(id)) {
      throw new IllegalArgumentException("backup " + id + " is not in the listing of " + location.prefix());
    }
    return List.of(location.manifestPath(id), location.reportPath(id), location.objectPath(id));
  }

  /** The id whose object or manifest is exactly at {@code path}, or null. */
  private static BackupId idOf(BackupLocation location, String path) {
    String name = path.substring(location.prefix().length());
    String stem;
    if (name.endsWith(BackupLocation.OBJECT_SUFFIX)) {
      stem = name.substring(0, name.length() - BackupLocation.OBJECT_SUFFIX.length());
    } else if (name.endsWith(BackupLocation.MANIFEST_SUFFIX)) {
      stem = name.substring(0, name.length() - BackupLocation.MANIFEST_SUFFIX.length());
    } else if (name.endsWith(BackupLocation.REPORT_SUFFIX)) {
      stem = name.substring(0, name.length() - BackupLocation.REPORT_SUFFIX.length());
    } else {
      return null;
    }
    BackupId id;
    try {
      id = BackupId.parse(stem);
    } catch (IllegalArgumentException e) {
      return null;
    }
    boolean ours = id.database().equals(location.database())
        && (path.equals(location.objectPath(id)) || path.equals(location.manifestPath(id))
            || path.equals(location.reportPath(id)));
    return ours ? id : null;
  }
}
