package io.tenantry.backup.store;

import java.nio.ByteBuffer;
import java.util.Base64;
import java.util.zip.CRC32C;

/** CRC32C as Cloud Storage writes it: the 4 big-endian bytes, base64. */
public final class Crc32cs {

  private Crc32cs() {
  }

  public static String base64(CRC32C crc) {
    return Base64.getEncoder().encodeToString(ByteBuffer.allocate(4).putInt((int) crc.getValue()).array());
  }
}
