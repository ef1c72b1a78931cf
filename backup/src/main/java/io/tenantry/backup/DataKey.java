package io.tenantry.backup;

import com.google.crypto.tink.Aead;
import com.google.crypto.tink.InsecureSecretKeyAccess;
import com.google.crypto.tink.KeysetHandle;
import com.google.crypto.tink.RegistryConfiguration;
import com.google.crypto.tink.StreamingAead;
import com.google.crypto.tink.TinkProtoKeysetFormat;
import com.google.crypto.tink.streamingaead.AesGcmHkdfStreamingParameters;
import com.google.crypto.tink.streamingaead.PredefinedStreamingAeadParameters;
import com.google.crypto.tink.streamingaead.StreamingAeadConfig;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;

/**
 * The key of one backup: a Tink streaming AEAD keyset ({@code AES256_GCM_HKDF_1MB}), fresh for every
 * backup. It leaves the operator in two forms only: wrapped by the store's key (in the manifest),
 * and in clear in the short-lived Secret of the one Job that writes or reads that backup.
 */
public final class DataKey {

  static {
    try {
      StreamingAeadConfig.register();
    } catch (GeneralSecurityException e) {
      throw new ExceptionInInitializerError(e);
    }
  }

  private final KeysetHandle handle;

  private DataKey(KeysetHandle handle) {
    this.handle = handle;
  }

  public static DataKey generate() {
    try {
      return new DataKey(KeysetHandle.generateNew(PredefinedStreamingAeadParameters.AES256_GCM_HKDF_1MB));
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("cannot generate a streaming AEAD key", e);
    }
  }

  /**
   * A key of this kind (AES-256-GCM, HKDF-SHA256) but with {@code segmentBytes} ciphertext segments
   * instead of 1 MiB: for {@link CipherWarmUp} only, never for a backup.
   */
  static DataKey withSegments(int segmentBytes) {
    try {
      return new DataKey(KeysetHandle.generateNew(AesGcmHkdfStreamingParameters.builder()
          .setKeySizeBytes(32)
          .setDerivedAesGcmKeySizeBytes(32)
          .setHkdfHashType(AesGcmHkdfStreamingParameters.HashType.SHA256)
          .setCiphertextSegmentSizeBytes(segmentBytes)
          .build()));
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("cannot generate a streaming AEAD key", e);
    }
  }

  /** The key as a Job receives it (Tink's binary keyset format, in clear). */
  public byte[] cleartext() {
    try {
      return TinkProtoKeysetFormat.serializeKeyset(handle, InsecureSecretKeyAccess.get());
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("cannot serialize a streaming AEAD key", e);
    }
  }

  /**
   * Reads a key in the form of {@link #cleartext}.
   *
   * @throws GeneralSecurityException if the bytes are not a streaming AEAD keyset
   */
  public static DataKey fromCleartext(byte[] keyset) throws GeneralSecurityException {
    return new DataKey(TinkProtoKeysetFormat.parseKeyset(keyset, InsecureSecretKeyAccess.get()));
  }

  /** The key encrypted by {@code kek} (the store's key) with {@code objectPath} as associated data. */
  public byte[] wrap(Aead kek, String objectPath) throws GeneralSecurityException {
    return TinkProtoKeysetFormat.serializeEncryptedKeyset(handle, kek, ad(objectPath));
  }

  /**
   * The key {@link #wrap} wrapped for {@code objectPath}.
   *
   * @throws GeneralSecurityException if it was wrapped by another key or for another path, or is corrupt
   */
  public static DataKey unwrap(byte[] wrapped, Aead kek, String objectPath) throws GeneralSecurityException {
    return new DataKey(TinkProtoKeysetFormat.parseEncryptedKeyset(wrapped, kek, ad(objectPath)));
  }

  StreamingAead streamingAead() throws GeneralSecurityException {
    return handle.getPrimitive(RegistryConfiguration.get(), StreamingAead.class);
  }

  static byte[] ad(String objectPath) {
    return objectPath.getBytes(StandardCharsets.UTF_8);
  }
}
