package io.tenantry.backup;

import com.google.gson.Gson;
import com.google.gson.JsonParseException;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.util.Arrays;

/**
 * The bytes of a backup object: the Tink streaming AEAD ciphertext (the object's path as associated
 * data) of a magic line, the {@link BackupHeader} as length-prefixed JSON, then the dump exactly as
 * the engine's tool wrote it. Nothing of the dump is readable without the backup's key, and a
 * truncated, altered or moved object fails to decrypt (Tink authenticates every 1 MiB segment and
 * marks the last one), so a restore never reads a part for the whole.
 */
public final class BackupFormat {

  private static final byte[] MAGIC = "TENANTRY-BACKUP1".getBytes(StandardCharsets.US_ASCII);
  private static final int MAX_HEADER_BYTES = 16 << 20;
  private static final Gson GSON = Json.GSON;

  private BackupFormat() {
  }

  /** What a reader of a backup gets: its header, and the dump to read to its end. */
  public record Opened(BackupHeader header, InputStream dump) {
  }

  /**
   * A stream that encrypts into {@code sink} what is written to it, after the header. Close it to
   * write the last segment: until then the object is not a backup.
   */
  public static OutputStream encrypting(OutputStream sink, DataKey key, String objectPath, BackupHeader header)
      throws IOException {
    OutputStream encrypted;
    try {
      encrypted = key.streamingAead().newEncryptingStream(sink, DataKey.ad(objectPath));
    } catch (GeneralSecurityException e) {
      throw new IOException("cannot encrypt with the backup's key", e);
    }
    byte[] json = GSON.toJson(header).getBytes(StandardCharsets.UTF_8);
    DataOutputStream out = new DataOutputStream(encrypted);
    out.write(MAGIC);
    out.writeInt(json.length);
    out.write(json);
    return encrypted;
  }

  /**
   * Decrypts the backup object {@code source} (stored at {@code objectPath}), reading its header.
   *
   * @throws IOException if the object is not a backup under this key and path, or is truncated or
   *     altered; reading the dump throws it too when the damage is further on
   */
  public static Opened open(InputStream source, DataKey key, String objectPath) throws IOException {
    InputStream plain;
    try {
      plain = key.streamingAead().newDecryptingStream(source, DataKey.ad(objectPath));
    } catch (GeneralSecurityException e) {
      throw new IOException("cannot decrypt with the backup's key", e);
    }
    DataInputStream in = new DataInputStream(plain);
    try {
      byte[] magic = in.readNBytes(MAGIC.length);
      if (!Arrays.equals(magic, MAGIC)) {
        throw new IOException("not a Tenantry backup: the object does not start with its magic line");
      }
      int length = in.readInt();
      if (length < 0 || length > MAX_HEADER_BYTES) {
        throw new IOException("corrupt backup: a header of " + length + " bytes");
      }
      BackupHeader header = GSON.fromJson(new String(in.readNBytes(length), StandardCharsets.UTF_8), BackupHeader.class);
      if (header == null || header.engine() == null) {
        throw new IOException("corrupt backup: an empty header");
      }
      return new Opened(header, in);
    } catch (EOFException e) {
      throw new IOException("corrupt backup: it ends inside its header", e);
    } catch (JsonParseException e) {
      throw new IOException("corrupt backup: its header is not JSON", e);
    }
  }
}
