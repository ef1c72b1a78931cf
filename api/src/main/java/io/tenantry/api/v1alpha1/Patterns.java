package io.tenantry.api.v1alpha1;

/** Regular expressions shared by the model's validation annotations, and by tools that check input before writing it. */
public final class Patterns {
  /** An RFC 1123 DNS label: the names of apps and databases become object names. */
  public static final String DNS_LABEL = "^[a-z]([-a-z0-9]*[a-z0-9])?$";
  /** A positive Kubernetes quantity without sign or exponent, such as {@code 10Gi} or {@code 500m}. */
  public static final String QUANTITY = "^([0-9]+(\\.[0-9]+)?|\\.[0-9]+)([KMGTPE]i|[mkMGTPE])?$";
  /**
   * What a database restores from: {@code latest} or a backup id ({@code <database>-<yyyymmdd>-<hhmmss>-<6 hex>}),
   * optionally after {@code <tenant>/} for another tenant's backups.
   */
  public static final String RESTORE_FROM =
      "^([a-z0-9]([-a-z0-9]*[a-z0-9])?/)?(latest|[a-z]([-a-z0-9]*[a-z0-9])?-[0-9]{8}-[0-9]{6}-[0-9a-f]{6})$";
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
  /**
   * An absolute HTTP path of a route or a probe: the Gateway API's characters of an HTTPRoute path
   * match (RFC 3986 path characters and percent-encoded octets), starting with '/', without the
   * single quote (proxies that template paths into their configuration quote them with it). No
   * space, backtick, brace, double quote, '#', '?', '\' or '<>' can reach a proxy's configuration.
   * The segment rules are CEL, the {@code HTTP_PATH_NO_*} below: a regular expression without
   * look-ahead cannot say them readably.
   */
  public static final String HTTP_PATH = "^/([-A-Za-z0-9/._~!$&()*+,;=:@]|%[0-9a-fA-F]{2})*$";
  /** CEL: no empty segment ('//'), which proxies merge or keep as they please. */
  public static final String HTTP_PATH_NO_EMPTY_SEGMENT = "!self.contains('//')";
  /** CEL: no segment of dots only ('.', '..'), which proxies resolve and backends may not. */
  public static final String HTTP_PATH_NO_DOT_SEGMENT = "!self.matches('(^|/)[.]+(/|$)')";
  /**
   * CEL: no percent-encoded '/', '.' or '\' ({@code %2F}, {@code %2E}, {@code %5C}, either case): decoded
   * after routing, they make a segment or a dot segment the route did not see.
   */
  public static final String HTTP_PATH_NO_ENCODED_SEPARATOR = "!self.matches('%(2[fFeE]|5[cC])')";

  private Patterns() {
  }
}
