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
  /** On an allocated tenant: the signup request id it was allocated to (the allocation's idempotency key). */
  public static final String ALLOCATION_REQUEST = "tenantry.io/allocation-request";
  /** On an allocated tenant: when it was allocated (RFC 3339). */
  public static final String ALLOCATED_AT = "tenantry.io/allocated-at";
  /** On an allocated tenant ("true"): its allocation is in the fleet records. */
  public static final String ALLOCATION_RECORDED = "tenantry.io/allocation-recorded";
  /**
   * On a SparePool: the last time (RFC 3339) a signup found no Ready spare in it. While recent, the
   * pool builds beyond its buffer (see the SparePool controller).
   */
  public static final String SHORTAGE_AT = "tenantry.io/shortage-at";
  /** On the Secrets of the template namespace ("true"), and on their copies in tenant namespaces ("copy"). */
  public static final String TEMPLATE = "tenantry.io/template";
  /** Hex SHA-256 of a Secret's canonical data, as the secret store computes it: compare without values. */
  public static final String CONTENT_HASH = "tenantry.io/content-hash";
  /**
   * On every Tenant: the operator's finalizer, held until it has purged what the tenant owns outside
   * the cluster. A SparePool creates its spares with it, sparing each a write and a sync.
   */
  public static final String CLEANUP_FINALIZER = "tenantry.io/cleanup";
  /** The secret store's version of the data a Secret holds. */
  public static final String SECRET_VERSION = "tenantry.io/secret-version";

  /**
   * On a tenant namespace: the lifecycle state of its Tenant. The shipped admission policy refuses
   * deleting a tenant namespace unless this says Purged, which only the operator sets, just before
   * it deletes the namespace of a purged tenant.
   */
  public static final String STATE = "tenantry.io/state";
  /** On a tenant namespace: the UID of the Tenant it was made for; the operator never takes over a namespace it did not make. */
  public static final String TENANT_UID = "tenantry.io/tenant-uid";

  private WellKnown() {
  }
}
