package io.tenantry.backup.store;

/** The stream given to {@link BackupStore#create} failed before its end: nothing was stored. */
public final class SourceFailedException extends RuntimeException {

  public SourceFailedException(String message, Throwable cause) {
    super(message, cause);
  }
}
