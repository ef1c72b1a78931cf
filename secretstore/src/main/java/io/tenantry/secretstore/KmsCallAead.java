package io.tenantry.secretstore;

import com.google.api.gax.rpc.ApiException;
import com.google.api.gax.rpc.StatusCode;
import com.google.crypto.tink.Aead;
import java.security.GeneralSecurityException;
import java.util.Optional;

/**
 * Marks the failures of the remote KMS AEAD, so that the envelope's callers can tell a KMS that did
 * not answer (or refused the key) from a data key or ciphertext that does not decrypt: both arrive
 * from {@code KmsEnvelopeAead} as {@link GeneralSecurityException}s.
 */
final class KmsCallAead implements Aead {

  /** A failed call to the KMS; its cause is what the KMS client threw. */
  static final class KmsCallException extends GeneralSecurityException {
    KmsCallException(GeneralSecurityException cause) {
      super(cause.getMessage(), cause);
    }

    /** The gRPC status of the failed call, when the KMS answered with one. */
    Optional<StatusCode.Code> statusCode() {
      for (Throwable t = getCause(); t != null; t = t.getCause()) {
        if (t instanceof ApiException api) {
          return Optional.of(api.getStatusCode().getCode());
        }
      }
      return Optional.empty();
    }
  }

  private final Aead kms;

  KmsCallAead(Aead kms) {
    this.kms = kms;
  }

  @Override
  public byte[] encrypt(byte[] plaintext, byte[] associatedData) throws GeneralSecurityException {
    try {
      return kms.encrypt(plaintext, associatedData);
    } catch (GeneralSecurityException e) {
      throw new KmsCallException(e);
    }
  }

  @Override
  public byte[] decrypt(byte[] ciphertext, byte[] associatedData) throws GeneralSecurityException {
    try {
      return kms.decrypt(ciphertext, associatedData);
    } catch (GeneralSecurityException e) {
      throw new KmsCallException(e);
    }
  }
}
