package io.tenantry.controller.lifecycle;

import io.fabric8.kubernetes.api.model.Secret;
import io.tenantry.api.v1alpha1.DatabaseSpec;
import io.tenantry.controller.cache.InformerCache;
import io.tenantry.controller.resources.DatabaseModel;
import io.tenantry.controller.resources.Names;
import io.tenantry.controller.resources.TenantContext;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.HashMap;
import java.util.Map;

/** Database passwords: the one in the existing credentials Secret, else a new random one (generated once, never rotated by a resync). */
final class Credentials {

  private static final SecureRandom RANDOM = new SecureRandom();

  private Credentials() {
  }

  static Map<String, String> passwords(TenantContext ctx, InformerCache cache) {
    Map<String, String> passwords = new HashMap<>();
    for (DatabaseSpec db : ctx.tenant().getSpec().getDatabases()) {
      Secret existing = cache.get(Secret.class, ctx.namespace(), Names.credentials(db.getName()));
      String password = DatabaseModel.password(existing);
      passwords.put(db.getName(), password != null ? password : generate());
    }
    return passwords;
  }

  /** 192 random bits, URL-safe base64 (32 characters). */
  static String generate() {
    byte[] bytes = new byte[24];
    RANDOM.nextBytes(bytes);
    return Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
  }
}
