package io.tenantry.deploy.rollout;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.tenantry.api.v1alpha1.Tenant;
import java.time.Clock;
import java.time.Duration;
import java.util.Optional;
import java.util.function.Function;

/**
 * Runs a stored rollout to its end, wave by wave: writes the new version into the wave's tenants
 * ({@link AppVersionWriter}), polls them until each has succeeded or failed ({@link Health}), and
 * only then starts the next wave; once a cluster's waves are done, its spare pools follow. Every
 * step is saved in the record before the next, so a tenantctl that is killed can be resumed by
 * another: waves already done are skipped, a wave in progress is watched again (tenants already
 * written are not written twice).
 *
 * <p>Stops: after a wave that passes the request's {@link FailureLimits} (HALTED: the tenants
 * not reached keep their version), or at the next poll after a {@code pause} or {@code abort} from
 * another terminal (the record says so; the wave in flight keeps rolling in the cluster and is
 * watched again on resume). A tenant that fails within the limits is told to the listener, with its
 * reason, and counted as failed in the record; the rollout goes on.
 */
public final class RolloutEngine {

  /** Told of every change to the rollout, with a line saying what happened. */
  public interface Listener {
    void changed(Rollout rollout, String event);
  }

  private final RolloutRecords records;
  private final Function<String, KubernetesClient> clients;
  private final Clock clock;
  private final Duration pollInterval;
  private final Listener listener;

  /** @param clients the client of each registered cluster, by cluster name */
  public RolloutEngine(RolloutRecords records, Function<String, KubernetesClient> clients, Clock clock,
      Duration pollInterval, Listener listener) {
    this.records = records;
    this.clients = clients;
    this.clock = clock;
    this.pollInterval = pollInterval;
    this.listener = listener;
  }

  /**
   * Runs (or resumes) the rollout until it succeeds, halts, or is paused or aborted; returns it as
   * stored then. A failure to reach a cluster or Datastore propagates, with the rollout left
   * RUNNING and released, ready to be resumed.
   */
  public Rollout run(String id) throws InterruptedException {
    Runner runner = Runner.current();
    Run run = new Run(runner, records.claim(id, runner, clock.instant()));
    RolloutState finalState = null;
    String message = null;
    try {
      listener.changed(run.rollout, "running rollout " + id + ": " + run.rollout.request().app() + " to "
          + run.rollout.request().version());
      if (run.execute()) {
        finalState = run.halt != null ? RolloutState.HALTED : RolloutState.SUCCEEDED;
        message = run.halt != null ? halted(run.rollout, run.halt) : succeeded(run.rollout);
      }
    } finally {
      // Also on an exception or interrupt: the rollout stays as it was (RUNNING), free for a resume.
      Rollout released = records.release(id, runner, finalState, message, clock.instant());
      run.rollout = released;
    }
    listener.changed(run.rollout, run.rollout.state() + (run.rollout.message() == null ? "" : ": " + run.rollout.message()));
    return run.rollout;
  }

  private static String halted(Rollout rollout, FailureLimits.Verdict.Halt halt) {
    return "halted after " + halt.reason() + "; " + rollout.count(TenantProgress.Step.PENDING)
        + " tenant(s) not reached keep their version";
  }

  private static String succeeded(Rollout rollout) {
    long failed = rollout.failures();
    return rollout.count(TenantProgress.Step.SUCCEEDED) + " tenant(s) on " + rollout.request().version()
        + (failed == 0 ? "" : ", " + failed + " failed (within " + rollout.request().failureLimits().describe() + ")")
        + ", " + rollout.pools().size() + " pool(s) followed";
  }

  /** One run of one rollout by one runner. */
  private final class Run {
    private final Runner runner;
    private Rollout rollout;
    /** Set when a finished wave passed the failure limits. */
    private FailureLimits.Verdict.Halt halt;

    Run(Runner runner, Rollout rollout) {
      this.runner = runner;
      this.rollout = rollout;
    }

    /** True when it got to the end (or halted, see {@link #halt}); false when a pause or abort stopped it. */
    boolean execute() throws InterruptedException {
      for (String cluster : rollout.clusters()) {
        for (Wave wave : rollout.waves()) {
          if (!wave.cluster().equals(cluster)) {
            continue;
          }
          if (!wave.done() && !runWave(wave)) {
            return false;
          }
          // Also for a wave found done on a resume: a tenantctl killed right after the halting wave
          // must not go on past it.
          Wave finished = rollout.waves().stream().filter(w -> w.index() == wave.index()).findFirst().orElseThrow();
          if (limits().afterWave(failedUpTo(finished), finished) instanceof FailureLimits.Verdict.Halt h) {
            halt = h;
            return true;
          }
        }
        for (PoolProgress pool : rollout.pools()) {
          if (pool.cluster().equals(cluster) && !pool.updated() && !followPool(pool)) {
            return false;
          }
        }
      }
      return true;
    }

    private boolean runWave(Wave wave) throws InterruptedException {
      String app = rollout.request().app();
      String version = rollout.request().version();
      KubernetesClient client = clients.apply(wave.cluster());
      String name = "wave " + wave.index() + "/" + rollout.waves().size() + " (" + wave.cluster() + ")";
      if (wave.count(TenantProgress.Step.PENDING) > 0) {
        // A pause or abort given while the previous wave finished: write nothing more.
        if (records.heartbeat(rollout.id(), runner, clock.instant()) != RolloutState.RUNNING) {
          return false;
        }
        Wave unwritten = wave;
        for (TenantProgress tenant : unwritten.tenants()) {
          if (tenant.step() == TenantProgress.Step.PENDING) {
            wave = wave.with(apply(client, tenant, app, version));
          }
        }
        boolean running = save(wave, name + ": " + app + "=" + version + " written to "
            + wave.count(TenantProgress.Step.APPLIED) + " tenant(s)" + failures(wave));
        reportFailed(unwritten, wave);
        if (!running) {
          return false;
        }
      }
      while (!wave.done()) {
        Thread.sleep(pollInterval.toMillis());
        Wave before = wave;
        for (TenantProgress tenant : before.tenants()) {
          if (tenant.step() == TenantProgress.Step.APPLIED) {
            wave = wave.with(check(client, tenant, app, version));
          }
        }
        boolean running = wave.equals(before)
            ? records.heartbeat(rollout.id(), runner, clock.instant()) == RolloutState.RUNNING
            : save(wave, name + ": " + wave.count(TenantProgress.Step.SUCCEEDED) + "/" + wave.tenants().size()
                + " on " + version + failures(wave));
        reportFailed(before, wave);
        if (!running) {
          listener.changed(rollout, rollout.id() + " is " + records.get(rollout.id()).map(Rollout::state).orElseThrow()
              + "; stopped at " + name);
          return false;
        }
      }
      return true;
    }

    private FailureLimits limits() {
      return rollout.request().failureLimits();
    }

    /** Failed tenants of {@code wave} and of the waves before it (waves are numbered in rollout order). */
    private long failedUpTo(Wave wave) {
      return rollout.waves().stream().filter(w -> w.index() <= wave.index())
          .mapToLong(w -> w.count(TenantProgress.Step.FAILED)).sum();
    }

    /** Tells the listener of each tenant that failed since {@code before}, with its reason. */
    private void reportFailed(Wave before, Wave after) {
      for (int i = 0; i < after.tenants().size(); i++) {
        TenantProgress t = after.tenants().get(i);
        if (t.step() == TenantProgress.Step.FAILED && before.tenants().get(i).step() != TenantProgress.Step.FAILED) {
          listener.changed(rollout, t.failedLine(after.cluster()));
        }
      }
    }

    private TenantProgress apply(KubernetesClient client, TenantProgress tenant, String app, String version) {
      try {
        Optional<AppVersionWriter.Written> written = AppVersionWriter.setTenant(client, tenant.tenant(), app, version);
        return written.map(w -> tenant.applied(w.fromVersion(), w.generation(), clock.instant()))
            .orElseGet(() -> tenant.failed("the tenant was deleted"));
      } catch (KubernetesClientException | IllegalStateException e) {
        return tenant.failed("the version could not be written: " + e.getMessage());
      }
    }

    private TenantProgress check(KubernetesClient client, TenantProgress tenant, String app, String version) {
      Tenant current;
      try {
        current = client.resources(Tenant.class).withName(tenant.tenant()).get();
      } catch (KubernetesClientException e) {
        return tenant; // A blip reading the cluster; the tenant's timeout still runs.
      }
      Health.Verdict verdict = Health.of(current, app, version, tenant.generation(), tenant.appliedAt(),
          clock.instant(), rollout.request().tenantTimeout());
      return switch (verdict.step()) {
        case SUCCEEDED -> tenant.succeeded();
        case FAILED -> tenant.failed(verdict.detail());
        default -> tenant;
      };
    }

    private boolean followPool(PoolProgress pool) {
      Optional<AppVersionWriter.Written> written = AppVersionWriter.setPool(clients.apply(pool.cluster()), pool.pool(),
          rollout.request().app(), rollout.request().version());
      rollout = rollout.withPool(pool.done());
      boolean running = records.savePool(rollout, pool, runner, clock.instant()) == RolloutState.RUNNING;
      listener.changed(rollout, "pool " + pool.cluster() + "/" + pool.pool() + (written.isPresent()
          ? " now builds spares with " + rollout.request().app() + "=" + rollout.request().version()
          : " no longer exists"));
      return running;
    }

    /** Stores the wave; false when the rollout was paused or aborted meanwhile. */
    private boolean save(Wave wave, String event) {
      rollout = rollout.withWave(wave);
      boolean running = records.saveWave(rollout, wave, runner, clock.instant()) == RolloutState.RUNNING;
      listener.changed(rollout, event);
      return running;
    }

    private String failures(Wave wave) {
      long failed = wave.count(TenantProgress.Step.FAILED);
      return failed == 0 ? "" : ", " + failed + " failed";
    }
  }
}
