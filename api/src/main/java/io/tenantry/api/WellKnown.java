package io.tenantry.api;

/** Labels and annotations the operator and its tools agree on, across modules. */
public final class WellKnown {

  /** Marks every object Tenantry owns; the operator's informers watch only objects carrying it. */
  public static final String MANAGED_BY = "app.kubernetes.io/managed-by";
  public static final String MANAGER = "tenantry";
  /** The owning tenant's name. */
  public static final String TENANT = "tenantry.io/tenant";
  /** On a spare tenant: the SparePool it belongs to (kept after allocation, for the pool's count). */
  public static final String SPARE_POOL = "tenantry.io/spare-pool";
  /** On the Secrets of the template namespace ("true"), and on their copies in tenant namespaces ("copy"). */
  public static final String TEMPLATE = "tenantry.io/template";
  /** Hex SHA-256 of a Secret's canonical data, as the secret store computes it: compare without values. */
  public static final String CONTENT_HASH = "tenantry.io/content-hash";
  /** The secret store's version of the data a Secret holds. */
  public static final String SECRET_VERSION = "tenantry.io/secret-version";

  private WellKnown() {
  }
}
