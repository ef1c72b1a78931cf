package io.tenantry.spares.fleet;

import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Collection;
import java.util.Collections;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Pattern;

/**
 * The input rules of the fleet records. Every check throws {@link FleetInputException} naming the
 * field, so a bad input is refused before anything is written.
 */
public final class FleetNames {

  /** RFC 1035 label, the rule the Tenant CRD enforces on names; clusters follow it too. */
  private static final Pattern DNS_LABEL = Pattern.compile("[a-z]([-a-z0-9]*[a-z0-9])?");
  /** RFC 1123 label (may start with a digit): Kubernetes' rule for namespace names and hostname labels. */
  private static final Pattern RFC1123_LABEL = Pattern.compile("[a-z0-9]([-a-z0-9]*[a-z0-9])?");
  private static final int DNS_LABEL_MAX = 63;
  private static final int HOSTNAME_MAX = 253;
  /** Printable ASCII without spaces: request ids travel in URLs, logs and Datastore key names. */
  private static final Pattern PRINTABLE = Pattern.compile("[\\x21-\\x7e]+");
  private static final int REQUEST_ID_MAX = 128;
  /** Kubernetes gives UUIDs; any printable value is taken, as a UID is compared, never parsed. */
  private static final int UID_MAX = 128;
  /** Datastore reserves key names of the form __*__. */
  private static final Pattern RESERVED_KEY_NAME = Pattern.compile("__.*__");
  /** A deliberately loose shape check: one '@', no spaces, a dot in the domain. */
  private static final Pattern EMAIL = Pattern.compile("[^@\\s]+@[^@\\s.]+(\\.[^@\\s.]+)+");
  private static final int EMAIL_MAX = 254;
  private static final int ORGANIZATION_MAX = 200;
  private static final int CONTEXT_MAX = 253;
  private static final Pattern LABEL_NAME = Pattern.compile("[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?");
  private static final Pattern DNS_SUBDOMAIN = Pattern.compile("[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*");
  /** Datastore namespaces: letters, digits, '.', '-', '_', at most 100 characters. */
  private static final Pattern DATASTORE_NAMESPACE = Pattern.compile("[0-9A-Za-z._-]{0,100}");

  private FleetNames() {
  }

  /** An RFC 1035 DNS label of at most 63 characters, for {@code tenant} and {@code cluster}. */
  public static String requireDnsLabel(String field, String value) {
    requireNonNull(field, value);
    if (value.length() > DNS_LABEL_MAX || !DNS_LABEL.matcher(value).matches()) {
      throw new FleetInputException(field, "must be a DNS label (lowercase letters, digits and '-', starting with"
          + " a letter, ending with a letter or digit, at most " + DNS_LABEL_MAX + " characters): " + quote(value));
    }
    return value;
  }

  /** A Kubernetes namespace name: an RFC 1123 label of at most 63 characters. */
  public static String requireNamespace(String namespace) {
    requireNonNull("namespace", namespace);
    if (namespace.length() > DNS_LABEL_MAX || !RFC1123_LABEL.matcher(namespace).matches()) {
      throw new FleetInputException("namespace", "must be an RFC 1123 label (lowercase letters, digits and '-',"
          + " starting and ending with a letter or digit, at most " + DNS_LABEL_MAX + " characters): "
          + quote(namespace));
    }
    return namespace;
  }

  /**
   * A hostname a tenant serves: an RFC 1123 subdomain of at least two labels, at most
   * {@value #HOSTNAME_MAX} characters, neither a wildcard nor an IPv4 address. Uppercase is refused,
   * not lowered: the name stored is always the name the caller sent, so its lookups find it.
   */
  public static String requireHostname(String field, String hostname) {
    requireNonNull(field, hostname);
    if (hostname.indexOf('*') >= 0) {
      throw new FleetInputException(field, "must name one host, not a wildcard: " + quote(hostname));
    }
    if (hostname.chars().anyMatch(c -> c >= 'A' && c <= 'Z')) {
      throw new FleetInputException(field, "must be lowercase; hostnames are stored and compared as sent, never"
          + " lowered: " + quote(hostname) + " (did you mean " + quote(hostname.toLowerCase(Locale.ROOT)) + "?)");
    }
    if (hostname.length() > HOSTNAME_MAX) {
      throw new FleetInputException(field, "must have at most " + HOSTNAME_MAX + " characters, has "
          + hostname.length());
    }
    String[] labels = hostname.split("\\.", -1);
    if (labels.length < 2) {
      throw new FleetInputException(field, "must have at least two labels, such as app.example.com: "
          + quote(hostname));
    }
    for (String label : labels) {
      if (label.length() > DNS_LABEL_MAX || !RFC1123_LABEL.matcher(label).matches()) {
        throw new FleetInputException(field, "must be labels of 1 to " + DNS_LABEL_MAX + " lowercase letters,"
            + " digits and '-', starting and ending with a letter or digit, joined by '.': " + quote(hostname));
      }
    }
    // No top-level domain is all digits; such a name is an IPv4 address, which Ingress hosts refuse too.
    if (labels[labels.length - 1].chars().allMatch(c -> c >= '0' && c <= '9')) {
      throw new FleetInputException(field, "must be a DNS name, not an IP address: " + quote(hostname));
    }
    return hostname;
  }

  /** Hostnames, each checked as {@link #requireHostname} does; returns an unmodifiable copy. */
  public static Set<String> requireHostnames(String field, Collection<String> hostnames) {
    requireNonNull(field, hostnames);
    Set<String> copy = new TreeSet<>();
    for (String hostname : hostnames) {
      copy.add(requireHostname(field, hostname));
    }
    return Collections.unmodifiableSet(copy);
  }

  /** A Tenant's {@code metadata.uid}: 1 to {@value #UID_MAX} printable ASCII characters without spaces. */
  public static String requireUid(String field, String uid) {
    requireNonNull(field, uid);
    if (uid.isEmpty() || uid.length() > UID_MAX || !PRINTABLE.matcher(uid).matches()) {
      throw new FleetInputException(field, "must be a Kubernetes UID, 1 to " + UID_MAX
          + " printable ASCII characters without spaces: " + quote(uid));
    }
    return uid;
  }

  /** A request id: 1 to 128 printable ASCII characters without spaces, not of the reserved form __*__. */
  public static String requireRequestId(String requestId) {
    requireNonNull("requestId", requestId);
    if (requestId.isEmpty() || requestId.length() > REQUEST_ID_MAX) {
      throw new FleetInputException("requestId", "must have 1 to " + REQUEST_ID_MAX + " characters, has "
          + requestId.length());
    }
    if (!PRINTABLE.matcher(requestId).matches()) {
      throw new FleetInputException("requestId", "must be printable ASCII without spaces: " + quote(requestId));
    }
    if (RESERVED_KEY_NAME.matcher(requestId).matches()) {
      throw new FleetInputException("requestId", "must not have the form __*__ (reserved by Datastore): "
          + quote(requestId));
    }
    return requestId;
  }

  public static String requireEmail(String email) {
    requireNonNull("email", email);
    if (email.length() > EMAIL_MAX || !EMAIL.matcher(email).matches()) {
      throw new FleetInputException("email", "must look like name@example.com (at most " + EMAIL_MAX
          + " characters): " + quote(email));
    }
    return email;
  }

  public static String requireOrganization(String organization) {
    requireNonNull("organization", organization);
    if (organization.isBlank() || organization.length() > ORGANIZATION_MAX) {
      throw new FleetInputException("organization", "must be non-blank with at most " + ORGANIZATION_MAX
          + " characters");
    }
    if (organization.chars().anyMatch(Character::isISOControl)) {
      throw new FleetInputException("organization", "must not contain control characters: " + quote(organization));
    }
    return organization;
  }

  /** A kubeconfig context name; only the name is ever stored, never credentials. */
  public static String requireContext(String context) {
    requireNonNull("context", context);
    if (context.isEmpty() || context.length() > CONTEXT_MAX || !PRINTABLE.matcher(context).matches()) {
      throw new FleetInputException("context", "must be 1 to " + CONTEXT_MAX
          + " printable ASCII characters without spaces: " + quote(context));
    }
    return context;
  }

  /** Kubernetes label rules for keys ([prefix/]name) and values; returns a sorted, unmodifiable copy. */
  public static Map<String, String> requireLabels(Map<String, String> labels) {
    requireNonNull("labels", labels);
    TreeMap<String, String> copy = new TreeMap<>();
    for (Map.Entry<String, String> label : labels.entrySet()) {
      String key = label.getKey();
      String value = label.getValue();
      if (key == null || !isLabelKey(key)) {
        throw new FleetInputException("labels", "key must be a Kubernetes label key ([prefix/]name): " + quote(key));
      }
      if (value == null || !(value.isEmpty() || value.length() <= DNS_LABEL_MAX && LABEL_NAME.matcher(value).matches())) {
        throw new FleetInputException("labels", "value of " + key + " must be a Kubernetes label value"
            + " (at most 63 letters, digits, '-', '_', '.'): " + quote(value));
      }
      copy.put(key, value);
    }
    return Collections.unmodifiableMap(copy);
  }

  /** A Datastore namespace, where the records live; empty is the default namespace. */
  public static String requireDatastoreNamespace(String namespace) {
    requireNonNull("datastoreNamespace", namespace);
    if (!DATASTORE_NAMESPACE.matcher(namespace).matches() || RESERVED_KEY_NAME.matcher(namespace).matches()) {
      throw new FleetInputException("datastoreNamespace", "must be at most 100 letters, digits, '.', '-' or '_',"
          + " not of the form __*__: " + quote(namespace));
    }
    return namespace;
  }

  /** Datastore keeps microseconds; truncating up front makes a stored record equal to the one written. */
  public static Instant requireTime(String field, Instant time) {
    requireNonNull(field, time);
    return time.truncatedTo(ChronoUnit.MICROS);
  }

  private static boolean isLabelKey(String key) {
    int slash = key.indexOf('/');
    String name = slash < 0 ? key : key.substring(slash + 1);
    if (slash >= 0) {
      String prefix = key.substring(0, slash);
      if (prefix.isEmpty() || prefix.length() > 253 || !DNS_SUBDOMAIN.matcher(prefix).matches()) {
        return false;
      }
    }
    return !name.isEmpty() && name.length() <= DNS_LABEL_MAX && LABEL_NAME.matcher(name).matches();
  }

  private static void requireNonNull(String field, Object value) {
    if (value == null) {
      throw new FleetInputException(field, "must not be null");
    }
  }

  /** Quotes and shortens a refused value so an error message stays one readable line. */
  private static String quote(String value) {
    if (value == null) {
      return "null";
    }
    String shown = value.length() > 80 ? value.substring(0, 80) + "..." : value;
    return '"' + shown.replaceAll("\\p{Cntrl}", "?") + '"';
  }
}
