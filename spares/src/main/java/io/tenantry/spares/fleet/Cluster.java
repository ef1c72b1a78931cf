package io.tenantry.spares.fleet;

import java.time.Instant;
import java.util.Map;

/**
 * A Kubernetes cluster of the fleet. Only the kubeconfig context name is recorded: credentials
 * stay in the operator's kubeconfig and are never stored with the fleet records.
 *
 * @param name the cluster's name in the fleet, a DNS label
 * @param context the kubeconfig context that reaches the cluster
 * @param labels Kubernetes-style labels, such as {@code topology.kubernetes.io/region}; sorted, unmodifiable
 * @param registeredAt when the cluster first joined the fleet, to the microsecond
 */
public record Cluster(String name, String context, Map<String, String> labels, Instant registeredAt) {

  /** Validates every field, naming the one refused. */
  public Cluster {
    FleetNames.requireDnsLabel("cluster", name);
    FleetNames.requireContext(context);
    labels = FleetNames.requireLabels(labels);
    registeredAt = FleetNames.requireTime("registeredAt", registeredAt);
  }

  /** The conventional label for a cluster's cloud region. */
  public static final String REGION_LABEL = "topology.kubernetes.io/region";
}
