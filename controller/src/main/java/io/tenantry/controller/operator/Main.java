package io.tenantry.controller.operator;

import com.google.cloud.NoCredentials;
import com.google.cloud.datastore.DatastoreOptions;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.tenantry.controller.cache.InformerRetries;
import io.tenantry.controller.config.OperatorConfig;
import io.tenantry.controller.lifecycle.TenantCleanup;
import io.tenantry.controller.metrics.KmsCalls;
import io.tenantry.spares.fleet.DatastoreFleetRecords;
import io.tenantry.spares.fleet.FleetRecords;
import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;

/**
 * {@code tenantry-operator [--kubeconfig FILE] [--config FILE] [--identity NAME]}: without
 * {@code --kubeconfig}, the client finds KUBECONFIG, ~/.kube/config or the in-cluster account.
 * In a pod (environment {@code POD_NAME} and {@code POD_NAMESPACE}), the leader labels its pod
 * ({@link LeaderPod}).
 */
public final class Main {

  private Main() {
  }

  public static void main(String[] args) throws Exception {
    Path kubeconfig = null;
    Path configFile = null;
    String identity = InetAddress.getLocalHost().getHostName() + "-" + ProcessHandle.current().pid();
    for (int i = 0; i < args.length; i++) {
      String value = i + 1 < args.length ? args[i + 1] : null;
      switch (args[i]) {
        case "--kubeconfig" -> kubeconfig = Path.of(required(args[i], value));
        case "--config" -> configFile = Path.of(required(args[i], value));
        case "--identity" -> identity = required(args[i], value);
        default -> throw usage("unknown argument " + args[i]);
      }
      i++;
    }
    OperatorConfig config = configFile == null ? OperatorConfig.defaults() : OperatorConfig.load(configFile);
    Config clientConfig = InformerRetries.clientConfig(
        kubeconfig == null ? Config.autoConfigure(null) : Config.fromKubeconfig(Files.readString(kubeconfig)));
    KubernetesClient client = new KubernetesClientBuilder().withConfig(clientConfig).build();
    FleetRecords records = fleetRecords(config.fleet());
    KmsCalls kmsCalls = new KmsCalls();
    Operator.Parts parts = Operator.wire(client, config, identity, SecretStores.open(config.secretStore(), kmsCalls),
        records == null ? TenantCleanup.NONE : TenantCleanup.fleet(records, config.fleet().clusterName()), records,
        BackupStores.open(config));
    kmsCalls.bindTo(parts.registry());
    Operator operator = new Operator(client, config, identity, () -> Runtime.getRuntime().halt(1), parts);
    LeaderPod pod = LeaderPod.fromEnvironment(client, System.getenv());
    if (pod != null) {
      pod.standby(); // Before anything is served: a restarted former leader must not be reached as the leader.
      operator.whenLeading(pod::leading);
    }
    AllocationService allocation = config.allocation().enabled()
        ? AllocationService.start(operator, config, client, records, Clock.systemUTC()) : null;
    CountDownLatch stopped = new CountDownLatch(1);
    Runtime.getRuntime().addShutdownHook(new Thread(() -> {
      // Bounded, step by step: the process exits within Shutdown.BUDGET of SIGTERM even when the API
      // server does not answer (the client would retry the lease release and the label for tens of seconds).
      Shutdown shutdown = new Shutdown(Shutdown.BUDGET);
      operator.close(shutdown);
      if (allocation != null) {
        shutdown.step("allocation", Duration.ofSeconds(1), allocation::close);
      }
      if (pod != null) {
        shutdown.step("standby", Duration.ofSeconds(1), pod::standby);
      }
      shutdown.step("client", Duration.ofSeconds(1), client::close);
      stopped.countDown();
    }, "shutdown"));
    operator.start();
    stopped.await();
  }

  /**
   * The fleet records when the configuration names a Datastore (the client honours
   * DATASTORE_EMULATOR_HOST); a purged tenant's records are then deleted, and allocations recorded.
   */
  private static FleetRecords fleetRecords(OperatorConfig.Fleet fleet) {
    if (fleet.datastoreProjectId() == null || fleet.datastoreProjectId().isBlank()) {
      return null;
    }
    DatastoreOptions.Builder options = DatastoreOptions.newBuilder().setProjectId(fleet.datastoreProjectId());
    String emulator = System.getenv("DATASTORE_EMULATOR_HOST");
    if (emulator != null && !emulator.isBlank()) {
      options.setHost(emulator).setCredentials(NoCredentials.getInstance()); // The emulator takes no credentials.
    }
    return new DatastoreFleetRecords(options.build().getService(), fleet.datastoreNamespace());
  }

  private static String required(String flag, String value) {
    if (value == null) {
      throw usage(flag + " needs a value");
    }
    return value;
  }

  private static IllegalArgumentException usage(String problem) {
    return new IllegalArgumentException(problem + "; usage: tenantry-operator [--kubeconfig FILE] [--config FILE] [--identity NAME]");
  }
}
