package io.tenantry.secretstore;

import com.google.gson.stream.JsonReader;
import com.google.gson.stream.JsonToken;
import java.io.IOException;
import java.io.StringReader;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Base64;
import java.util.HexFormat;
import java.util.Map;
import java.util.TreeMap;

/**
 * The format both stores share.
 *
 * <ul>
 *   <li>Path: {@code template/<name>} or {@code tenants/<tenant>/<name>}.
 *   <li>Plaintext: the canonical encoding of the data map, a JSON object with the keys in ascending
 *       order, each value in standard base64 with padding, and no whitespace:
 *       {@code {"password":"czNjcjN0","user":"YXBw"}}. Data keys are restricted to
 *       {@code [-._a-zA-Z0-9]}, so they never need escaping and the encoding is unique.
 *   <li>Associated data of the AEAD: the path in UTF-8, so a ciphertext only decrypts at the path
 *       it was written to.
 * </ul>
 */
public final class SecretFormat {

  private SecretFormat() {
  }

  /** The secret's path in the store; validates the name (field {@code name}). */
  public static String path(Scope scope, String name) {
    return scope.path() + "/" + Names.requireSecretName(name);
  }

  /** The AEAD's associated data for a path: binds each ciphertext to where it is stored. */
  public static byte[] associatedData(String path) {
    return path.getBytes(StandardCharsets.UTF_8);
  }

  /** Refuses a null map, invalid keys and null values (field {@code data}). */
  public static Map<String, byte[]> requireValidData(Map<String, byte[]> data) {
    if (data == null) {
      throw new InvalidInputException("data", "data must not be null");
    }
    for (Map.Entry<String, byte[]> entry : data.entrySet()) {
      String key = Names.requireDataKey(entry.getKey());
      if (entry.getValue() == null) {
        throw new InvalidInputException("data", "data[\"" + key + "\"] must not be null");
      }
    }
    return data;
  }

  /** The canonical encoding of a data map (see the class comment). */
  public static byte[] canonical(Map<String, byte[]> data) {
    requireValidData(data);
    Base64.Encoder base64 = Base64.getEncoder();
    StringBuilder json = new StringBuilder("{");
    for (Map.Entry<String, byte[]> entry : new TreeMap<>(data).entrySet()) {
      if (json.length() > 1) {
        json.append(',');
      }
      json.append('"').append(entry.getKey()).append("\":\"").append(base64.encodeToString(entry.getValue()))
          .append('"');
    }
    return json.append('}').toString().getBytes(StandardCharsets.UTF_8);
  }

  /**
   * The content hash of a data map: lowercase hex SHA-256 of its canonical encoding. Callers holding
   * the same data (a Kubernetes Secret's data, say) compute the same hash without reading the store.
   */
  public static String contentHash(Map<String, byte[]> data) {
    return sha256Hex(canonical(data));
  }

  static String sha256Hex(byte[] bytes) {
    try {
      return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every Java runtime has SHA-256", e);
    }
  }

  /**
   * Decodes a canonical encoding. Only called on authenticated plaintext, so a failure means a bug or
   * a foreign writer with the key; the exception says where, not what.
   */
  static Map<String, byte[]> decode(String path, byte[] canonical) {
    Map<String, byte[]> data = new TreeMap<>();
    try (JsonReader reader = new JsonReader(new StringReader(new String(canonical, StandardCharsets.UTF_8)))) {
      reader.beginObject();
      while (reader.hasNext()) {
        String key = reader.nextName();
        if (data.put(key, Base64.getDecoder().decode(reader.nextString())) != null) {
          throw new IOException("duplicate data key");
        }
      }
      reader.endObject();
      if (reader.peek() != JsonToken.END_DOCUMENT) {
        throw new IOException("content after the data object");
      }
      requireValidData(data);
      return data;
    } catch (IOException | IllegalArgumentException | IllegalStateException e) {
      // IllegalArgumentException covers bad base64 and invalid keys; IllegalStateException bad JSON tokens.
      throw new CorruptSecretException(path, "cannot decode " + path
          + ": it decrypts but is not in the secret format (written by another program?)", e);
    }
  }
}
