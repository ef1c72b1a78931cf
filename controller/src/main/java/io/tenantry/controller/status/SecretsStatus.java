package io.tenantry.controller.status;

/** Whether a tenant's secrets are in place, and the version they are at (for the SecretsSynced condition). */
public record SecretsStatus(boolean synced, Reason reason, String message, String version) {

  public static SecretsStatus failed(Reason reason, String message) {
    return new SecretsStatus(false, reason, message, null);
  }
}
