package io.tenantry.secretstore;

import static java.nio.charset.StandardCharsets.UTF_8;

import java.util.Base64;
import java.util.Map;
import java.util.TreeMap;

/** Secret data whose values and keys are easy to search for in stored bytes. */
final class TestData {

  static final String PASSWORD = "correct-horse-battery-staple-7731";
  static final String USER = "tenant-admin-user";

  private TestData() {
  }

  static Map<String, byte[]> credentials() {
    return credentials(PASSWORD);
  }

  static Map<String, byte[]> credentials(String password) {
    Map<String, byte[]> data = new TreeMap<>();
    data.put("username", USER.getBytes(UTF_8));
    data.put("password", password.getBytes(UTF_8));
    return data;
  }

  /** The strings that must never appear in stored bytes: values, in clear and in base64, and keys. */
  static String[] forbiddenInStorage() {
    return new String[] {PASSWORD, USER, base64(PASSWORD), base64(USER), "username", "password"};
  }

  static String base64(String value) {
    return Base64.getEncoder().encodeToString(value.getBytes(UTF_8));
  }

  /** Whether {@code needle}'s UTF-8 bytes occur anywhere in {@code haystack}. */
  static boolean contains(byte[] haystack, String needle) {
    byte[] n = needle.getBytes(UTF_8);
    outer:
    for (int i = 0; i + n.length <= haystack.length; i++) {
      for (int j = 0; j < n.length; j++) {
        if (haystack[i + j] != n[j]) {
          continue outer;
        }
      }
      return true;
    }
    return false;
  }
}
