package io.tenantry.controller.resources;

/** A database's credentials and the secret-store version (and content hash) they come from. */
public record DatabaseCredentials(String username, String password, String version, String contentHash) {

  @Override
  public String toString() {
    return "DatabaseCredentials[username=" + username + ", version=" + version + "]"; // never the password
  }
}
