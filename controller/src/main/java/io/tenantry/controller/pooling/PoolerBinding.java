package io.tenantry.controller.pooling;

import io.fabric8.kubernetes.api.model.Secret;
import io.tenantry.api.v1alpha1.DatabaseSpec;
import io.tenantry.api.v1alpha1.PoolerMode;
import io.tenantry.controller.binding.ServiceBinding;
import io.tenantry.controller.resources.DatabaseCredentials;
import io.tenantry.controller.resources.DatabaseModel;
import io.tenantry.controller.resources.Names;
import io.tenantry.controller.resources.TenantContext;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.Map;

/**
 * The apps' binding of a database that has a pooler: the same Secret
 * ({@code db-<name>-binding}, mounted at the same path) with {@code host}, {@code port} and
 * {@code uri} at the pooler's Service. In transaction mode it adds {@link #JDBC_URL_KEY}, a JDBC
 * URL with {@code prepareThreshold=0}: a server connection serves a client for one transaction
 * only, and a statement pgjdbc prepared on one is missing from the next unless the pooler tracks
 * them (PgBouncer 1.21+ does, older ones do not). Migration and backup Jobs keep
 * {@link DatabaseModel#binding}, direct: DDL, advisory locks and pg_dump need a session.
 */
public final class PoolerBinding {

  /** Spring Cloud Bindings' key for a JDBC URL, taken as spring.datasource.url; credentials stay in their own keys. */
  public static final String JDBC_URL_KEY = "jdbc-url";

  private PoolerBinding() {
  }

  /** The binding's keys: the direct binding's, at the pooler, with a JDBC URL in transaction mode. */
  public static Map<String, String> entries(TenantContext ctx, DatabaseSpec db, DatabaseCredentials credentials) {
    ServiceBinding direct = DatabaseModel.binding(ctx, db, credentials);
    ServiceBinding pooled = new ServiceBinding(direct.type(), PoolerModel.host(ctx, db), PgBouncerConfig.PORT, direct.username(),
        direct.password(), direct.database());
    Map<String, String> entries = pooled.entries();
    if (db.getPooler().getMode() == PoolerMode.TRANSACTION) {
      entries.put(JDBC_URL_KEY, jdbcUrl(pooled));
    }
    return entries;
  }

  /** The binding Secret of a database with a pooler: the name and type of {@link DatabaseModel#bindingSecret}, these keys. */
  public static Secret secret(TenantContext ctx, DatabaseSpec db, DatabaseCredentials credentials) {
    return DatabaseModel.bindingSecret(ctx, db, credentials, Names.binding(db.getName()), entries(ctx, db, credentials));
  }

  /** The direct binding migration Jobs read while the database has a pooler ({@link Names#directBinding}). */
  public static Secret directSecret(TenantContext ctx, DatabaseSpec db, DatabaseCredentials credentials) {
    return DatabaseModel.bindingSecret(ctx, db, credentials, Names.directBinding(db.getName()),
        DatabaseModel.binding(ctx, db, credentials).entries());
  }

  /** {@code jdbc:postgresql://<host>:<port>/<database>?prepareThreshold=0}: no server-side prepared statements. */
  public static String jdbcUrl(ServiceBinding binding) {
    return "jdbc:postgresql://" + binding.host() + ":" + binding.port() + "/"
        + URLEncoder.encode(binding.database(), StandardCharsets.UTF_8) + "?prepareThreshold=0";
  }
}
