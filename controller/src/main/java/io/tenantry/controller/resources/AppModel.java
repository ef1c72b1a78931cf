package io.tenantry.controller.resources;

import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.EnvVarBuilder;
import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.ResourceRequirements;
import io.fabric8.kubernetes.api.model.ResourceRequirementsBuilder;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServiceBuilder;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.DeploymentBuilder;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudget;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudgetBuilder;
import io.tenantry.api.v1alpha1.AppSpec;
import io.tenantry.api.v1alpha1.ComputeResources;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** One app of the tenant: a Deployment, a Service and, above one replica, a PodDisruptionBudget. */
public final class AppModel {

  private AppModel() {
  }

  /**
   * The app's Deployment with {@code replicas} pods; {@code null} replicas leaves the count to
   * another controller (an HPA). The image tag is the app's version, also kept as the pod
   * template's version label, which is how the status learns what is rolled out.
   */
  public static Deployment deployment(TenantContext ctx, AppSpec app, Integer replicas) {
    Map<String, String> selector = Labels.selector(ctx.name(), Labels.COMPONENT_APP, app.getName());
    Map<String, String> podLabels = new LinkedHashMap<>(selector);
    podLabels.put(Labels.VERSION, app.getVersion());
    return new DeploymentBuilder()
        .withMetadata(ctx.meta(Names.app(app.getName()), Labels.workload(ctx.name(), Labels.COMPONENT_APP, app.getName())))
        .withNewSpec()
        .withReplicas(replicas)
        .withNewSelector().withMatchLabels(selector).endSelector()
        .withNewTemplate()
        .withNewMetadata().withLabels(podLabels).endMetadata()
        .withNewSpec()
        .withAutomountServiceAccountToken(false)
        .withSecurityContext(PodSecurity.pod(null))
        .addNewContainer()
        .withName(app.getName())
        .withImage(app.getImage() + ":" + app.getVersion())
        .addNewPort().withName("http").withContainerPort(app.getPort()).endPort()
        .withEnv(env(app))
        .withResources(resources(app))
        .withSecurityContext(PodSecurity.container())
        .endContainer()
        .endSpec()
        .endTemplate()
        .endSpec()
        .build();
  }

  public static Service service(TenantContext ctx, AppSpec app) {
    return new ServiceBuilder()
        .withMetadata(ctx.meta(Names.app(app.getName()), Labels.workload(ctx.name(), Labels.COMPONENT_APP, app.getName())))
        .withNewSpec()
        .withSelector(Labels.selector(ctx.name(), Labels.COMPONENT_APP, app.getName()))
        .addNewPort().withName("http").withPort(app.getPort()).withTargetPort(new IntOrString("http")).endPort()
        .endSpec()
        .build();
  }

  /** Keeps all but one pod up through voluntary disruptions; only built when the app has more than one replica. */
  public static PodDisruptionBudget podDisruptionBudget(TenantContext ctx, AppSpec app) {
    return new PodDisruptionBudgetBuilder()
        .withMetadata(ctx.meta(Names.app(app.getName()), Labels.workload(ctx.name(), Labels.COMPONENT_APP, app.getName())))
        .withNewSpec()
        .withMaxUnavailable(new IntOrString(1))
        .withNewSelector().withMatchLabels(Labels.selector(ctx.name(), Labels.COMPONENT_APP, app.getName())).endSelector()
        .endSpec()
        .build();
  }

  private static List<EnvVar> env(AppSpec app) {
    return app.getEnv().stream().map(e -> new EnvVarBuilder().withName(e.getName()).withValue(e.getValue()).build()).toList();
  }

  private static ResourceRequirements resources(AppSpec app) {
    ResourceRequirementsBuilder builder = new ResourceRequirementsBuilder();
    if (app.getResources() != null) {
      builder.withRequests(QuotaModel.quantities(values(app.getResources().getRequests())));
      builder.withLimits(QuotaModel.quantities(values(app.getResources().getLimits())));
    }
    return builder.build();
  }

  private static Map<String, String> values(ComputeResources resources) {
    Map<String, String> values = new LinkedHashMap<>();
    if (resources != null) {
      if (resources.getCpu() != null) {
        values.put("cpu", resources.getCpu());
      }
      if (resources.getMemory() != null) {
        values.put("memory", resources.getMemory());
      }
    }
    return values;
  }
}
