package io.tenantry.secretstore;

import java.util.regex.Pattern;

/**
 * The naming rules of the store. Names end up as Kubernetes object names and data keys, so they
 * follow Kubernetes' own rules, and the store refuses anything else before touching storage.
 * Names are never secret, so they may appear in error messages; values never do.
 */
public final class Names {

  /** The pattern of a Tenant's metadata.name (RFC 1035 label, as the Tenant CRD enforces). */
  private static final Pattern DNS_LABEL = Pattern.compile("[a-z]([-a-z0-9]*[a-z0-9])?");
  private static final int DNS_LABEL_MAX = 63;

  private static final String SUBDOMAIN_PART = "[a-z0-9]([-a-z0-9]*[a-z0-9])?";
  private static final Pattern DNS_SUBDOMAIN =
      Pattern.compile(SUBDOMAIN_PART + "(\\." + SUBDOMAIN_PART + ")*");
  private static final int DNS_SUBDOMAIN_MAX = 253;

  /** A Secret's data key (Kubernetes' IsConfigMapKey). */
  private static final Pattern DATA_KEY = Pattern.compile("[-._a-zA-Z0-9]+");
  private static final int DATA_KEY_MAX = 253;

  private Names() {
  }

  /** Refuses a tenant name that is not a DNS label. */
  public static String requireTenantName(String tenant) {
    if (tenant == null) {
      throw new InvalidInputException("tenant", "tenant must not be null");
    }
    if (tenant.length() > DNS_LABEL_MAX || !DNS_LABEL.matcher(tenant).matches()) {
      throw new InvalidInputException("tenant", "tenant must be a DNS label (lowercase letters, digits and '-',"
          + " starting with a letter, ending with a letter or digit, at most " + DNS_LABEL_MAX
          + " characters): " + quote(tenant));
    }
    return tenant;
  }

  /** Refuses a secret name that is not a DNS-1123 subdomain, the rule for a Secret's metadata.name. */
  public static String requireSecretName(String name) {
    if (name == null) {
      throw new InvalidInputException("name", "name must not be null");
    }
    if (name.length() > DNS_SUBDOMAIN_MAX || !DNS_SUBDOMAIN.matcher(name).matches()) {
      throw new InvalidInputException("name", "name must be a DNS-1123 subdomain (lowercase letters, digits,"
          + " '-' and '.', each dot-separated part starting and ending with a letter or digit, at most "
          + DNS_SUBDOMAIN_MAX + " characters): " + quote(name));
    }
    return name;
  }

  /** Refuses a data key Kubernetes would refuse in a Secret's data. */
  public static String requireDataKey(String key) {
    if (key == null) {
      throw new InvalidInputException("data", "data must not contain a null key");
    }
    if (key.length() > DATA_KEY_MAX || !DATA_KEY.matcher(key).matches()
        || key.equals(".") || key.equals("..") || key.startsWith("..")) {
      throw new InvalidInputException("data", "data key " + quote(key) + " must consist of letters, digits,"
          + " '-', '_' and '.', not be '.' or start with '..', and be at most " + DATA_KEY_MAX + " characters");
    }
    return key;
  }

  // Shown with escapes so that blanks and control characters in a bad name are visible.
  private static String quote(String value) {
    StringBuilder out = new StringBuilder("\"");
    int shown = Math.min(value.length(), 300);
    for (int i = 0; i < shown; i++) {
      char c = value.charAt(i);
      if (c < 0x20 || c == 0x7f) {
        out.append(String.format("\\u%04x", (int) c));
      } else if (c == '"' || c == '\\') {
        out.append('\\').append(c);
      } else {
        out.append(c);
      }
    }
    if (shown < value.length()) {
      out.append("...");
    }
    return out.append('"').toString();
  }
}
