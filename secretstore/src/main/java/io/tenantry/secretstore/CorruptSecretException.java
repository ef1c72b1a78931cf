package io.tenantry.secretstore;

/**
 * A stored secret that cannot be decrypted or decoded: the key is not the one it was written with,
 * its bytes were changed, or it was copied from another path (the path is authenticated). Retrying
 * does not help; the secret must be written again.
 */
public final class CorruptSecretException extends SecretStoreException {

  private final String path;

  public CorruptSecretException(String path, Throwable cause) {
    this(path, "cannot decrypt " + path + ": wrong key, tampered ciphertext, or copied from another path", cause);
  }

  public CorruptSecretException(String path, String message, Throwable cause) {
    super(message, cause);
    this.path = path;
  }

  /** The secret's path in the store, such as {@code tenants/acme/db}. */
  public String path() {
    return path;
  }
}
