package io.tenantry.deploy.cli;

import io.tenantry.deploy.rollout.Rollout;
import io.tenantry.deploy.rollout.RolloutState;
import io.tenantry.deploy.rollout.RolloutSummary;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.regex.Pattern;

/** {@code rollout list | status ID | pause ID | resume ID | abort ID}. */
record RolloutCommand(String action, String id) implements Command {

  static final String NAME = "rollout";
  private static final Pattern ID = Pattern.compile("[a-z0-9][-a-z0-9]{0,99}");

  static RolloutCommand parse(Args args) {
    if (args.positionals().size() < 2) {
      throw new UsageException("rollout: missing action (list, status, pause, resume or abort)");
    }
    String action = args.positionals().get(1);
    args.allowOnly("rollout " + action);
    switch (action) {
      case "list" -> {
        args.positionals("rollout list", 2);
        return new RolloutCommand(action, null);
      }
      case "status", "pause", "resume", "abort" -> {
        String id = args.positionals("rollout " + action, 2, "ID").get(0);
        if (!ID.matcher(id).matches()) {
          throw new UsageException("rollout " + action + ": not a rollout id: \"" + id + "\"");
        }
        return new RolloutCommand(action, id);
      }
      default -> throw new UsageException("rollout: unknown action \"" + action
          + "\" (expected list, status, pause, resume or abort)");
    }
  }

  @Override
  public int run(Fleet fleet, Terminal terminal) throws InterruptedException {
    switch (action) {
      case "list" -> {
        Table table = new Table("ID", "APP", "VERSION", "SELECTION", "STATE", "SUCCEEDED", "FAILED", "TENANTS", "UPDATED");
        for (RolloutSummary r : fleet.rollouts().list()) {
          table.row(r.id(), r.app(), r.version(), r.selection(), r.state(), r.succeeded(), r.failed(), r.tenants(),
              r.updatedAt().truncatedTo(ChronoUnit.SECONDS));
        }
        table.lines().forEach(terminal.out()::println);
        return 0;
      }
      case "status" -> {
        Rollout rollout = fleet.rollouts().get(id).orElseThrow(this::unknown);
        ProgressView.render(rollout, Integer.MAX_VALUE).forEach(terminal.out()::println);
        ProgressView.failedTenants(rollout).forEach(terminal.out()::println);
        if (rollout.message() != null) {
          terminal.out().println(rollout.message());
        }
        return 0;
      }
      case "resume" -> {
        fleet.rollouts().get(id).orElseThrow(this::unknown);
        return DeployCommand.execute(fleet, id, terminal);
      }
      default -> {
        RolloutState target = action.equals("pause") ? RolloutState.PAUSED : RolloutState.ABORTED;
        fleet.rollouts().get(id).orElseThrow(this::unknown);
        Rollout stopped = fleet.rollouts().stop(id, target, Instant.now());
        terminal.out().println("rollout " + id + " is " + stopped.state()
            + (stopped.runner() == null ? "" : "; its tenantctl stops at its next poll")
            + (target == RolloutState.PAUSED ? "; continue with tenantctl rollout resume " + id : ""));
        return 0;
      }
    }
  }

  private UsageException unknown() {
    return new UsageException("rollout " + action + ": no rollout with id " + id);
  }
}
