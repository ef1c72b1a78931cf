package io.tenantry.secretstore;

import java.time.Instant;
import java.util.Objects;

/**
 * What can be known about a stored secret without its values.
 *
 * @param scope the scope it belongs to
 * @param name its name, a DNS-1123 subdomain
 * @param version the store's version of it; any write changes it (see the store's documentation)
 * @param contentHash {@link SecretFormat#contentHash} of its data: equal data, equal hash
 * @param updated when it was last written
 */
public record SecretMetadata(Scope scope, String name, String version, String contentHash, Instant updated) {

  public SecretMetadata {
    Objects.requireNonNull(scope, "scope");
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(version, "version");
    Objects.requireNonNull(contentHash, "contentHash");
    Objects.requireNonNull(updated, "updated");
  }

  /** The secret's path in the store, such as {@code tenants/acme/db}. */
  public String path() {
    return SecretFormat.path(scope, name);
  }
}
