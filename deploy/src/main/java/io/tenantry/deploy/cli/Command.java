package io.tenantry.deploy.cli;

import java.io.PrintStream;

/**
 * One tenantctl command, parsed and validated from the command line before anything is opened,
 * so a refused command line touches neither Datastore nor a cluster. A new command is a class with
 * a {@code parse(Args)} factory, listed in {@link Tenantctl#COMMANDS} and in the usage text.
 */
interface Command {

  /** Runs against the fleet; returns the exit status. */
  int run(Fleet fleet, Terminal terminal) throws InterruptedException;

  /** Where a command writes; {@code live} when standard output is a terminal (ANSI redraws allowed). */
  record Terminal(PrintStream out, PrintStream err, boolean live) {
  }
}
