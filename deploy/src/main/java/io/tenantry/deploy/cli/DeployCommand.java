package io.tenantry.deploy.cli;

import io.tenantry.deploy.rollout.FailureLimits;
import io.tenantry.deploy.rollout.Rollout;
import io.tenantry.deploy.rollout.RolloutEngine;
import io.tenantry.deploy.rollout.RolloutRequest;
import io.tenantry.deploy.rollout.RolloutStart;
import io.tenantry.deploy.rollout.Selection;
import java.time.Clock;
import java.time.Duration;
import java.util.List;

/** {@code deploy --app A --version V (--tenants|--selector|--all) ...}: starts (or resumes) a rollout and runs it. */
record DeployCommand(RolloutRequest request) implements Command {

  static final String NAME = "deploy";
  static final int DEFAULT_WAVE_SIZE = 10;
  static final Duration DEFAULT_TENANT_TIMEOUT = Duration.ofMinutes(10);
  /** How often the tenants of a wave are read, and the rollout's record (pause, abort) with them. */
  static final Duration POLL_INTERVAL = Duration.ofSeconds(1);
  private static final int SKIPPED_SHOWN = 10;

  static DeployCommand parse(Args args) {
    args.allowOnly(NAME, "--app", "--version", "--tenants", "--selector", "--all", "--clusters", "--wave-size",
        "--max-failures", "--max-failure-ratio", "--tenant-timeout");
    args.positionals(NAME, 1);
    String app = required(args, "--app");
    String version = required(args, "--version");
    int chosen = (args.has("--tenants") ? 1 : 0) + (args.has("--selector") ? 1 : 0) + (args.has("--all") ? 1 : 0);
    if (chosen != 1) {
      throw new UsageException("deploy: give exactly one of --tenants, --selector or --all");
    }
    Selection selection = args.has("--all") ? Selection.all()
        : args.has("--selector") ? Selection.selector(args.one("--selector")) : Selection.names(args.list("--tenants"));
    if (args.has("--tenants") && selection.names().isEmpty()) {
      throw new UsageException("--tenants: must name at least one tenant");
    }
    return new DeployCommand(new RolloutRequest(app, version, selection, args.list("--clusters"),
        args.integer("--wave-size", DEFAULT_WAVE_SIZE),
        FailureLimits.fromFlags(args.optionalInteger("--max-failures"), args.optionalDecimal("--max-failure-ratio")),
        args.duration("--tenant-timeout", DEFAULT_TENANT_TIMEOUT)));
  }

  private static String required(Args args, String flag) {
    String value = args.one(flag);
    if (value == null) {
      throw new UsageException("deploy: " + flag + " is required");
    }
    return value;
  }

  @Override
  public int run(Fleet fleet, Terminal terminal) throws InterruptedException {
    RolloutStart.Started started = RolloutStart.start(request, fleet.records(), fleet::client, fleet.rollouts(),
        Clock.systemUTC());
    Rollout rollout = started.rollout();
    if (started.existing()) {
      // The stored limits apply, not the ones given now: say which.
      terminal.out().println("resuming unfinished rollout " + rollout.id() + " (" + rollout.state() + "), with its "
          + rollout.request().failureLimits().describe());
    } else {
      terminal.out().println("rollout " + rollout.id() + ": " + rollout.tenants() + " tenant(s) in "
          + rollout.waves().size() + " wave(s) across " + String.join(", ", rollout.clusters()) + "; "
          + rollout.pools().size() + " spare pool(s) follow");
    }
    List<String> skipped = started.skipped();
    skipped.stream().limit(SKIPPED_SHOWN).forEach(s -> terminal.out().println("  left out " + s));
    if (skipped.size() > SKIPPED_SHOWN) {
      terminal.out().println("  ... and " + (skipped.size() - SKIPPED_SHOWN) + " more left out");
    }
    return execute(fleet, rollout.id(), terminal);
  }

  /**
   * Runs the stored rollout with the progress view, then lists its failed tenants with their
   * reasons; the exit status says how it ended ({@link #exitStatus}).
   */
  static int execute(Fleet fleet, String id, Terminal terminal) throws InterruptedException {
    RolloutEngine engine = new RolloutEngine(fleet.rollouts(), fleet::client, Clock.systemUTC(), POLL_INTERVAL,
        new ProgressView(terminal));
    Rollout done = engine.run(id);
    ProgressView.failedTenants(done).forEach(terminal.out()::println);
    return exitStatus(done);
  }

  /**
   * 0 only when every tenant is on the new version; 5 when every wave ran but some tenants failed
   * within the limits; 3 halted; 4 paused or aborted; 1 still RUNNING (a runner that stopped early).
   */
  static int exitStatus(Rollout rollout) {
    return switch (rollout.state()) {
      case SUCCEEDED -> rollout.failures() == 0 ? 0 : 5;
      case HALTED -> 3;
      case PAUSED, ABORTED -> 4;
      case RUNNING -> 1;
    };
  }
}
