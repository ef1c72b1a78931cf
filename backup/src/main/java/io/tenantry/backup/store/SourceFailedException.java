package io.tenantry.backup.store;

/** The stream given to {@link BackupStore#create} failed before its end: nothing was stored. */
public final class SourceFailedException extends RuntimeException {

  public SourceFailedException(String message, Throwable cause) {
    super(message, cause);
  }

  /** Reads the stream given to a create: its failure is the source's, never the store's. */
  static int read(java.io.InputStream content, byte[] buffer, String path) {
    try {
      return content.read(buffer);
    } catch (java.io.IOException e) {
      throw new SourceFailedException("the upload of " + path + " ended early: " + e.getMessage(), e);
    }
  }
}
