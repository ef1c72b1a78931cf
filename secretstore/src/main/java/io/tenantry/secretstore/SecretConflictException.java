package io.tenantry.secretstore;

/**
 * A conditional write lost: {@link SecretStore#create} found the secret already there, or
 * {@link SecretStore#replace} found a version other than the expected one, or
 * {@link LocalSecretStore#init} found a store already there. Nothing was written.
 */
public final class SecretConflictException extends SecretStoreException {

  private final String path;

  public SecretConflictException(String path, String message, Throwable cause) {
    super(message, cause);
    this.path = path;
  }

  public String path() {
    return path;
  }
}
