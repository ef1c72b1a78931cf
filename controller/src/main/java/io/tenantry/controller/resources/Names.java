package io.tenantry.controller.resources;

/**
 * Names of the objects in a tenant namespace. Apps and databases get distinct prefixes so that an
 * app and a database of the same name never collide.
 */
public final class Names {

  public static final String QUOTA = "tenant-quota";
  public static final String LIMITS = "tenant-limits";
  public static final String ISOLATION = "tenant-isolation";
  public static final String ALLOW_FROM_EDGE = "allow-from-edge";
  public static final String ALLOW_BACKUP_TRANSFER = "allow-backup-transfer";
  /** The ConfigMap with the tenant's identity, mounted in every app. */
  public static final String IDENTITY = "tenant-identity";

  private Names() {
  }

  public static String namespace(String prefix, String tenant) {
    return prefix + tenant;
  }

  public static String app(String app) {
    return "app-" + app;
  }

  public static String database(String database) {
    return "db-" + database;
  }

  public static String appConfig(String app) {
    return "app-" + app + "-config";
  }

  /** The Job migrating {@code app} to {@code versionHash} (a short hash of image and version: a tag may be long). */
  public static String migration(String app, String versionHash) {
    return "migrate-" + app + "-" + versionHash;
  }

  /** The database's binding Secret (servicebinding.io), built from its credentials. */
  public static String binding(String database) {
    return "db-" + database + "-binding";
  }

  /**
   * The binding of {@code database} that bypasses its pooler, for migration Jobs (DDL and advisory
   * locks need a session); made only while the database has a pooler.
   */
  public static String directBinding(String database) {
    return "db-" + database + "-direct-binding";
  }

  /** The PgBouncer in front of {@code database} (spec.databases[].pooler): its Deployment and Service. */
  public static String pooler(String database) {
    return "db-" + database + "-pooler";
  }

  /** The Secret holding the pooler's pgbouncer.ini and userlist.txt. */
  public static String poolerConfig(String database) {
    return "db-" + database + "-pooler-config";
  }

  public static String credentials(String database) {
    return "db-" + database + "-credentials";
  }

  /** The RoleBinding of an access level (earlier versions also made a Role of this name). */
  public static String role(String access) {
    return "tenant-" + access;
  }
}
