package io.tenantry.backup.store;

import java.io.InputStream;
import java.util.List;
import java.util.Optional;

/**
 * Where backups are kept: Cloud Storage in production, a local directory by default. Objects are
 * immutable: {@link #create} never replaces one, which is what makes an upload target create-only.
 * Every failure to reach the store is a {@link BackupStoreUnavailableException} naming it; a listing
 * either returns every object under its prefix or throws, so a caller never mistakes a failed
 * listing for an empty one.
 */
public interface BackupStore {

  /** The store as a user names it: {@code gs://bucket} or {@code file:/dir}. */
  String describe();

  /**
   * Writes {@code content} to its end as a new object at {@code path}. The object exists only once
   * the whole stream was read without error: a stream that fails leaves nothing behind.
   *
   * @throws ObjectExistsException if {@code path} already holds an object
   */
  StoredObject create(String path, InputStream content);

  /** The object at {@code path}, if there is one. */
  Optional<StoredObject> stat(String path);

  /** The object's bytes. @throws NoSuchObjectException if there is none */
  InputStream open(String path);

  /** The object's whole bytes, for small objects (manifests). */
  default byte[] read(String path) {
    try (InputStream in = open(path)) {
      return in.readAllBytes();
    } catch (java.io.IOException e) {
      throw new BackupStoreUnavailableException(describe(), "cannot read " + path + ": " + e.getMessage(), e);
    }
  }

  /** Every object whose path starts with {@code prefix}, sorted by path. */
  List<StoredObject> list(String prefix);

  /** Deletes the object at {@code path}; nothing when there is none. */
  void delete(String path);
}
