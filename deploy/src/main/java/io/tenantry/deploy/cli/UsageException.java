package io.tenantry.deploy.cli;

/** A command line tenantctl refuses (exit status 2); the message names the argument or flag. */
final class UsageException extends RuntimeException {

  UsageException(String message) {
    super(message);
  }
}
