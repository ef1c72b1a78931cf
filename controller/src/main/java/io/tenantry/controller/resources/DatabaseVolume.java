package io.tenantry.controller.resources;

/**
 * The volume a database's StatefulSet mounts (its claim template's name: the claim is
 * {@code <claim>-db-<database>-0}) and the version its server runs on it. A data directory opens
 * only in the major version that wrote it, so the two change together only through a major
 * upgrade ({@code io.tenantry.controller.upgrade}).
 */
public record DatabaseVolume(String version, String claim) {

  /** The claim template every database starts on. */
  public static final String FIRST_CLAIM = "data";
}
