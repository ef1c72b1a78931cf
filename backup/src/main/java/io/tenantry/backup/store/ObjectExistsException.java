package io.tenantry.backup.store;

/** A create found an object already at its path: backup objects are written once. */
public final class ObjectExistsException extends RuntimeException {

  public ObjectExistsException(String path) {
    super("an object already exists at " + path + "; backup objects are never replaced");
  }
}
