package io.tenantry.secretstore.cli;

/**
 * A command line the CLI refuses (exit status 2). The message names the offending argument or
 * option, but never repeats a value given with {@code --from-literal}: that may be a secret.
 */
final class UsageException extends RuntimeException {

  UsageException(String message) {
    super(message);
  }
}
