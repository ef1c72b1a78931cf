package io.tenantry.deploy.cli;

import com.google.cloud.datastore.DatastoreException;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.tenantry.backup.store.BackupStoreUnavailableException;
import io.tenantry.deploy.rollout.RolloutConflictException;
import io.tenantry.deploy.rollout.RolloutInputException;
import io.tenantry.secretstore.KeyUnavailableException;
import io.tenantry.spares.fleet.FleetConflictException;
import io.tenantry.spares.fleet.FleetInputException;
import java.io.PrintStream;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;

/**
 * {@code tenantctl}, the fleet's ops CLI: the cluster registry, tenants across clusters,
 * health-gated rollouts of app versions, and tenants' backups. See {@link #USAGE}.
 */
public final class Tenantctl {

  static final String USAGE = """
      Usage: tenantctl COMMAND [ARGS] [OPTIONS]

      Commands:
        clusters register NAME --context CTX [--label KEY=VALUE]...
                              Register a cluster (or update it), reached through kubeconfig context CTX.
                              Only the context's name is stored, never credentials.
        clusters list         NAME, CONTEXT, LABELS and REGISTERED of each registered cluster.
        clusters remove NAME  Forget a cluster (refused while tenants are placed on it).
        get tenants [--clusters C1,C2]
                              CLUSTER, TENANT, STATE, PHASE, VERSIONS and READY of every tenant, across
                              every registered cluster (or those named).
        deploy --app APP --version V (--tenants T1,T2 | --selector SELECTOR | --all)
               [--clusters C1,C2] [--wave-size N] [--max-failures K] [--max-failure-ratio R]
               [--tenant-timeout DURATION]
                              Roll APP to version V in waves of N tenants (default 10), cluster by
                              cluster (in --clusters order, else by name), a wave at a time: a wave is
                              done when each of its tenants reports V Ready or has failed. A tenant
                              fails when the operator marks it Degraded (its rollout passed the
                              operator's rolloutDeadlineSeconds) or when it is not Ready on V within
                              --tenant-timeout (default 10m) of the write. Failed tenants are
                              listed with their reasons as they fail and at the end. After each
                              wave, the rollout halts (no new wave starts, the rest keep their
                              version) when either bound is passed: K failed tenants in all, or a
                              wave of which more than R (0 < R <= 1, e.g. 0.2) of the tenants
                              failed. Without either flag K is 1; with only R, there is no K, so
                              one tenant that cannot roll does not halt the fleet. With --all,
                              each cluster's spare pools follow once its waves are done. Unallocated
                              spares follow their pool; Frozen and Archived tenants are left out.
                              Running the same deploy again resumes its unfinished rollout.
        rollout list          Every rollout, newest first.
        rollout status ID     A rollout's waves, failed tenants and pools.
        rollout pause ID      The running deploy stops at its next poll; the record says PAUSED.
        rollout resume ID     Continue a paused rollout, or one whose tenantctl was killed, where it
                              stopped: finished waves are not redone.
        rollout abort ID      Stop for good; tenants not yet reached keep their version.
        allocate --organization ORG --email EMAIL --token-file FILE [--request-id ID] [--pool POOL]
                 [--subdomain NAME] [--url URL] [--wait DURATION]
                              Sign a customer up through the operator's allocation API (URL default
                              http://localhost:8080): binds a Ready spare of POOL (default "default") and
                              prints its tenant, namespace, cluster and URL (NAME.<baseDomain> with
                              --subdomain, refused when taken). The request id (generated when
                              not given) is printed first: repeating it returns the same tenant. With
                              --wait, a 503 (no Ready spare) is retried after its Retry-After until
                              DURATION has passed.
        backup TENANT [--cluster C] [--wait DURATION]
                              Ask the operator for a backup of the tenant now: sets the annotation
                              tenantry.io/backup-requested to the current time (the tenant is looked
                              for on every registered cluster, or on C). Refused unless the tenant is
                              Active and has a database that keeps data (not ephemeral). The request
                              is the tenant's: every such database is backed up, one database alone
                              cannot be asked for. With --wait, waits up to DURATION for each
                              database's backup that answers the request to finish, then prints its
                              id and bytes, or why it failed.
        backups list TENANT [--config FILE]
                              The tenant's backups as the backup store holds them: DATABASE, BACKUP,
                              STARTED (UTC), KIND, BYTES, TABLES, ROWS (from each manifest) and STATE:
                              committed, uncommitted (an object without a manifest: in flight, failed or
                              half deleted) or unreadable (a manifest that does not open with the key,
                              and why); then names under the tenant's prefix that are no backup's.
                              The store, its key and the cluster's name come from the operator's
                              configuration FILE (default: the operator's defaults), read as the
                              operator reads them; the tenant is read from that cluster (its UID is in
                              every path).

      Options (anywhere after the command):
        --datastore-project P     Google Cloud project of the fleet records (env TENANTRY_DATASTORE_PROJECT,
                                  else DATASTORE_PROJECT_ID). With DATASTORE_EMULATOR_HOST set, the
                                  Datastore emulator there is used, without credentials.
        --datastore-namespace NS  Datastore namespace of the fleet records (env TENANTRY_DATASTORE_NAMESPACE,
                                  default tenantry, as the operator's fleet.datastoreNamespace).
        --kubeconfig FILE[:FILE]  Where the clusters' contexts are (default $KUBECONFIG, else ~/.kube/config).
        -h, --help                Show this help.

      Exit status: 0 done (for deploy: every tenant on the new version; for backup --wait: every backup
      succeeded), 1 a cluster, Datastore, the allocation API, the backup store or its key failed (or
      there was no spare), the command conflicts with a rollout's state, or backup --wait ran out of
      time (the request stands), 2 bad usage or a request the API refused (nothing was changed), 3 the
      rollout halted (--max-failures or --max-failure-ratio passed), 4 the rollout was paused or aborted,
      5 the rollout went through every wave but some tenants failed (within --max-failures and
      --max-failure-ratio), 6 backup --wait saw a database's backup fail.
      """;

  static final Set<String> GLOBAL_OPTIONS = Set.of("--datastore-project", "--datastore-namespace", "--kubeconfig");

  /** Every command by its first word; the order is the usage's. */
  static final Map<String, Function<Args, Command>> COMMANDS = new LinkedHashMap<>();

  static {
    COMMANDS.put(ClustersCommand.NAME, ClustersCommand::parse);
    COMMANDS.put(GetTenantsCommand.NAME, GetTenantsCommand::parse);
    COMMANDS.put(DeployCommand.NAME, DeployCommand::parse);
    COMMANDS.put(RolloutCommand.NAME, RolloutCommand::parse);
    COMMANDS.put(AllocateCommand.NAME, AllocateCommand::parse);
    COMMANDS.put(BackupCommand.NAME, BackupCommand::parse);
    COMMANDS.put(BackupsCommand.NAME, BackupsCommand::parse);
  }

  private Tenantctl() {
  }

  public static void main(String[] args) throws InterruptedException {
    System.exit(run(args, System.out, System.err, System.getenv(), System.console() != null));
  }

  /** Runs one command line; returns the exit status. {@code live}: redraw progress in place (ANSI). */
  public static int run(String[] argv, PrintStream out, PrintStream err, Map<String, String> env, boolean live)
      throws InterruptedException {
    Command command;
    Fleet fleet;
    try {
      Args args = Args.parse(argv);
      if (args.help() || args.positionals().isEmpty()) {
        if (!args.help()) {
          throw new UsageException("missing command (" + String.join(", ", COMMANDS.keySet()) + ")");
        }
        out.print(USAGE);
        return 0;
      }
      String name = args.positionals().get(0);
      Function<Args, Command> parser = COMMANDS.get(name);
      if (parser == null) {
        throw new UsageException("unknown command \"" + name + "\" (expected one of "
            + String.join(", ", COMMANDS.keySet()) + ")");
      }
      command = parser.apply(args);
      fleet = Fleet.of(args, env);
    } catch (UsageException | RolloutInputException e) {
      return badUsage(e, err);
    }
    try (fleet) {
      return command.run(fleet, new Command.Terminal(out, err, live));
    } catch (UsageException | RolloutInputException | FleetInputException e) {
      return badUsage(e, err);
    } catch (RolloutConflictException | FleetConflictException e) {
      err.println("tenantctl: " + e.getMessage());
      return 1;
    } catch (KubernetesClientException | DatastoreException | BackupStoreUnavailableException | KeyUnavailableException
        | CommandFailure e) {
      err.println("tenantctl: " + e.getMessage());
      return 1;
    }
  }

  private static int badUsage(RuntimeException e, PrintStream err) {
    err.println("tenantctl: " + e.getMessage());
    err.println("Run 'tenantctl --help' for usage.");
    return 2;
  }
}
