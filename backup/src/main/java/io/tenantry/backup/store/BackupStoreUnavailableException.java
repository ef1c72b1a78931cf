package io.tenantry.backup.store;

/** The backup store could not be reached or did not answer; nothing was decided. Names the store. */
public class BackupStoreUnavailableException extends RuntimeException {

  private final String store;

  public BackupStoreUnavailableException(String store, String message, Throwable cause) {
    super(store + ": " + message, cause);
    this.store = store;
  }

  /** The store, as {@link BackupStore#describe} names it. */
  public String store() {
    return store;
  }
}
