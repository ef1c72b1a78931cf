package io.tenantry.controller.autoscaling;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.DeploymentBuilder;
import io.fabric8.kubernetes.api.model.autoscaling.v2.HorizontalPodAutoscaler;
import io.fabric8.kubernetes.api.model.autoscaling.v2.HorizontalPodAutoscalerBuilder;
import io.tenantry.api.v1alpha1.AppSpec;
import io.tenantry.api.v1alpha1.AutoscalingSpec;
import io.tenantry.controller.config.Plan;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Pure: an autoscaled app's HorizontalPodAutoscaler, and how its Deployment's replicas pass between
 * the operator and the HPA without a fight and without a dip.
 *
 * <p>Server-side apply makes whoever applies a field its owner, and removes a field its only owner
 * stops applying, which for a Deployment's replicas means back to 1 (kubernetes#67135). So:
 * <ul>
 *   <li>the Deployment of an app whose replicas another controller decides never carries them, and
 *       says so by {@link #MIN_REPLICAS} (an HPA scaling it costs the operator no write);
 *   <li>the sync that first leaves them out (fixed → autoscaled, a thaw, the operator-wide switch
 *       turned on) is preceded by an apply of only the replicas, at their live value (the floor when
 *       at zero), under a field manager of its own ({@link #HANDOVER_MANAGER}): the field keeps an
 *       owner and its value until the HPA changes it (the documented transfer of ownership);
 *   <li>while the tenant's apps are stopped (Frozen, a restore) the operator carries replicas 0
 *       again, which the HPA leaves alone (it does not scale a Deployment at zero);
 *   <li>autoscaled → fixed deletes the HPA before the Deployment gets its replicas back
 *       ({@code apply/Converger}).
 * </ul>
 */
public final class Autoscaling {

  /**
   * On a Deployment whose replicas the operator leaves to another controller: the replicas it hands
   * over when the Deployment is at zero (the app's minReplicas).
   */
  public static final String MIN_REPLICAS = "tenantry.io/min-replicas";
  /** The field manager that holds a Deployment's replicas between the operator and the HPA. */
  public static final String HANDOVER_MANAGER = "tenantry-handover";

  private Autoscaling() {
  }

  /**
   * An autoscaled app's bounds after its plan: maxReplicas no higher than the plan's
   * maxReplicasPerApp, minReplicas no higher than that.
   *
   * @param clamped whether the plan lowered what the spec asks
   */
  public record Bounds(int min, int max, int targetCpu, boolean clamped) {
  }

  /** The bounds of {@code app} under {@code plan}; empty when the app is not autoscaled. */
  public static Optional<Bounds> bounds(AppSpec app, Plan plan) {
    AutoscalingSpec asked = app.getAutoscaling();
    if (asked == null) {
      return Optional.empty();
    }
    int max = Math.min(asked.getMaxReplicas(), plan.maxReplicasPerApp());
    int min = Math.min(asked.getMinReplicas(), max);
    return Optional.of(new Bounds(min, max, asked.getTargetCPUUtilizationPercentage(), max < asked.getMaxReplicas()));
  }

  /** An HPA (autoscaling/v2) of Deployment {@code deployment} on its pods' average CPU use, within {@code bounds}. */
  public static HorizontalPodAutoscaler horizontalPodAutoscaler(ObjectMeta meta, String deployment, Bounds bounds) {
    return new HorizontalPodAutoscalerBuilder()
        .withMetadata(meta)
        .withNewSpec()
        .withNewScaleTargetRef().withApiVersion("apps/v1").withKind("Deployment").withName(deployment).endScaleTargetRef()
        .withMinReplicas(bounds.min())
        .withMaxReplicas(bounds.max())
        .addNewMetric().withType("Resource").withNewResource().withName("cpu")
        .withNewTarget().withType("Utilization").withAverageUtilization(bounds.targetCpu()).endTarget()
        .endResource().endMetric()
        .endSpec()
        .build();
  }

  /** {@code deployment} marked as one whose replicas another controller decides, with {@code floor} as its hand-over value at zero. */
  public static Deployment leftToAutoscaler(Deployment deployment, int floor) {
    return new DeploymentBuilder(deployment).editMetadata().addToAnnotations(MIN_REPLICAS, Integer.toString(floor)).endMetadata()
        .editSpec().withReplicas(null).endSpec().build();
  }

  /**
   * The apply that must precede writing {@code desired} over {@code cached}: only the replicas, at
   * their live value (the floor when at zero), when {@code desired} is the first to leave them to
   * another controller; else empty.
   */
  public static Optional<HasMetadata> handover(HasMetadata desired, HasMetadata cached) {
    if (!(desired instanceof Deployment want) || !(cached instanceof Deployment have) || floor(want) == null
        || floor(have) != null) {
      return Optional.empty();
    }
    Integer live = have.getSpec() == null ? null : have.getSpec().getReplicas();
    int replicas = live == null || live == 0 ? Integer.parseInt(floor(want)) : live;
    return Optional.of(new DeploymentBuilder()
        .withMetadata(new ObjectMetaBuilder().withName(want.getMetadata().getName()).withNamespace(want.getMetadata().getNamespace())
            .build())
        .withNewSpec().withReplicas(replicas).endSpec()
        .build());
  }

  private static String floor(Deployment deployment) {
    Map<String, String> annotations = deployment.getMetadata().getAnnotations();
    return annotations == null ? null : annotations.get(MIN_REPLICAS);
  }

  /** Whether the app keeps all but one pod through voluntary disruptions: above one pod, or one as its floor. */
  public static boolean wantsDisruptionBudget(AppSpec app, Plan plan) {
    return bounds(app, plan).map(b -> b.min() > 1).orElseGet(() -> app.fixedReplicas() > 1);
  }

  /**
   * Each app's pods in short form: {@code name=replicas}, and for an app its HPA scales,
   * {@code name=replicas (min-max)}; an app without a Deployment is left out.
   *
   * @param deployments the apps' Deployments by app name
   * @param autoscalers the apps' HPAs by app name
   */
  public static String summary(List<AppSpec> apps, Map<String, Deployment> deployments,
      Map<String, HorizontalPodAutoscaler> autoscalers) {
    List<String> parts = new ArrayList<>();
    for (AppSpec app : apps) {
      Deployment deployment = deployments.get(app.getName());
      if (deployment == null || deployment.getSpec() == null) {
        continue;
      }
      Integer replicas = deployment.getSpec().getReplicas();
      HorizontalPodAutoscaler hpa = autoscalers.get(app.getName());
      parts.add(app.getName() + "=" + (replicas == null ? 1 : replicas)
          + (hpa == null ? "" : " (" + hpa.getSpec().getMinReplicas() + "-" + hpa.getSpec().getMaxReplicas() + ")"));
    }
    return parts.isEmpty() ? null : String.join(",", parts);
  }
}
