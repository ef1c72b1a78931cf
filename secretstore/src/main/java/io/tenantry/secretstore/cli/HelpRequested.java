package io.tenantry.secretstore.cli;

/**
 * Thrown by {@link ArgCursor} on {@code --help} or {@code -h} wherever an option may stand, so that
 * every command answers it the same way: the usage text on standard output, exit status 0.
 */
final class HelpRequested extends RuntimeException {

  HelpRequested() {
    super("help requested", null, false, false);
  }
}
