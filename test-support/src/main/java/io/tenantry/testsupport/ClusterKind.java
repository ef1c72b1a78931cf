package io.tenantry.testsupport;

import java.util.Arrays;
import java.util.Locale;
import java.util.stream.Collectors;

/** The clusters a test can run against; chosen with {@code -Dtenantry.cluster=<id>} or {@code TENANTRY_CLUSTER}. */
public enum ClusterKind {
  /** A real kube-apiserver and etcd (kube-api-test): no controllers, no nodes. The default for API-level tests. */
  API_SERVER("api-server", false),
  /** kube-apiserver, etcd, kube-controller-manager, kube-scheduler and kwok fake nodes. The default where workloads must run. */
  SIMULATED("simulated", true),
  /** The user's own cluster, named by KUBECONFIG (or ~/.kube/config). */
  KUBECONFIG("kubeconfig", true),
  /** K3s in Testcontainers; needs a Docker engine and an image registry (-Pk3s). */
  K3S("k3s", true);

  private final String id;
  private final boolean runsWorkloads;

  ClusterKind(String id, boolean runsWorkloads) {
    this.id = id;
    this.runsWorkloads = runsWorkloads;
  }

  public String id() {
    return id;
  }

  /** Whether Deployments and StatefulSets really roll out on it. */
  public boolean runsWorkloads() {
    return runsWorkloads;
  }

  public static ClusterKind fromId(String id) {
    String wanted = id.strip().toLowerCase(Locale.ROOT);
    return Arrays.stream(values()).filter(k -> k.id.equals(wanted)).findFirst()
        .orElseThrow(() -> new IllegalArgumentException("tenantry.cluster: unknown cluster '" + id + "', expected one of "
            + Arrays.stream(values()).map(ClusterKind::id).collect(Collectors.joining(", "))));
  }

  /**
   * The cluster a test gets: the user's choice when it can serve the test, else the test's default.
   * Choosing the API server keeps tests that need running workloads on the simulated cluster.
   */
  public static ClusterKind select(String override, boolean needsWorkloads) {
    ClusterKind fallback = needsWorkloads ? SIMULATED : API_SERVER;
    if (override == null || override.isBlank()) {
      return fallback;
    }
    ClusterKind chosen = fromId(override);
    return needsWorkloads && !chosen.runsWorkloads ? fallback : chosen;
  }
}
