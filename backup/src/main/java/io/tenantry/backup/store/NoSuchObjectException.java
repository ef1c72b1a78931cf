package io.tenantry.backup.store;

/** A read found no object at its path. */
public final class NoSuchObjectException extends RuntimeException {

  public NoSuchObjectException(String store, String path) {
    super(store + ": no object at " + path);
  }
}
