/**
 * The encrypted secret store: named secrets, each a map of data keys to bytes like a Kubernetes
 * Secret's data, kept encrypted by {@link io.tenantry.secretstore.SecretStore} implementations and
 * grouped by {@link io.tenantry.secretstore.Scope}: the template scope (copied into every tenant
 * namespace) or one tenant's.
 *
 * <h2>Format, shared by both stores</h2>
 * <ul>
 *   <li>One file or object per secret, at {@code template/<name>} or {@code tenants/<tenant>/<name>};
 *       tenant names are DNS labels, secret names DNS-1123 subdomains, data keys Kubernetes
 *       Secret keys.
 *   <li>Its content is the AEAD ciphertext of the secret's canonical encoding, a JSON object of the
 *       data keys in ascending order mapped to base64 values ({@link io.tenantry.secretstore.SecretFormat}).
 *   <li>The associated data is the path, so a ciphertext copied to another name, scope or tenant
 *       does not decrypt: {@link io.tenantry.secretstore.CorruptSecretException}.
 *   <li>The content hash is the hex SHA-256 of the canonical encoding: callers compare it with the
 *       hash of what they hold ({@link io.tenantry.secretstore.SecretFormat#contentHash}) without
 *       handling values. It is computed from decrypted data and never stored in clear.
 * </ul>
 *
 * <h2>Implementations</h2>
 * <ul>
 *   <li>{@link io.tenantry.secretstore.LocalSecretStore}, the embedded default: a directory and a
 *       local Tink AES256_GCM keyset ({@link io.tenantry.secretstore.LocalKeyset}); atomic renames.
 *   <li>{@link io.tenantry.secretstore.GcsSecretStore}: a Cloud Storage bucket, envelope encryption
 *       with a Cloud KMS key; version = object generation, conditional writes by generation.
 * </ul>
 *
 * <h2>Guarantees</h2>
 * <ul>
 *   <li>Nothing is stored in clear: not values, not data keys.
 *   <li>A reader sees a whole secret as one writer wrote it, with the version of that write.
 *   <li>Bad input fails before any I/O with {@link io.tenantry.secretstore.InvalidInputException}
 *       naming the field; every other failure is a {@link io.tenantry.secretstore.SecretStoreException}
 *       saying what failed (store or KMS unavailable, key unusable, corrupt secret, lost conditional
 *       write).
 *   <li>No exception message and no log line contains a secret value.
 * </ul>
 */
package io.tenantry.secretstore;
