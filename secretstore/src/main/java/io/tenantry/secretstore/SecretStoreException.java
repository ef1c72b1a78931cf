package io.tenantry.secretstore;

/**
 * A store operation that failed for a reason other than bad input. Each subclass is a kind of
 * failure a caller reacts to differently (retry later, alert, resolve a conflict); messages name the
 * secret's path, the bucket or the key, never a secret value.
 */
public abstract sealed class SecretStoreException extends RuntimeException
    permits CorruptSecretException, StoreUnavailableException, KeyUnavailableException,
    SecretConflictException {

  protected SecretStoreException(String message, Throwable cause) {
    super(message, cause);
  }
}
