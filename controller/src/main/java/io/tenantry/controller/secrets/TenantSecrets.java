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
import java.util.Optional;
import java.util.TreeMap;

/**
 * A tenant's secrets: its database credentials, generated once and kept encrypted in the store
 * under the tenant, and the template secrets every tenant gets a copy of. The store is read only
 * when the namespace lacks a credentials Secret that carries its store version (a new database,
 * a Secret deleted by hand, a first run): a converged tenant costs no store call.
 */
public final class TenantSecrets {

  private static final SecureRandom RANDOM = new SecureRandom();

  private final SecretStore store;
  private final ClusterView cache;

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
    Secret cached = cache.get(Secret.class, ctx.namespace(), name);
    String cachedVersion = annotation(cached, WellKnown.SECRET_VERSION);
    if (cachedVersion != null) {
      return new DatabaseCredentials(DatabaseModel.username(cached), DatabaseModel.password(cached), cachedVersion,
          annotation(cached, WellKnown.CONTENT_HASH));
    }
    Scope scope = Scope.tenant(ctx.name());
    Optional<StoredSecret> stored = store.get(scope, name);
    if (stored.isPresent()) {
      return of(stored.get());
    }
    // None stored yet: keep what the namespace already has (made before the store held it), else generate.
    Map<String, byte[]> data = new TreeMap<>();
    String username = cached != null ? DatabaseModel.username(cached) : DatabaseModel.defaultUsername(db.getEngine());
    String password = cached != null ? DatabaseModel.password(cached) : generate();
    data.put(DatabaseModel.USERNAME_KEY, username.getBytes(StandardCharsets.UTF_8));
    data.put(DatabaseModel.PASSWORD_KEY, password.getBytes(StandardCharsets.UTF_8));
    try {
      String version = store.create(scope, name, data);
      return new DatabaseCredentials(username, password, version, SecretFormat.contentHash(data));
    } catch (SecretConflictException e) {
      // Another writer stored it first: theirs is the tenant's credentials.
      return of(store.get(scope, name).orElseThrow(() -> e));
    }
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
