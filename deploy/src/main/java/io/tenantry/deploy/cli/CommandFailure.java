package io.tenantry.deploy.cli;

/**
 * A command that could not be done for a reason outside its command line (exit status 1): a tenant
 * that vanished, a store or a key that cannot be opened, a wait that ran out. The message says which.
 */
final class CommandFailure extends RuntimeException {

  CommandFailure(String message) {
    super(message);
  }
}
