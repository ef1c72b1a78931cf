package io.tenantry.backup.agent;

import io.tenantry.backup.store.Crc32cs;
import java.io.FilterInputStream;
import java.io.FilterOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.zip.CRC32C;

/** Passes bytes on, counting them and taking their SHA-256 and CRC32C. */
final class CountingStream extends FilterOutputStream {

  private final MessageDigest sha256;
  private final CRC32C crc32c = new CRC32C();
  private long bytes;

  CountingStream(OutputStream out) {
    super(out);
    try {
      sha256 = MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  @Override
  public void write(int b) throws IOException {
    write(new byte[] {(byte) b}, 0, 1);
  }

  @Override
  public void write(byte[] b, int off, int len) throws IOException {
    out.write(b, off, len);
    sha256.update(b, off, len);
    crc32c.update(b, off, len);
    bytes += len;
  }

  /** {@code in}, passing every byte it reads through this stream: what a download received. */
  InputStream reading(InputStream in) {
    return new FilterInputStream(in) {
      @Override
      public int read() throws IOException {
        byte[] one = new byte[1];
        return read(one, 0, 1) < 0 ? -1 : one[0] & 0xff;
      }

      @Override
      public int read(byte[] b, int off, int len) throws IOException {
        int n = super.read(b, off, len);
        if (n > 0) {
          write(b, off, n);
        }
        return n;
      }
    };
  }

  long bytes() {
    return bytes;
  }

  String sha256() {
    return HexFormat.of().formatHex(sha256.digest());
  }

  String crc32c() {
    return Crc32cs.base64(crc32c);
  }
}
