package io.tenantry.controller.resources;

/**
 * Names of the objects in a tenant namespace. Apps and databases get distinct prefixes so that an
 * app and a database of the same name never collide.
 */
public final class Names {

  public static final String QUOTA = "tenant-quota";
  public static final String LIMITS = "tenant-limits";
  public static final String DEFAULT_DENY = "default-deny";
  public static final String ALLOW_SAME_NAMESPACE = "allow-same-namespace";
  public static final String ALLOW_FROM_EDGE = "allow-from-edge";

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

  public static String credentials(String database) {
    return "db-" + database + "-credentials";
  }

  public static String role(String access) {
    return "tenant-" + access;
  }
}
