package io.tenantry.deploy.cli;

import com.google.cloud.NoCredentials;
import com.google.cloud.datastore.Datastore;
import com.google.cloud.datastore.DatastoreOptions;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.tenantry.deploy.rollout.DatastoreRolloutRecords;
import io.tenantry.deploy.rollout.RolloutConflictException;
import io.tenantry.deploy.rollout.RolloutRecords;
import io.tenantry.spares.fleet.Cluster;
import io.tenantry.spares.fleet.DatastoreFleetRecords;
import io.tenantry.spares.fleet.FleetRecords;
import io.tenantry.spares.fleet.KubeContexts;
import java.io.File;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What a command works with, opened on first use from the global options and the environment:
 * the fleet and rollout records in Datastore, and a client per registered cluster through its
 * kubeconfig context (credentials stay in the kubeconfig files).
 */
final class Fleet implements AutoCloseable {

  static final String DEFAULT_NAMESPACE = "tenantry";

  private final String project;
  private final String namespace;
  private final String emulatorHost;
  private final List<Path> kubeconfigs;
  private Datastore datastore;
  private FleetRecords records;
  private RolloutRecords rollouts;
  private KubeContexts contexts;
  private final Map<String, KubernetesClient> clients = new LinkedHashMap<>();

  private Fleet(String project, String namespace, String emulatorHost, List<Path> kubeconfigs) {
    this.project = project;
    this.namespace = namespace;
    this.emulatorHost = emulatorHost;
    this.kubeconfigs = kubeconfigs;
  }

  /** From the global options, falling back on the environment as the help text says. */
  static Fleet of(Args args, Map<String, String> env) {
    String project = firstSet(args.one("--datastore-project"), env.get("TENANTRY_DATASTORE_PROJECT"),
        env.get("DATASTORE_PROJECT_ID"));
    String namespace = firstSet(args.one("--datastore-namespace"), env.get("TENANTRY_DATASTORE_NAMESPACE"),
        DEFAULT_NAMESPACE);
    String kubeconfig = firstSet(args.one("--kubeconfig"), env.get("KUBECONFIG"),
        Path.of(firstSet(env.get("HOME"), System.getProperty("user.home")), ".kube", "config").toString());
    List<Path> files = Arrays.stream(kubeconfig.split(File.pathSeparator)).filter(s -> !s.isBlank()).map(Path::of).toList();
    return new Fleet(project, namespace, env.get("DATASTORE_EMULATOR_HOST"), files);
  }

  FleetRecords records() {
    if (records == null) {
      records = new DatastoreFleetRecords(datastore(), namespace);
    }
    return records;
  }

  RolloutRecords rollouts() {
    if (rollouts == null) {
      rollouts = new DatastoreRolloutRecords(datastore(), namespace);
    }
    return rollouts;
  }

  KubeContexts contexts() {
    if (contexts == null) {
      contexts = KubeContexts.load(kubeconfigs);
    }
    return contexts;
  }

  /** The client of a registered cluster, opened once. */
  KubernetesClient client(String cluster) {
    return clients.computeIfAbsent(cluster, name -> {
      Cluster registered = records().getCluster(name)
          .orElseThrow(() -> new RolloutConflictException("cluster " + name
              + " is no longer registered (tenantctl clusters list)"));
      return contexts().connect(registered);
    });
  }

  private Datastore datastore() {
    if (datastore == null) {
      if (project == null) {
        throw new UsageException("--datastore-project: required (or set TENANTRY_DATASTORE_PROJECT)");
      }
      DatastoreOptions.Builder options = DatastoreOptions.newBuilder().setProjectId(project);
      if (emulatorHost != null && !emulatorHost.isBlank()) {
        // The emulator takes no credentials; looking for them would fail on a machine without any.
        options.setHost(emulatorHost).setCredentials(NoCredentials.getInstance());
      }
      datastore = options.build().getService();
    }
    return datastore;
  }

  @Override
  public void close() {
    clients.values().forEach(KubernetesClient::close);
    clients.clear();
  }

  private static String firstSet(String... values) {
    for (String value : values) {
      if (value != null && !value.isBlank()) {
        return value;
      }
    }
    return null;
  }
}
