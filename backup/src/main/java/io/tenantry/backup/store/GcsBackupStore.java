package io.tenantry.backup.store;

import com.google.api.gax.paging.Page;
import com.google.cloud.ReadChannel;
import com.google.cloud.WriteChannel;
import com.google.cloud.storage.Blob;
import com.google.cloud.storage.BlobId;
import com.google.cloud.storage.BlobInfo;
import com.google.cloud.storage.Storage;
import com.google.cloud.storage.Storage.BlobListOption;
import com.google.cloud.storage.Storage.BlobWriteOption;
import com.google.cloud.storage.StorageException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.channels.Channels;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;

/**
 * Backups in a Cloud Storage bucket, one object per path. A create is a resumable upload with
 * {@code ifGenerationMatch=0}: it finalizes only once the whole stream was read (a failed stream
 * abandons the session, which leaves no object), and it never replaces an object, even when two
 * uploads race. Checksums are the CRC32C Cloud Storage computed from what it stored. A missing
 * bucket is an unavailable store, never an empty one.
 *
 * <p>The store does not own the client and does not close it.
 */
public final class GcsBackupStore implements BackupStore {

  private static final int CHUNK = 8 << 20;
  private final Storage storage;
  private final String bucket;

  public GcsBackupStore(Storage storage, String bucket) {
    this.storage = storage;
    this.bucket = bucket;
  }

  @Override
  public String describe() {
    return "gs://" + bucket;
  }

  @Override
  public StoredObject create(String path, InputStream content) {
    BlobInfo info = BlobInfo.newBuilder(BlobId.of(bucket, path)).setContentType("application/octet-stream").build();
    WriteChannel channel;
    try {
      channel = storage.writer(info, BlobWriteOption.doesNotExist());
    } catch (StorageException e) {
      if (e.getCode() == 412) { // Cloud Storage may check the precondition when the session starts
        throw new ObjectExistsException(path);
      }
      throw failure("cannot start the upload of " + path, e);
    }
    channel.setChunkSize(CHUNK);
    byte[] buffer = new byte[1 << 16];
    try {
      // A failed source or chunk leaves the channel open: closing would finalize a part as the
      // object. The session is left to expire.
      for (int n; (n = SourceFailedException.read(content, buffer, path)) >= 0; ) {
        ByteBuffer bytes = ByteBuffer.wrap(buffer, 0, n);
        while (bytes.hasRemaining()) {
          // Sends a chunk once CHUNK bytes are buffered: its failure is the store's, not the source's.
          channel.write(bytes);
        }
      }
      channel.close();
    } catch (StorageException e) {
      if (e.getCode() == 412) {
        throw new ObjectExistsException(path);
      }
      throw failure("cannot upload " + path, e);
    } catch (IOException e) {
      if (e.getCause() instanceof StorageException storage && storage.getCode() == 412) {
        throw new ObjectExistsException(path);
      }
      throw new BackupStoreUnavailableException(describe(), "cannot upload " + path + ": " + e, e);
    }
    return stat(path).orElseThrow(() -> new NoSuchObjectException(describe(), path));
  }

  @Override
  public Optional<StoredObject> stat(String path) {
    try {
      Blob blob = storage.get(BlobId.of(bucket, path));
      if (blob == null) {
        requireBucket();
        return Optional.empty();
      }
      return Optional.of(toObject(blob));
    } catch (StorageException e) {
      throw failure("cannot read the metadata of " + path, e);
    }
  }

  @Override
  public InputStream open(String path) {
    try {
      Blob blob = storage.get(BlobId.of(bucket, path));
      if (blob == null) {
        requireBucket();
        throw new NoSuchObjectException(describe(), path);
      }
      // The generation whose metadata was read: a reader never mixes two writes.
      ReadChannel reader = storage.reader(BlobId.of(bucket, path, blob.getGeneration()));
      reader.setChunkSize(CHUNK);
      return Channels.newInputStream(reader);
    } catch (StorageException e) {
      throw failure("cannot read " + path, e);
    }
  }

  @Override
  public List<StoredObject> list(String prefix) {
    List<StoredObject> objects = new ArrayList<>();
    try {
      Page<Blob> page = storage.list(bucket, BlobListOption.prefix(prefix));
      for (Blob blob : page.iterateAll()) {
        objects.add(toObject(blob));
      }
    } catch (StorageException e) {
      throw failure("cannot list " + prefix, e);
    }
    objects.sort(Comparator.comparing(StoredObject::path));
    return objects;
  }

  @Override
  public void delete(String path) {
    try {
      if (!storage.delete(BlobId.of(bucket, path))) {
        requireBucket();
      }
    } catch (StorageException e) {
      throw failure("cannot delete " + path, e);
    }
  }

  /**
   * Fails unless the bucket exists: Cloud Storage answers a read or delete of an object in a
   * missing bucket as of a missing object. A listing of one object tells (it needs only the object
   * permissions the store needs anyway); called only when an object was not found. Its 404 is a
   * StorageException the caller reports as "no such bucket".
   */
  private void requireBucket() {
    storage.list(bucket, BlobListOption.pageSize(1));
  }

  private static StoredObject toObject(Blob blob) {
    Instant created = blob.getCreateTimeOffsetDateTime() == null ? null : blob.getCreateTimeOffsetDateTime().toInstant();
    return new StoredObject(blob.getName(), blob.getSize() == null ? 0 : blob.getSize(), blob.getCrc32c(), created);
  }

  private BackupStoreUnavailableException failure(String what, StorageException e) {
    String reason = e.getCode() == 404 ? "no such bucket" : e.getMessage();
    return new BackupStoreUnavailableException(describe(), what + ": " + reason, e);
  }
}
