package io.tenantry.secretstore;

/**
 * The encryption key cannot be used: the KMS key does not exist, is disabled or destroyed, or access
 * to it is denied; or the local keyset file is missing or unreadable. Needs an operator to fix the
 * key or its permissions.
 */
public final class KeyUnavailableException extends SecretStoreException {

  public KeyUnavailableException(String message, Throwable cause) {
    super(message, cause);
  }
}
