package io.tenantry.backup;

import java.util.Objects;
import java.util.regex.Pattern;

/**
 * Where one database's backups live in a backup store:
 * {@code backups/<cluster>/<tenant>-<tenant uid>/<database>/}. The tenant's UID is part of the
 * path, so a later tenant of the same name (a name reused after a purge, or on another cluster)
 * never lists, restores or prunes another's backups; the full path is also the associated data of
 * every encryption under it, so an object or manifest moved elsewhere fails to open.
 */
public record BackupLocation(String cluster, String tenant, String tenantUid, String database) {

  private static final Pattern LABEL = Pattern.compile("[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?");
  private static final Pattern UID = Pattern.compile("[A-Za-z0-9-]{1,64}");
  static final String OBJECT_SUFFIX = ".dump.enc";
  static final String MANIFEST_SUFFIX = ".manifest";
  static final String REPORT_SUFFIX = ".report";

  public BackupLocation {
    requireLabel("cluster", cluster);
    requireLabel("tenant", tenant);
    requireLabel("database", database);
    Objects.requireNonNull(tenantUid, "tenantUid");
    if (!UID.matcher(tenantUid).matches()) {
      throw new IllegalArgumentException("tenantUid must be a Kubernetes UID, got '" + tenantUid + "'");
    }
  }

  /** Every backup of every database of one tenant (what a purge deletes). */
  public static String tenantPrefix(String cluster, String tenant, String tenantUid) {
    return new BackupLocation(cluster, tenant, tenantUid, "x").tenantPrefix();
  }

  public String tenantPrefix() {
    return "backups/" + cluster + "/" + tenant + "-" + tenantUid + "/";
  }

  /** This database's backups, ending in a slash. */
  public String prefix() {
    return tenantPrefix() + database + "/";
  }

  /** The encrypted dump of backup {@code id}. */
  public String objectPath(BackupId id) {
    return prefix() + id + OBJECT_SUFFIX;
  }

  /** What the agent of backup {@code id}'s Job reported, success or failure (its first error line). */
  public String reportPath(BackupId id) {
    return prefix() + id + REPORT_SUFFIX;
  }

  /** The report path that goes with an object path: a transfer token names the object only. */
  public static String reportPathOf(String objectPath) {
    if (!objectPath.endsWith(OBJECT_SUFFIX)) {
      throw new IllegalArgumentException("not a backup object's path: " + objectPath);
    }
    return objectPath.substring(0, objectPath.length() - OBJECT_SUFFIX.length()) + REPORT_SUFFIX;
  }

  /**
   * Where the agent of restore Job {@code job} (a drill's, or a restore's) reports how it went: a
   * path of that Job alone, read and deleted by the operator; nested, so no listing takes it for a backup.
   */
  public String restoreReportPath(String job) {
    requireLabel("job", job);
    return prefix() + "restores/" + job + REPORT_SUFFIX;
  }

  /** The sealed manifest that proves backup {@code id}. */
  public String manifestPath(BackupId id) {
    return prefix() + id + MANIFEST_SUFFIX;
  }

  private static void requireLabel(String field, String value) {
    Objects.requireNonNull(value, field);
    if (!LABEL.matcher(value).matches()) {
      throw new IllegalArgumentException(field + " must be a DNS label (lower case letters, digits, '-'), got '"
          + value + "'");
    }
  }
}
