package io.tenantry.api.v1alpha1;

/** Regular expressions shared by the model's validation annotations, and by tools that check input before writing it. */
public final class Patterns {
  /** An RFC 1123 DNS label: the names of apps and databases become object names. */
  public static final String DNS_LABEL = "^[a-z]([-a-z0-9]*[a-z0-9])?$";
  /** A positive Kubernetes quantity without sign or exponent, such as {@code 10Gi} or {@code 500m}. */
  public static final String QUANTITY = "^([0-9]+(\\.[0-9]+)?|\\.[0-9]+)([KMGTPE]i|[mkMGTPE])?$";
  /** A container image tag, as the OCI distribution spec allows it. */
  public static final String IMAGE_TAG = "^[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}$";
  /** An image reference without tag or digest: registry/path. */
  public static final String IMAGE = "^[a-z0-9]+([._-][a-z0-9]+)*(:[0-9]+)?(/[a-z0-9]+([._-][a-z0-9]+)*)*$";
  /** An environment variable name (C identifier). */
  public static final String ENV_NAME = "^[A-Za-z_][A-Za-z0-9_]*$";
  /** An RFC 1123 DNS subdomain: the name of a Secret or ConfigMap. */
  public static final String DNS_SUBDOMAIN = "^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$";
  /** A public hostname: a lowercase DNS name of at least two labels, never a wildcard. */
  public static final String HOSTNAME = "^([a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?\\.)+[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$";
  /** A file name a ConfigMap key can be, never a hidden file or a path. */
  public static final String FILE_NAME = "^[A-Za-z0-9_-][A-Za-z0-9._-]*$";
  /** An absolute HTTP path, as a probe requests it. */
  public static final String HTTP_PATH = "^/[!-~]*$";

  private Patterns() {
  }
}
