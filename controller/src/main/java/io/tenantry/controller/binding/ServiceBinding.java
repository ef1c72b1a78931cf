package io.tenantry.controller.binding;

import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/**
 * A database's binding as the Service Binding for Kubernetes spec (servicebinding.io) lays it out:
 * one directory per binding under {@link #ROOT}, one file per key. Spring Cloud Bindings and
 * Quarkus read it unchanged; {@link #envName} is the one variable offered to apps that read
 * their environment instead.
 *
 * @param type the spec's well-known type: postgresql, mysql or redis
 * @param database the logical database, or null where the engine has none (Redis)
 */
public record ServiceBinding(String type, String host, int port, String username, String password, String database) {

  /** The value of {@code SERVICE_BINDING_ROOT} in every app. */
  public static final String ROOT = "/bindings";
  public static final String ROOT_VARIABLE = "SERVICE_BINDING_ROOT";
  public static final String PROVIDER = "tenantry";
  public static final String URI_KEY = "uri";

  /** The binding's files, by the spec's key names. */
  public Map<String, String> entries() {
    Map<String, String> entries = new LinkedHashMap<>();
    entries.put("type", type);
    entries.put("provider", PROVIDER);
    entries.put("host", host);
    entries.put("port", Integer.toString(port));
    entries.put("username", username);
    entries.put("password", password);
    if (database != null) {
      entries.put("database", database);
    }
    entries.put(URI_KEY, uri());
    return entries;
  }

  /** {@code <type>://<user>:<password>@<host>:<port>[/<database>]}, user and password percent-encoded. */
  public String uri() {
    return type + "://" + encode(username) + ":" + encode(password) + "@" + host + ":" + port
        + (database == null ? "" : "/" + encode(database));
  }

  /** The environment variable holding the URI of the binding of {@code database}: {@code orders-db} → {@code ORDERS_DB_URL}. */
  public static String envName(String database) {
    return database.replace('-', '_').toUpperCase(Locale.ROOT) + "_URL";
  }

  /** Percent-encodes every byte but RFC 3986's unreserved characters, so any password survives a URI parser. */
  static String encode(String value) {
    StringBuilder out = new StringBuilder();
    for (byte b : value.getBytes(StandardCharsets.UTF_8)) {
      int c = b & 0xff;
      if (c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '.' || c == '_' || c == '~') {
        out.append((char) c);
      } else {
        out.append('%').append(Character.toUpperCase(Character.forDigit(c >> 4, 16)))
            .append(Character.toUpperCase(Character.forDigit(c & 0xf, 16)));
      }
    }
    return out.toString();
  }

  @Override
  public String toString() {
    return "ServiceBinding[type=" + type + ", host=" + host + ", port=" + port + ", username=" + username + "]"; // never the password
  }
}
