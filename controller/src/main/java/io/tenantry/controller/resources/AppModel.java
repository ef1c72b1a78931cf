package io.tenantry.controller.resources;

import io.fabric8.kubernetes.api.model.Affinity;
import io.fabric8.kubernetes.api.model.AffinityBuilder;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.ContainerBuilder;
import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.PodSpecBuilder;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServiceBuilder;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.DeploymentBuilder;
import io.fabric8.kubernetes.api.model.autoscaling.v2.HorizontalPodAutoscaler;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudget;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudgetBuilder;
import io.tenantry.api.v1alpha1.AppSpec;
import io.tenantry.api.v1alpha1.ConfigFile;
import io.tenantry.controller.autoscaling.Autoscaling;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * One app of the tenant: a Deployment, a Service, its configuration files, above one replica a
 * PodDisruptionBudget and, autoscaled, a HorizontalPodAutoscaler.
 */
public final class AppModel {

  private AppModel() {
  }

  /**
   * The app's Deployment at {@code version} with {@code replicas} pods; {@code null} replicas
   * leaves the count to another controller (an HPA). The image tag is the version, also kept as
   * the pod template's version label, which is how the status (and the migration) learns what
   * is deployed. The version is the spec's unless a migration holds the app at the previous one.
   * {@code paused: false} is set although it is the default, so that the operator owns it: a
   * Deployment paused by someone else (which would stall every rollout of it) is resumed.
   */
  public static Deployment deployment(TenantContext ctx, AppSpec app, String version, Integer replicas, String restartHash) {
    Map<String, String> selector = Labels.selector(ctx.name(), Labels.COMPONENT_APP, app.getName());
    Map<String, String> podLabels = new LinkedHashMap<>(selector);
    podLabels.put(Labels.VERSION, version);
    ContainerBuilder container = new ContainerBuilder()
        .withName(app.getName())
        .addNewPort().withName("http").withContainerPort(app.getPort()).endPort()
        .withReadinessProbe(AppPod.readiness(app))
        .withLivenessProbe(AppPod.liveness(app));
    return new DeploymentBuilder()
        .withMetadata(ctx.meta(Names.app(app.getName()), Labels.workload(ctx.name(), Labels.COMPONENT_APP, app.getName())))
        .withNewSpec()
        .withReplicas(replicas)
        .withPaused(false)
        .withNewSelector().withMatchLabels(selector).endSelector()
        .withNewTemplate()
        .withNewMetadata().withLabels(podLabels).addToAnnotations(AppPod.RESTART_HASH, restartHash).endMetadata()
        .withSpec(new PodSpecBuilder(AppPod.spec(ctx, app, version, container, "Always")).withAffinity(spreadOverNodes(selector)).build())
        .endTemplate()
        .endSpec()
        .build();
  }

  /** The apps that have routes ({@code apps[].routes}), in spec order: the only ones the edge may reach. */
  public static List<AppSpec> exposed(TenantContext ctx) {
    return ctx.tenant().getSpec().getApps().stream().filter(a -> !a.getRoutes().isEmpty()).toList();
  }

  /**
   * Prefers putting an app's replicas on different nodes, so that losing one node does not take
   * the whole app down; only preferred, as a small cluster must still run every replica.
   */
  public static Affinity spreadOverNodes(Map<String, String> selector) {
    return new AffinityBuilder().withNewPodAntiAffinity().addNewPreferredDuringSchedulingIgnoredDuringExecution()
        .withWeight(100).withNewPodAffinityTerm().withTopologyKey("kubernetes.io/hostname")
        .withNewLabelSelector().withMatchLabels(selector).endLabelSelector()
        .endPodAffinityTerm().endPreferredDuringSchedulingIgnoredDuringExecution().endPodAntiAffinity().build();
  }

  /** The app's configuration files ({@code apps[].config}); only built when it has some. */
  public static ConfigMap configFiles(TenantContext ctx, AppSpec app) {
    Map<String, String> data = new LinkedHashMap<>();
    for (ConfigFile file : app.getConfig()) {
      data.put(file.getName(), file.getContent());
    }
    return new ConfigMapBuilder()
        .withMetadata(ctx.meta(Names.appConfig(app.getName()), Labels.workload(ctx.name(), Labels.COMPONENT_APP, app.getName())))
        .withData(data)
        .build();
  }

  /**
   * The type and an empty external name are set although they are the defaults, so that the
   * operator owns both: a Service turned into an ExternalName (an edge that follows it would proxy
   * the tenant's hostname to any name in the cluster) differs from this one and one apply puts it
   * back, in place (without the empty name the API server takes the type back but keeps the name,
   * another manager's field).
   */
  public static Service service(TenantContext ctx, AppSpec app) {
    return new ServiceBuilder()
        .withMetadata(ctx.meta(Names.app(app.getName()), Labels.workload(ctx.name(), Labels.COMPONENT_APP, app.getName())))
        .withNewSpec()
        .withType("ClusterIP")
        .withExternalName("")
        .withSelector(Labels.selector(ctx.name(), Labels.COMPONENT_APP, app.getName()))
        .addNewPort().withName("http").withPort(app.getPort()).withTargetPort(new IntOrString("http")).endPort()
        .endSpec()
        .build();
  }

  /** The app's HorizontalPodAutoscaler, named as its Deployment; only built when the app is autoscaled. */
  public static HorizontalPodAutoscaler horizontalPodAutoscaler(TenantContext ctx, AppSpec app, Autoscaling.Bounds bounds) {
    return Autoscaling.horizontalPodAutoscaler(
        ctx.meta(Names.app(app.getName()), Labels.workload(ctx.name(), Labels.COMPONENT_APP, app.getName())),
        Names.app(app.getName()), bounds);
  }

  /** Keeps all but one pod up through voluntary disruptions; only built when the app has more than one replica (or as its floor). */
  public static PodDisruptionBudget podDisruptionBudget(TenantContext ctx, AppSpec app) {
    return new PodDisruptionBudgetBuilder()
        .withMetadata(ctx.meta(Names.app(app.getName()), Labels.workload(ctx.name(), Labels.COMPONENT_APP, app.getName())))
        .withNewSpec()
        .withMaxUnavailable(new IntOrString(1))
        .withNewSelector().withMatchLabels(Labels.selector(ctx.name(), Labels.COMPONENT_APP, app.getName())).endSelector()
        .endSpec()
        .build();
  }
}
