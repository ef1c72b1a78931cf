package io.tenantry.controller.autoscaling;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.DeploymentBuilder;
import io.fabric8.kubernetes.api.model.autoscaling.v2.HorizontalPodAutoscaler;
import io.tenantry.api.v1alpha1.AppSpec;
import io.tenantry.api.v1alpha1.AutoscalingSpec;
import io.tenantry.controller.config.OperatorConfig;
import io.tenantry.controller.config.Plan;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class AutoscalingTest {

  private static final Plan STANDARD = OperatorConfig.defaults().plans().get("standard");

  private static AppSpec app(Integer replicas, AutoscalingSpec autoscaling) {
    AppSpec app = new AppSpec();
    app.setName("web");
    app.setReplicas(replicas);
    app.setAutoscaling(autoscaling);
    return app;
  }

  private static Deployment deployment(Integer replicas) {
    return new DeploymentBuilder().withNewMetadata().withName("app-web").withNamespace("tenant-acme").endMetadata()
        .withNewSpec().withReplicas(replicas).endSpec().build();
  }

  @Test
  void thePlanLowersMaxReplicasAndMinReplicasWithItAndSaysSo() {
    assertThat(STANDARD.maxReplicasPerApp()).isEqualTo(Plan.DEFAULT_MAX_REPLICAS_PER_APP);
    assertThat(Autoscaling.bounds(app(null, new AutoscalingSpec(2, 8, 70)), STANDARD))
        .contains(new Autoscaling.Bounds(2, 8, 70, false));
    assertThat(Autoscaling.bounds(app(null, new AutoscalingSpec(2, 40, 70)), STANDARD))
        .contains(new Autoscaling.Bounds(2, 10, 70, true));
    assertThat(Autoscaling.bounds(app(null, new AutoscalingSpec(15, 40, 70)), STANDARD))
        .contains(new Autoscaling.Bounds(10, 10, 70, true));
    assertThat(Autoscaling.bounds(app(3, null), STANDARD)).isEmpty();
  }

  @Test
  void theAutoscalerTargetsTheDeploymentsAverageCpuWithinTheBounds() {
    HorizontalPodAutoscaler hpa = Autoscaling.horizontalPodAutoscaler(
        new ObjectMetaBuilder().withName("app-web").withNamespace("tenant-acme").build(), "app-web",
        new Autoscaling.Bounds(2, 10, 70, true));
    assertThat(hpa.getApiVersion()).isEqualTo("autoscaling/v2");
    assertThat(hpa.getSpec().getScaleTargetRef().getKind()).isEqualTo("Deployment");
    assertThat(hpa.getSpec().getScaleTargetRef().getName()).isEqualTo("app-web");
    assertThat(hpa.getSpec().getMinReplicas()).isEqualTo(2);
    assertThat(hpa.getSpec().getMaxReplicas()).isEqualTo(10);
    assertThat(hpa.getSpec().getMetrics()).singleElement().satisfies(m -> {
      assertThat(m.getResource().getName()).isEqualTo("cpu");
      assertThat(m.getResource().getTarget().getAverageUtilization()).isEqualTo(70);
    });
  }

  @Test
  void replicasAreHandedOverAtTheirLiveValueOnlyByTheFirstApplyThatLeavesThemOut() {
    Deployment autoscaled = Autoscaling.leftToAutoscaler(deployment(1), 2);
    assertThat(autoscaled.getSpec().getReplicas()).isNull();
    assertThat(autoscaled.getMetadata().getAnnotations()).containsEntry(Autoscaling.MIN_REPLICAS, "2");

    assertThat(Autoscaling.handover(autoscaled, deployment(4))).hasValueSatisfying(h -> {
      Deployment fields = (Deployment) h;
      assertThat(fields.getMetadata().getName()).isEqualTo("app-web");
      assertThat(fields.getMetadata().getNamespace()).isEqualTo("tenant-acme");
      assertThat(fields.getSpec().getReplicas()).as("no dip: the live 4").isEqualTo(4);
      assertThat(fields.getSpec().getTemplate()).as("nothing but the replicas").isNull();
    });
    assertThat(Autoscaling.handover(autoscaled, deployment(0))).as("a thaw: the floor")
        .hasValueSatisfying(h -> assertThat(((Deployment) h).getSpec().getReplicas()).isEqualTo(2));
    assertThat(Autoscaling.handover(autoscaled, Autoscaling.leftToAutoscaler(deployment(5), 2))).as("handed over already").isEmpty();
    assertThat(Autoscaling.handover(autoscaled, null)).as("a new Deployment: the HPA raises it").isEmpty();
    assertThat(Autoscaling.handover(deployment(3), deployment(4))).as("fixed replicas are the operator's").isEmpty();
  }

  @Test
  void aDisruptionBudgetAboveOnePodOrAFloorAboveOne() {
    assertThat(Autoscaling.wantsDisruptionBudget(app(null, null), STANDARD)).isFalse();
    assertThat(Autoscaling.wantsDisruptionBudget(app(2, null), STANDARD)).isTrue();
    assertThat(Autoscaling.wantsDisruptionBudget(app(null, new AutoscalingSpec(1, 5, 80)), STANDARD)).isFalse();
    assertThat(Autoscaling.wantsDisruptionBudget(app(null, new AutoscalingSpec(2, 5, 80)), STANDARD)).isTrue();
  }

  @Test
  void theSummaryShowsEachAppsPodsAndAnAutoscaledOnesBounds() {
    AppSpec web = app(null, new AutoscalingSpec(2, 10, 80));
    AppSpec worker = app(null, null);
    worker.setName("worker");
    HorizontalPodAutoscaler hpa = Autoscaling.horizontalPodAutoscaler(new ObjectMetaBuilder().withName("app-web").build(),
        "app-web", new Autoscaling.Bounds(2, 10, 80, false));
    assertThat(Autoscaling.summary(List.of(web, worker), Map.of("web", deployment(3), "worker", deployment(1)),
        Map.of("web", hpa))).isEqualTo("web=3 (2-10),worker=1");
    assertThat(Autoscaling.summary(List.of(web), Map.of(), Map.of())).isNull();
  }
}
