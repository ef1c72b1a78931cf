package io.tenantry.secretstore;

/**
 * The storage or the KMS could not be reached or did not answer (I/O error, network, timeout, server
 * error, access denied to the bucket). Usually transient: retry later; nothing was decided.
 */
public final class StoreUnavailableException extends SecretStoreException {

  public StoreUnavailableException(String message, Throwable cause) {
    super(message, cause);
  }
}
