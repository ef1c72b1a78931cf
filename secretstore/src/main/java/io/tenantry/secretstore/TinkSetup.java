package io.tenantry.secretstore;

import com.google.crypto.tink.aead.AeadConfig;
import java.security.GeneralSecurityException;

/** Registers Tink's AEAD key types once: generating keysets and DEKs looks them up in the registry. */
final class TinkSetup {

  static {
    try {
      AeadConfig.register();
    } catch (GeneralSecurityException e) {
      throw new ExceptionInInitializerError(e);
    }
  }

  private TinkSetup() {
  }

  /** Loading this class is what registers; calling this makes the dependency visible. */
  static void ensureRegistered() {
  }
}
