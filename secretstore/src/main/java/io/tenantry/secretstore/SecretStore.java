package io.tenantry.secretstore;

import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * An encrypted store of named secrets, each a map of data keys to bytes like a Kubernetes Secret's
 * data, grouped by {@link Scope}. See the package documentation for the format and guarantees.
 *
 * <p>Names are validated before anything is read or written ({@link InvalidInputException} naming the
 * field). Failures are {@link SecretStoreException}s: {@link CorruptSecretException},
 * {@link StoreUnavailableException}, {@link KeyUnavailableException} or, for conditional writes,
 * {@link SecretConflictException}. No message or log line ever holds a secret value.
 */
public interface SecretStore {

  /** The secret, or empty when there is none by that name. */
  Optional<StoredSecret> get(Scope scope, String name);

  /** Metadata of every secret in the scope, sorted by name; values are not returned. */
  List<SecretMetadata> list(Scope scope);

  /** Writes the secret, replacing any previous one (last writer wins); returns the new version. */
  String put(Scope scope, String name, Map<String, byte[]> data);

  /**
   * Writes the secret only if there is none by that name, so that of concurrent creators exactly one
   * wins (for generated credentials); returns the new version.
   *
   * @throws SecretConflictException if the secret exists
   */
  String create(Scope scope, String name, Map<String, byte[]> data);

  /**
   * Replaces the secret only if its current version is {@code expectedVersion} (compare-and-swap);
   * returns the new version.
   *
   * @throws SecretConflictException if it was changed or deleted since that version was read
   */
  String replace(Scope scope, String name, Map<String, byte[]> data, String expectedVersion);

  /** Deletes the secret; returns whether there was one. */
  boolean delete(Scope scope, String name);

  /** Deletes every secret of the scope (a purged tenant's, say); returns how many were deleted. */
  int deleteScope(Scope scope);

  /** Where the secrets are, for logs and conditions: {@code gs://bucket} or {@code file:/dir}. */
  String location();
}
