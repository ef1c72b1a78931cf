package io.tenantry.controller.rollout;

import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;

/**
 * When a workload counts as rolled out: its controller has observed the latest generation and
 * every desired replica is updated and available (ready, for a StatefulSet), with no old ones left.
 */
public final class Readiness {

  private Readiness() {
  }

  public static boolean rolledOut(Deployment deployment) {
    if (deployment == null || deployment.getStatus() == null) {
      return false;
    }
    var status = deployment.getStatus();
    int desired = orZero(deployment.getSpec().getReplicas());
    return observed(status.getObservedGeneration(), deployment.getMetadata().getGeneration())
        && orZero(status.getUpdatedReplicas()) == desired
        && orZero(status.getAvailableReplicas()) == desired
        && orZero(status.getReplicas()) == desired;
  }

  public static boolean rolledOut(StatefulSet statefulSet) {
    if (statefulSet == null || statefulSet.getStatus() == null) {
      return false;
    }
    var status = statefulSet.getStatus();
    int desired = orZero(statefulSet.getSpec().getReplicas());
    return observed(status.getObservedGeneration(), statefulSet.getMetadata().getGeneration())
        && orZero(status.getReadyReplicas()) == desired
        && orZero(status.getUpdatedReplicas()) == desired
        && orZero(status.getReplicas()) == desired;
  }

  public static int availableReplicas(Deployment deployment) {
    return deployment == null || deployment.getStatus() == null ? 0 : orZero(deployment.getStatus().getAvailableReplicas());
  }

  private static boolean observed(Long observedGeneration, Long generation) {
    return observedGeneration != null && generation != null && observedGeneration >= generation;
  }

  private static int orZero(Integer value) {
    return value == null ? 0 : value;
  }
}
