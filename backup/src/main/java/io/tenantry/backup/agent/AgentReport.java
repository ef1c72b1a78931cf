package io.tenantry.backup.agent;

import io.tenantry.backup.Json;

/**
 * What an agent tells the operator when it ends, in its container's termination message (at most
 * 4096 bytes, so no table list: the operator reads those from the object's header).
 *
 * @param outcome {@code uploaded}, {@code restored}, or the failure ({@code dumpFailed},
 *     {@code uploadFailed}, {@code restoreFailed}, {@code countsDiffer}, {@code corrupt})
 * @param error the first line of what failed, when it failed
 * @param objectBytes bytes of the encrypted object sent or read
 * @param plaintextBytes bytes of the dump
 * @param sha256 hex SHA-256 of the encrypted object, as sent or read
 * @param crc32c base64 CRC32C of the encrypted object, as sent or read
 */
public record AgentReport(String outcome, String error, long objectBytes, long plaintextBytes, String sha256,
    String crc32c) {

  static final int MAX_BYTES = 4096;

  public static AgentReport failed(String outcome, String error) {
    return new AgentReport(outcome, firstLine(error), 0, 0, null, null);
  }

  public boolean succeeded() {
    return error == null;
  }

  public String toJson() {
    String json = Json.GSON.toJson(this);
    if (json.length() > MAX_BYTES / 2 && error != null) {
      return Json.GSON.toJson(new AgentReport(outcome, error.substring(0, Math.min(error.length(), 512)), objectBytes, plaintextBytes, sha256, crc32c));
    }
    return json;
  }

  public static AgentReport fromJson(String json) {
    return Json.GSON.fromJson(json, AgentReport.class);
  }

  static String firstLine(String text) {
    if (text == null) {
      return null;
    }
    String line = text.strip().lines().findFirst().orElse("");
    return line.isEmpty() ? "(no message)" : line;
  }
}
