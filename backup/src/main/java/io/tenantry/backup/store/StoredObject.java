package io.tenantry.backup.store;

import java.time.Instant;

/**
 * An object in a backup store.
 *
 * @param size bytes
 * @param crc32c the object's CRC32C in base64 (big-endian), as the store computed it from the bytes it holds;
 *     null in a listing of the local store, which computes it in {@link BackupStore#stat} only
 * @param created when the store created it
 */
public record StoredObject(String path, long size, String crc32c, Instant created) {
}
