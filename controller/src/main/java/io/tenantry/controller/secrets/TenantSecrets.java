package io.tenantry.controller.secrets;

import io.fabric8.kubernetes.api.model.Secret;
import io.tenantry.api.WellKnown;
import io.tenantry.api.v1alpha1.DatabaseSpec;
import io.tenantry.controller.cache.ClusterView;
import io.tenantry.controller.resources.DatabaseCredentials;
import io.tenantry.controller.resources.DatabaseModel;
import io.tenantry.controller.resources.Names;
import io.tenantry.controller.resources.TenantContext;
import io.tenantry.controller.status.Reason;
import io.tenantry.secretstore.CorruptSecretException;
import io.tenantry.secretstore.KeyUnavailableException;
import io.tenantry.secretstore.Scope;
import io.tenantry.secretstore.SecretConflictException;
import io.tenantry.secretstore.SecretFormat;
import io.tenantry.secretstore.SecretStore;
import io.tenantry.secretstore.SecretStoreException;
import io.tenantry.secretstore.StoreUnavailableException;
import io.tenantry.secretstore.StoredSecret;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A tenant's secrets: its database credentials, generated once and kept encrypted in the store
 * under the tenant, and the template secrets every tenant gets a copy of.
 *
 * <p>The credentials Secret in the namespace is a copy the tenant can write, so it is trusted only
 * as far as it matches the store: the version and content hash of the store's credentials, read
 * once per database and process, are remembered, and a copy that differs in any way (a key
 * edited, removed, emptied or not base64, an annotation changed, the Secret deleted) is never
 * read further: the credentials come from the store and the copy is rewritten from them. A
 * converged tenant therefore costs no store call after its first sync in this process.
 */
public final class TenantSecrets {

  private static final SecureRandom RANDOM = new SecureRandom();

  private final SecretStore store;
  private final ClusterView cache;
  /** Each database's stored credentials, by tenant/Secret name, as last read from or written to the store. */
  private final Map<String, Stamp> verified = new ConcurrentHashMap<>();

  /** What identifies stored credentials without holding them: their store version and content hash. */
  private record Stamp(String version, String contentHash) {
  }

  public TenantSecrets(SecretStore store, ClusterView cache) {
    this.store = store;
    this.cache = cache;
  }

  /** What the tenant namespace should hold: credentials by database name, and the template Secrets to copy. */
  public record Resolved(Map<String, DatabaseCredentials> credentials, List<Secret> templates) {

    /** A short digest of every secret version the tenant runs with. */
    public String version() {
      Map<String, String> versions = new TreeMap<>();
      credentials.forEach((db, c) -> versions.put("db/" + db, c.version()));
      templates.forEach(t -> versions.put("template/" + t.getMetadata().getName(),
          t.getMetadata().getAnnotations() == null ? "" : t.getMetadata().getAnnotations().get(WellKnown.SECRET_VERSION)));
      try {
        byte[] digest = MessageDigest.getInstance("SHA-256").digest(versions.toString().getBytes(StandardCharsets.UTF_8));
        return HexFormat.of().formatHex(digest, 0, 6);
      } catch (NoSuchAlgorithmException e) {
        throw new IllegalStateException(e);
      }
    }
  }

  /**
   * @throws io.tenantry.secretstore.SecretStoreException when the store must be read or written and cannot be
   */
  public Resolved resolve(TenantContext ctx) {
    Map<String, DatabaseCredentials> credentials = new LinkedHashMap<>();
    for (DatabaseSpec db : ctx.tenant().getSpec().getDatabases()) {
      credentials.put(db.getName(), credentials(ctx, db));
    }
    return new Resolved(credentials, cache.templateSecrets());
  }

  private DatabaseCredentials credentials(TenantContext ctx, DatabaseSpec db) {
    String name = Names.credentials(db.getName());
    String key = ctx.name() + "/" + name;
    DatabaseCredentials copy = trusted(cache.get(Secret.class, ctx.namespace(), name), verified.get(key));
    if (copy != null) {
      return copy;
    }
    Scope scope = Scope.tenant(ctx.name());
    DatabaseCredentials credentials = store.get(scope, name).map(TenantSecrets::of)
        .orElseGet(() -> generated(scope, name, DatabaseModel.defaultUsername(db.getEngine())));
    verified.put(key, new Stamp(credentials.version(), credentials.contentHash()));
    return credentials;
  }

  /**
   * The credentials the cached copy holds, when it is exactly what the store holds ({@code stamp}),
   * annotations included; null otherwise (no stamp yet, or a key missing or malformed).
   */
  private static DatabaseCredentials trusted(Secret cached, Stamp stamp) {
    String username = DatabaseModel.username(cached);
    String password = DatabaseModel.password(cached);
    if (stamp == null || username == null || password == null
        || !Objects.equals(stamp.version(), annotation(cached, WellKnown.SECRET_VERSION))
        || !Objects.equals(stamp.contentHash(), annotation(cached, WellKnown.CONTENT_HASH))
        || !Objects.equals(stamp.contentHash(), SecretFormat.contentHash(data(username, password)))) {
      return null;
    }
    return new DatabaseCredentials(username, password, stamp.version(), stamp.contentHash());
  }

  /** New credentials, stored if no other writer stored some first (theirs are then the tenant's). */
  private DatabaseCredentials generated(Scope scope, String name, String username) {
    String password = generate();
    Map<String, byte[]> data = data(username, password);
    try {
      String version = store.create(scope, name, data);
      return new DatabaseCredentials(username, password, version, SecretFormat.contentHash(data));
    } catch (SecretConflictException e) {
      return of(store.get(scope, name).orElseThrow(() -> e));
    }
  }

  private static Map<String, byte[]> data(String username, String password) {
    Map<String, byte[]> data = new TreeMap<>();
    data.put(DatabaseModel.USERNAME_KEY, username.getBytes(StandardCharsets.UTF_8));
    data.put(DatabaseModel.PASSWORD_KEY, password.getBytes(StandardCharsets.UTF_8));
    return data;
  }

  /** The reason a tenant reports a store failure under: each sealed subtype named, so none goes unmapped silently. */
  public static Reason reason(SecretStoreException failure) {
    if (failure instanceof StoreUnavailableException) {
      return Reason.StoreUnavailable;
    }
    if (failure instanceof KeyUnavailableException) {
      return Reason.KeyUnavailable;
    }
    if (failure instanceof CorruptSecretException) {
      return Reason.CorruptSecret;
    }
    if (failure instanceof SecretConflictException) {
      return Reason.SecretConflict;
    }
    throw new IllegalArgumentException("no reason for " + failure.getClass().getName());
  }

  /** Deletes every secret the store keeps for a purged tenant. */
  public void purge(String tenant) {
    store.deleteScope(Scope.tenant(tenant));
    verified.keySet().removeIf(key -> key.startsWith(tenant + "/"));
  }

  private static DatabaseCredentials of(StoredSecret stored) {
    Map<String, byte[]> data = stored.data();
    return new DatabaseCredentials(new String(data.get(DatabaseModel.USERNAME_KEY), StandardCharsets.UTF_8),
        new String(data.get(DatabaseModel.PASSWORD_KEY), StandardCharsets.UTF_8), stored.version(), stored.contentHash());
  }

  private static String annotation(Secret secret, String key) {
    return secret == null || secret.getMetadata().getAnnotations() == null ? null : secret.getMetadata().getAnnotations().get(key);
  }

  /** 192 random bits, URL-safe base64 (32 characters). */
  static String generate() {
    byte[] bytes = new byte[24];
    RANDOM.nextBytes(bytes);
    return Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
  }
}
